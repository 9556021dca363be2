<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>swarmtrain::ClientSession</name>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 TFLOP/s</source>
        <translation>%1 TFLOP/s</translation>
    </message>
    <message>
        <source>%1 GFLOP/s</source>
        <translation>%1 GFLOP/s</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>Sin enjambre</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>Únete a un enjambre en la página Enjambre o aloja uno en este PC.</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>Detenido: %1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Pausado por ti hasta las %1</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Esperando la siguiente ronda</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Preparando</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>Reanudando</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Detenido</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Detenido por un error</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>Productos de matrices</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>Ancho de banda de copia</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>Entrenamiento, residente en la GPU</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>Entrenamiento, con intercambio</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Listo</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Dispositivo</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>Producto de matrices, %1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>Host a dispositivo</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>Dispositivo a host</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 capas × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>Entrenamiento %1, residente en la GPU</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 tokens/s</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>Entrenamiento %1, con intercambio</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>Con intercambio frente a residente</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>Se encontró %1, pero esta versión de SwarmTrain solo entrena en GPU de NVIDIA</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>Se encontró %1, pero esta versión de SwarmTrain no es compatible con CUDA</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>Se encontró %1, pero CUDA no la detecta (¿está definida CUDA_VISIBLE_DEVICES?)</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 millones</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT, %n capa × %1, %2 de parámetros</numerusform>
            <numerusform>GPT, %n capas × %1, %2 de parámetros</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 es http:// sin cifrar hacia otro ordenador: cualquiera en el camino podría falsificar las respuestas del enjambre. Pide su enlace de invitación https:// o permite HTTP sin cifrar.</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>Guardando la copia del modelo de este PC y avisando al coordinador</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>Saliendo del enjambre anterior</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>Saliendo del enjambre</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>Moviendo el entrenamiento a los dispositivos elegidos</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama, %n capa × %1, %2 de parámetros</numerusform>
            <numerusform>Llama, %n capas × %1, %2 de parámetros</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>Únase primero a un enjambre: el modelo es del enjambre.</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>No se puede obtener el modelo del enjambre: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s), %1 a second</source>
        <translation>
            <numerusform>%n token, %1 por segundo</numerusform>
            <numerusform>%n tokens, %1 por segundo</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>swarmtrain::ControlCommands</name>
    <message>
        <source>swarm: %1</source>
        <translation>enjambre: %1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>modo: %1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>ronda %1, %2 de %3 pasos</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>en pausa (%1) hasta %2</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>en pausa (%1)</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>, memoria de la GPU liberada</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>%1 rondas aportadas, %2 aceptadas, %3 no aceptadas</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 tokens, %2 horas de cómputo, crédito %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 min, %L2 tokens, crédito %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for necesita una duración de 1s a 30d, como 90s, 15m, 2h o 1d</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join necesita la URL o el enlace de invitación del enjambre</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave no admite URL</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DashboardPage</name>
    <message>
        <source>%1 GPU-hours</source>
        <translation>%1 horas de GPU</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 tokens/s</translation>
    </message>
    <message>
        <source>Current work</source>
        <translation>Trabajo actual</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modo</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Ronda</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Velocidad</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>Aportado por este PC</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>Tokens entrenados</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>Tiempo de cómputo</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>Rondas aceptadas</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Crédito</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>Datos enviados</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>Datos recibidos</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>Tokens por segundo, últimos 5 minutos</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>hace minutos</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>Pérdida de validación del enjambre</translation>
    </message>
    <message>
        <source>round</source>
        <translation>ronda</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>Horas de GPU</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Iniciando</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reanudar</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausar</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Paso %1 de %2</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>Ninguna ronda en curso</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1 (%2 rechazadas)</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>pérdida</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 mil millones</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 millones</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>Pasos internos</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>Horas de GPU por día, %1 – %2</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 microlotes/s</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>Esta etapa %1/s, la más lenta %2/s</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>Rendimiento de la etapa aún sin medir</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>Paso %1 en un presupuesto de %2 s; última ronda %3 pasos, %4 % de uso</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>Paso %1 en un presupuesto de %2 s</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>Pérdida de validación del enjambre, bits por byte</translation>
    </message>
    <message>
        <source>bits per byte</source>
        <translation>bits por byte</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DevicePage</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>Graphics processors</source>
        <translation>Procesadores gráficos</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Actualizar</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>Prueba de rendimiento</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>Mide la rapidez con la que este PC multiplica matrices, copia datos hacia y desde la GPU y entrena un modelo pequeño. El enjambre usa estas cifras para asignar a este PC una parte adecuada del trabajo. Tarda alrededor de un minuto.</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>Ejecutar &amp;prueba</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>Medida</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Resultado</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Buscando GPU…</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>No se encontró ninguna GPU: SwarmTrain entrena en la CPU</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>Entrenar en el procesador es más lento, pero cada aportación cuenta. Si este PC tiene una tarjeta gráfica, instala su controlador más reciente para que SwarmTrain la encuentre.</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>SwarmTrain entrena en las GPU marcadas como listas.</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>SwarmTrain encontró estas GPU.</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>Lista para entrenar</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>No se usa para entrenar</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconocido</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>Fabricante</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memoria</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%1 libres de %2</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>Controlador</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatura</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>Capacidad de cómputo</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Uso</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>Otros programas</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>%1 en uso</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Iniciando…</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>La prueba de rendimiento falló: %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>No se puede escuchar en «%1»: no es una dirección IP.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>ninguna de las GPU elegidas en Ajustes está presente y es utilizable</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>Sin enjambre</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Pausado por ti hasta las %1</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Pausado por ti</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Detenido por un error</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribuyendo</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Esperando la siguiente ronda</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Preparando</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Invite</name>
    <message>
        <source>Paste a swarm&apos;s address or an invite link.</source>
        <translation>Pega la dirección de un enjambre o un enlace de invitación.</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>Este enlace de invitación está dañado: no indica ninguna dirección de enjambre.</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>Este enlace de invitación está dañado: su huella del certificado no es sha256//…</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>«%1» no es un enlace de invitación ni una dirección http(s).</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>una petición es un objeto JSON en una línea, de %1 bytes como máximo</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>una pausa dura de 1 segundo a %1 días</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join necesita la URL o el enlace de invitación del enjambre</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats abarca de 1 a %1 días</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log muestra de 0 a %1 líneas</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>orden desconocida «%1»</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>Depuración</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Advertencia</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>Grave</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Hora</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>Nivel</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Categoría</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Mensaje</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>&amp;Categoría:</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>Todas las categorías</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>&amp;Nivel:</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>Todos los mensajes</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>Info y superiores</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>Advertencias y errores</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>Buscar mensajes…</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>Co&amp;piar</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>Mensajes: %1</translation>
    </message>
    <message>
        <source>Showing %1 of %2</source>
        <translation>Mostrando %1 de %2</translation>
    </message>
