<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR">
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
        <translation>Fora de um enxame</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>Entre em um enxame na página Enxame ou hospede um neste PC.</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>Parado: %1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Pausado por você até %1</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Aguardando a próxima rodada</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Preparando</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>Retomando</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Parado</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Parado por um erro</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>Produtos de matrizes</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>Largura de banda de cópia</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>Treinamento, residente na GPU</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>Treinamento, com troca de memória</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Concluído</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Dispositivo</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>Produto de matrizes, %1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>Host para dispositivo</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>Dispositivo para host</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 camadas × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>Treinamento %1, residente na GPU</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 tokens/s</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>Treinamento %1, com troca de memória</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>Com troca em relação a residente</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>%1 encontrada, mas esta versão do SwarmTrain treina somente em GPUs NVIDIA</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>%1 encontrada, mas esta versão do SwarmTrain não tem suporte a CUDA</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>%1 encontrada, mas o CUDA não a enxerga (CUDA_VISIBLE_DEVICES está definida?)</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 milhões</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT, %n camada × %1, %2 de parâmetros</numerusform>
            <numerusform>GPT, %n camadas × %1, %2 de parâmetros</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 é http:// sem criptografia para outro computador: qualquer um no caminho poderia falsificar as respostas do enxame. Peça o link de convite https:// ou permita HTTP sem criptografia.</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>Salvando a cópia do modelo deste PC e avisando o coordenador</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>Saindo do enxame anterior</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>Saindo do enxame</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>Movendo o treinamento para os dispositivos escolhidos</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama, %n camada × %1, %2 de parâmetros</numerusform>
            <numerusform>Llama, %n camadas × %1, %2 de parâmetros</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>Entre primeiro em um enxame: o modelo é do enxame.</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>Não foi possível obter o modelo do enxame: %1</translation>
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
        <translation>enxame: %1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>modo: %1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>rodada %1, %2 de %3 passos</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>pausado (%1) até %2</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>pausado (%1)</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>, memória da GPU liberada</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>%1 rodadas contribuídas, %2 aceitas, %3 não aceitas</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 tokens, %2 horas de computação, crédito %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 min, %L2 tokens, crédito %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for precisa de uma duração de 1s a 30d, como 90s, 15m, 2h ou 1d</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join precisa da URL ou do link de convite do enxame</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave não aceita URL</translation>
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
        <translation>Trabalho atual</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modo</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Rodada</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Velocidade</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>Contribuição deste PC</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>Tokens treinados</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>Tempo de computação</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>Rodadas aceitas</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Crédito</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>Dados enviados</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>Dados recebidos</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>Tokens por segundo, últimos 5 minutos</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>minutos atrás</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>Perda de validação do enxame</translation>
    </message>
    <message>
        <source>round</source>
        <translation>rodada</translation>
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
        <translation>Retomar</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausar</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Passo %1 de %2</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>Nenhuma rodada em andamento</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1 (%2 rejeitadas)</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>perda</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 bilhões</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 milhões</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>Passos internos</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>Horas de GPU por dia, %1 – %2</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 microlotes/s</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>Este estágio %1/s, o mais lento %2/s</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>Vazão do estágio ainda não medida</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>Passo %1 em um orçamento de %2 s; última rodada %3 passos, %4% de uso</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>Passo %1 em um orçamento de %2 s</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>Perda de validação do enxame, bits por byte</translation>
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
        <translation>Processadores gráficos</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Atualizar</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>Teste de desempenho</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>Mede a rapidez com que este PC multiplica matrizes, copia dados para a GPU e de volta e treina um modelo pequeno. O enxame usa esses números para dar a este PC uma parte adequada do trabalho. Leva cerca de um minuto.</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>Executar &amp;teste</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>Medição</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Resultado</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Procurando GPUs…</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>Nenhuma GPU encontrada — o SwarmTrain treina na CPU</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>Treinar no processador é mais lento, mas toda contribuição conta. Se este PC tiver uma placa de vídeo, instale o driver atual dela para que o SwarmTrain a encontre.</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>O SwarmTrain treina nas GPUs marcadas como prontas.</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>O SwarmTrain encontrou estas GPUs.</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>Pronta para treinar</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>Não usada para treinar</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Desconhecido</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>Fabricante</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memória</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%1 livres de %2</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>Driver</translation>
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
        <translation>Capacidade de computação</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Utilização</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>Outros programas</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>%1 em uso</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Iniciando…</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>O teste de desempenho falhou: %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>Não é possível escutar em “%1”: não é um endereço IP.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>nenhuma das GPUs escolhidas nas Configurações está presente e utilizável</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>Fora de um enxame</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Pausado por você até %1</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Pausado por você</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Parado por um erro</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribuindo</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Aguardando a próxima rodada</translation>
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
        <translation>Cole o endereço de um enxame ou um link de convite.</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>Este link de convite está danificado: ele não indica nenhum endereço de enxame.</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>Este link de convite está danificado: a impressão digital do certificado não é sha256//…</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>“%1” não é um link de convite nem um endereço http(s).</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>uma requisição é um objeto JSON em uma linha, com no máximo %1 bytes</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>uma pausa dura de 1 segundo a %1 dias</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join precisa da URL ou do link de convite do enxame</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats abrange de 1 a %1 dias</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log mostra de 0 a %1 linhas</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>comando desconhecido &quot;%1&quot;</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>Depuração</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Aviso</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Erro</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>Fatal</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Hora</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>Nível</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Categoria</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Mensagem</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>&amp;Categoria:</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>Todas as categorias</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>&amp;Nível:</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>Todas as mensagens</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>Info e acima</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>Avisos e erros</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>Pesquisar mensagens…</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>Co&amp;piar</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>Mensagens: %1</translation>
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
        <translation>O SwarmTrain continua em execução</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>O SwarmTrain continua contribuindo em segundo plano e dá lugar sempre que você usa o computador. Abra-o de novo, pause-o ou saia pelo ícone na bandeja do sistema.</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>Painel</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Dispositivo</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Enxame</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Configurações</translation>
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
        <translation>O modelo do enxame</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>Baixar</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>Experimente</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>Digite o início de um texto; o modelo continua</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>Escrever</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>O treinamento pausa pelos poucos segundos em que o modelo escreve e depois continua.</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>O enxame não está respondendo agora.</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>Fora de um enxame: entre em um na página Enxame.</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1, rodada %2</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>%1 bits por byte</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>perda de validação %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>O anfitrião do enxame não publica exportações (--export-every do coordenador).</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>Rodada %1: %2 (GGUF para llama.cpp, Ollama e LM Studio; a pasta do Hugging Face para transformers)</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>Obtendo o modelo do enxame…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>Escrevendo; o treinamento fica pausado até terminar.</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>Pronto: %1. O treinamento continua.</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>Não foi possível escrever: %1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>%1 tokens treinados</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>Pausado: %1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>Aguardando o coordenador posicionar este PC no pipeline</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>Construindo o estágio %1 de %2 do pipeline</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>Obtendo o estado do estágio %1 do pipeline de um vizinho</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>Treinando: estágio 1 de %1 do pipeline, passo %2</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>Calculando a média dos gradientes do estágio %1 do pipeline</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>Aguardando que cada estágio do pipeline tenha um par</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>Servindo o estágio %1 de %2 do pipeline, passo %3</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>Quando calcular</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>Iniciar após &amp;inatividade de:</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>Sempre (0 min)</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>O SwarmTrain só calcula quando ninguém usou o teclado ou o mouse por esse tempo, e pausa assim que você volta. 0 = sempre, inclusive enquanto você trabalha.</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>Pausar enquanto o computador estiver na &amp;bateria</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>Calcular somente &amp;entre</translation>
    </message>
    <message>
        <source>and</source>
        <translation>e</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>Jogos e outros programas</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>Enquanto um destes programas estiver em execução, o SwarmTrain para e libera a memória da GPU, para que o programa tenha a GPU inteira.</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>Nome do programa, p. ex. game.exe</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Adicionar</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Remover</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>Limites da GPU</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>&amp;Utilização máxima da GPU:</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>&amp;Memória máxima da GPU:</translation>
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
        <translation>Pausar na &amp;temperatura da GPU de:</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>Uma utilização menor mantém a GPU mais fria e silenciosa; o treinamento então demora mais. O treinamento é retomado quando a GPU esfria 5 °C abaixo do limite.</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>Aplicativo</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>Iniciar o &amp;SwarmTrain quando eu entrar</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>I&amp;dioma:</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Padrão do sistema</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>&amp;Limite de espaço em disco:</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>Para dados de treinamento baixados, checkpoints e a cópia do modelo neste PC.</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>&amp;Nome de exibição:</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>Nenhum: o placar mostra o ID da chave deste PC</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>Exibido ao lado do crédito deste PC no placar do enxame, a partir da próxima vez que ele entrar em um enxame. Qualquer pessoa pode lê-lo, e outros PCs podem usar o mesmo nome.</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>O nome tem mais de %1 caracteres.</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>O nome não pode conter quebras de linha nem caracteres de controle.</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>O nome não pode conter caracteres que mudam a direção do texto.</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>O nome não pode conter caracteres invisíveis (de largura zero).</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>O nome não pode ser composto apenas por espaços.</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>Treinar &amp;com:</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>Automático: a melhor GPU encontrada, senão o processador</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>Somente as GPUs marcadas abaixo</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>Nenhuma: treinar somente no processador</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>Cada GPU marcada treina a própria cópia do modelo. Alterar isto reinicia o treinamento.</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1, %2 GiB</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>Nenhuma GPU encontrada: o processador treina.</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Procurando GPUs…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>Nenhuma das GPUs encontradas pode treinar com esta versão.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>O link de convite está na área de transferência.</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>Enxame atual</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Enxame</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>Pares online</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Rodada</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>Papel deste PC</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>Certificado</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>Sair do enxame</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>Entrar em um enxame</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>Cole o endereço do enxame (https://…) ou um link de convite que um amigo enviou (swarmtrain://join?…). Um convite também fixa o certificado do enxame, para que ninguém no meio do caminho possa se passar por ele.</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>Entrar</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>Fixação de certificado</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>Hospedar um enxame neste PC</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>Executa um coordenador neste PC para que amigos na sua rede possam treinar um modelo juntos. Escolha um arquivo de texto como dados de treinamento; este PC também entra no enxame.</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>Texto de treinamento</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>Um arquivo de texto simples (.txt)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Procurar…</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Porta</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>Tamanho do modelo</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>Minúsculo</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>Pequeno</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Médio</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1: %2 camadas × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>Começar a hospedar</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>Parar de hospedar</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>Link de convite para amigos</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>Aparece quando o enxame estiver em execução</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Copiar</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>Fora de um enxame</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>Réplica completa do modelo</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>Não fixado</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>Fixado: %1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>Não foi possível alcançar o coordenador do enxame: %1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>Entrando no enxame em %1…</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>Escolha um arquivo de texto para treinar.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>“%1” não é um arquivo.</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>Não foi possível iniciar o enxame: %1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>Seu enxame está em execução e este PC treina nele. Envie o link de convite aos amigos.</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>Iniciando o enxame…</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>Escolha um arquivo de texto para treinar</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>Arquivos de texto (*.txt);;Todos os arquivos (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… ou swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>Nenhuma (endereço simples)</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>Permitir http:// sem criptografia para outros computadores (inseguro: as respostas podem ser falsificadas)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>Estágios do pipeline</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Estágio do pipeline: ainda não atribuído</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Estágio %1 de %2 do pipeline</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>Estágio %1: %n par</numerusform>
            <numerusform>Estágio %1: %n pares</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>, %1 microlotes/s</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation> (o mais lento)</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>Placar</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Posição</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nome</translation>
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
        <translation>Entre em um enxame para ver quem mais contribui.</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>Ainda não há ninguém no placar deste enxame.</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>Este PC ainda não está no placar.</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>A linha deste PC aparece em negrito.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>Saindo do enxame</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>Saiu do enxame</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Parado</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Iniciando</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>Não foi possível alcançar o coordenador do enxame; nova tentativa em %1 s</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>Entrando no enxame em %1</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>Entrou no enxame em %1</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>Baixando o fragmento de dados %1 de %2</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>Baixando o modelo do enxame</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>Estado do enxame da rodada %1 baixado</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>Treinando a rodada %1</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>Retomado</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>Aguardando o início da rodada %1</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>Calculando a média da rodada %1 com o enxame</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>Verificando o trabalho de outro par na rodada %1</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>Lento demais para as rodadas deste enxame: verifica o trabalho de outros pares</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>Contribuindo com %1% do tempo da GPU</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribuindo</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Pausado por você</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>Pausado: você está usando o computador</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>Pausado: na bateria</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>Pausado: um jogo está em execução</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>Pausado: outro programa está usando a GPU</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>Pausado: a GPU está quente demais</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>Pausado: fora do horário escolhido</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>Pausado: os arquivos do SwarmTrain ultrapassam seu limite de disco</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>Pausado: o modelo está escrevendo o texto que você pediu</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>Abrir painel</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausar</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>Pausar por 1 hora</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Retomar</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>Sair do SwarmTrain</translation>
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
        <translation>Estágio do pipeline: ainda não atribuído</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Estágio %1 de %2 do pipeline</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1, em %2 GPUs</translation>
    </message>
</context>
</TS>