</context>
<context>
    <name>swarmtrain::MainWindow</name>
    <message>
        <source>SwarmTrain keeps running</source>
        <translation>SwarmTrain sigue en ejecución</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>SwarmTrain sigue contribuyendo en segundo plano y se aparta en cuanto usas el ordenador. Desde su icono en la bandeja del sistema puedes volver a abrirlo, pausarlo o salir.</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>Panel</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Dispositivo</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Enjambre</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Ajustes</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Registro</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ModelPage</name>
    <message>
        <source>The swarm&apos;s model</source>
        <translation>El modelo del enjambre</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>Descargarlo</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>Pruébelo</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>Escriba el comienzo de un texto; el modelo lo continúa</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>Escribir</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>El entrenamiento se pausa los pocos segundos que escribe el modelo y luego continúa.</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>El enjambre no responde ahora.</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>No está en un enjambre: únase a uno en la página Enjambre.</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1, ronda %2</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>%1 bits por byte</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>pérdida de validación %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>El anfitrión del enjambre no publica exportaciones (--export-every del coordinador).</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>Ronda %1: %2 (GGUF para llama.cpp, Ollama y LM Studio; la carpeta de Hugging Face para transformers)</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>Obteniendo el modelo del enjambre…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>Escribiendo; el entrenamiento está en pausa hasta que termine.</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>Listo: %1. El entrenamiento continúa.</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>No se pudo escribir: %1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>%1 tokens entrenados</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>En pausa: %1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>Esperando a que el coordinador asigne este PC en el pipeline</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>Construyendo la etapa %1 de %2 del pipeline</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>Tomando el estado de la etapa %1 del pipeline de un vecino</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>Entrenando: etapa 1 de %1 del pipeline, paso %2</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>Promediando los gradientes de la etapa %1 del pipeline</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>Esperando a que cada etapa del pipeline tenga un par</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>Sirviendo la etapa %1 de %2 del pipeline, paso %3</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>Cuándo calcular</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>Empezar tras &amp;inactividad de:</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>Siempre (0 min)</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>SwarmTrain solo calcula cuando nadie ha usado el teclado ni el ratón durante este tiempo, y se pausa en cuanto vuelves. 0 = siempre, también mientras trabajas.</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>Pausar mientras el equipo funcione con &amp;batería</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>Calcular solo &amp;entre</translation>
    </message>
    <message>
        <source>and</source>
        <translation>y</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>Juegos y otros programas</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>Mientras se ejecute uno de estos programas, SwarmTrain se detiene y libera la memoria de la GPU, para que el programa tenga toda la GPU.</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>Nombre del programa, p. ej. game.exe</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Añadir</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Quitar</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>Límites de la GPU</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>&amp;Uso máximo de la GPU:</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>&amp;Memoria máxima de la GPU:</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automática</translation>
    </message>
    <message>
        <source>Pause at GPU &amp;temperature:</source>
        <translation>Pausar a una &amp;temperatura de la GPU de:</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>Un uso menor mantiene la GPU más fría y silenciosa; el entrenamiento tarda entonces más. El entrenamiento se reanuda cuando la GPU se ha enfriado 5 °C por debajo del límite.</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>Aplicación</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>Iniciar &amp;SwarmTrain al iniciar sesión</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>Idi&amp;oma:</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Predeterminado del sistema</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>&amp;Límite de espacio en disco:</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>Para los datos de entrenamiento descargados, los puntos de control y la copia del modelo de este PC.</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>&amp;Nombre visible:</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>Ninguno: la clasificación muestra el ID de clave de este PC</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>Se muestra junto al crédito de este PC en la clasificación del enjambre a partir de la próxima vez que se una a un enjambre. Cualquiera puede leerlo, y otros PC pueden usar el mismo nombre.</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>El nombre tiene más de %1 caracteres.</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>El nombre no puede contener saltos de línea ni caracteres de control.</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>El nombre no puede contener caracteres que cambien la dirección del texto.</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>El nombre no puede contener caracteres invisibles (de ancho cero).</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>El nombre no puede estar formado solo por espacios.</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>Entrenar &amp;con:</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>Automático: la mejor GPU encontrada, si no el procesador</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>Solo las GPU marcadas abajo</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>Ninguna: entrenar solo en el procesador</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>Cada GPU marcada entrena su propia copia del modelo. Cambiar esto reinicia el entrenamiento.</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1, %2 GiB</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>No se encontró ninguna GPU: entrena el procesador.</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Buscando GPU…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>Ninguna de las GPU encontradas puede entrenar con esta compilación.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>El enlace de invitación está en el portapapeles.</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>Enjambre actual</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Enjambre</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>Pares en línea</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Ronda</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>Función de este PC</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>Certificado</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>Salir del enjambre</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>Unirse a un enjambre</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>Pega la dirección del enjambre (https://…) o un enlace de invitación que te haya enviado un amigo (swarmtrain://join?…). Una invitación también fija el certificado del enjambre, para que nadie en medio pueda hacerse pasar por él.</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>Unirse</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>Certificado fijado</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>Alojar un enjambre en este PC</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>Ejecuta un coordinador en este PC para que tus amigos de la red puedan entrenar un modelo juntos. Elige un archivo de texto como datos de entrenamiento; este PC también se une al enjambre.</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>Texto de entrenamiento</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>Un archivo de texto sin formato (.txt)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Examinar…</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Puerto</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>Tamaño del modelo</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>Diminuto</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>Pequeño</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Mediano</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1: %2 capas × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>Empezar a alojar</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>Dejar de alojar</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>Enlace de invitación para amigos</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>Aparece cuando el enjambre está en marcha</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Copiar</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>Sin enjambre</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>Réplica completa del modelo</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>Sin fijar</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>Fijado: %1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>No se puede contactar con el coordinador del enjambre: %1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>Uniéndose al enjambre en %1…</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>Elige un archivo de texto para entrenar.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>«%1» no es un archivo.</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>No se pudo iniciar el enjambre: %1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>Tu enjambre está en marcha y este PC entrena en él. Envía el enlace de invitación a tus amigos.</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>Iniciando el enjambre…</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>Elige un archivo de texto para entrenar</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>Archivos de texto (*.txt);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… o swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>Ninguno (dirección simple)</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>Permitir http:// sin cifrar hacia otros ordenadores (inseguro: sus respuestas podrían falsificarse)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>Etapas del pipeline</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Etapa del pipeline: aún sin asignar</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Etapa %1 de %2 del pipeline</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>Etapa %1: %n par</numerusform>
            <numerusform>Etapa %1: %n pares</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>, %1 microlotes/s</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation> (la más lenta)</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>Clasificación</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Puesto</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Crédito</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>%1 (This PC)</source>
        <translation>%1 (este PC)</translation>
    </message>
    <message>
        <source>Join a swarm to see who contributes most.</source>
        <translation>Únete a un enjambre para ver quién contribuye más.</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>Todavía no hay nadie en la clasificación de este enjambre.</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>Este PC todavía no está en la clasificación.</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>La fila de este PC aparece en negrita.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>Saliendo del enjambre</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>Has salido del enjambre</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Detenido</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Iniciando</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>No se puede contactar con el coordinador del enjambre; se reintentará en %1 s</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>Uniéndose al enjambre en %1</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>Te has unido al enjambre en %1</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>Descargando el fragmento de datos %1 de %2</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>Descargando el modelo del enjambre</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>Descargado el estado del enjambre de la ronda %1</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>Entrenando la ronda %1</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>Reanudado</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>Esperando a que empiece la ronda %1</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>Promediando la ronda %1 con el enjambre</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>Comprobando el trabajo de otro participante en la ronda %1</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>Demasiado lento para las rondas de este enjambre: comprueba el trabajo de otros pares</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>Aportando el %1 % del tiempo de la GPU</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribuyendo</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Pausado por ti</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>En pausa: estás usando el ordenador</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>En pausa: funcionando con batería</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>En pausa: hay un juego en ejecución</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>En pausa: otro programa está usando la GPU</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>En pausa: la GPU está demasiado caliente</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>En pausa: fuera del horario que elegiste</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>En pausa: los archivos de SwarmTrain superan tu límite de disco</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>En pausa: el modelo está escribiendo el texto que pidió</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>Abrir el panel</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausar</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>Pausar 1 hora</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reanudar</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>Salir de SwarmTrain</translation>
    </message>
    <message>
        <source>SwarmTrain — %1</source>
        <translation>SwarmTrain — %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::WorkStatus</name>
    <message>
        <source>Full model</source>
        <translation>Modelo completo</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Etapa del pipeline: aún sin asignar</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Etapa %1 de %2 del pipeline</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1, en %2 GPU</translation>
    </message>
</context>
</TS>
