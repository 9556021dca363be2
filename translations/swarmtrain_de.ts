<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
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
        <translation>In keinem Schwarm</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>Treten Sie auf der Seite „Schwarm“ einem Schwarm bei oder hosten Sie einen auf diesem PC.</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>Angehalten: %1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Von Ihnen pausiert bis %1</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Warten auf die nächste Runde</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Wird vorbereitet</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>Wird fortgesetzt</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Durch einen Fehler angehalten</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>Matrixprodukte</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>Kopierbandbreite</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>Training, im GPU-Speicher</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>Training, mit Auslagerung</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>Matrixprodukt, %1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>Host zu Gerät</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>Gerät zu Host</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 Schichten × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>Training %1, im GPU-Speicher</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 Tokens/s</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>Training %1, mit Auslagerung</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>Auslagerung im Vergleich zum GPU-Speicher</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>%1 gefunden, aber diese Version von SwarmTrain trainiert nur auf NVIDIA-GPUs</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>%1 gefunden, aber diese Version von SwarmTrain unterstützt kein CUDA</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>%1 gefunden, aber CUDA erkennt sie nicht (ist CUDA_VISIBLE_DEVICES gesetzt?)</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 Mio.</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT, %n Schicht × %1, %2 Parameter</numerusform>
            <numerusform>GPT, %n Schichten × %1, %2 Parameter</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 ist unverschlüsseltes http:// zu einem anderen Computer: Jeder auf dem Weg könnte die Antworten des Schwarms fälschen. Bitte um den https://-Einladungslink oder erlaube unverschlüsseltes HTTP.</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>Die Modellkopie dieses PCs wird gespeichert und der Koordinator benachrichtigt</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>Der vorherige Schwarm wird verlassen</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>Schwarm wird verlassen</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>Training wird auf die gewählten Geräte verlegt</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama, %n Schicht × %1, %2 Parameter</numerusform>
            <numerusform>Llama, %n Schichten × %1, %2 Parameter</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>Treten Sie zuerst einem Schwarm bei: Das Modell gehört dem Schwarm.</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>Das Modell des Schwarms lässt sich nicht laden: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s), %1 a second</source>
        <translation>
            <numerusform>%n Token, %1 pro Sekunde</numerusform>
            <numerusform>%n Token, %1 pro Sekunde</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>swarmtrain::ControlCommands</name>
    <message>
        <source>swarm: %1</source>
        <translation>Schwarm: %1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>Modus: %1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>Runde %1, %2 von %3 Schritten</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>pausiert (%1) bis %2</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>pausiert (%1)</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>, GPU-Speicher freigegeben</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>%1 Runden beigetragen, %2 angenommen, %3 nicht angenommen</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 Token, %2 Rechenstunden, Punkte %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 Min., %L2 Token, Punkte %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for braucht eine Dauer von 1s bis 30d, etwa 90s, 15m, 2h oder 1d</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join braucht die URL oder den Einladungslink des Schwarms</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave nimmt keine URL</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DashboardPage</name>
    <message>
        <source>%1 GPU-hours</source>
        <translation>%1 GPU-Stunden</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 Tokens/s</translation>
    </message>
    <message>
        <source>Current work</source>
        <translation>Aktuelle Arbeit</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Runde</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Geschwindigkeit</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>Beitrag dieses PCs</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>Trainierte Tokens</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>Rechenzeit</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>Angenommene Runden</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Guthaben</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>Gesendete Daten</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>Empfangene Daten</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>Tokens pro Sekunde, letzte 5 Minuten</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>vor Minuten</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>Validierungsverlust des Schwarms</translation>
    </message>
    <message>
        <source>round</source>
        <translation>Runde</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU-Stunden</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Wird gestartet</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausieren</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Schritt %1 von %2</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>Keine Runde läuft</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1 (%2 abgelehnt)</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 Mrd.</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 Mio.</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>Innere Schritte</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>GPU-Stunden pro Tag, %1 – %2</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 Mikrobatches/s</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>Diese Stufe %1/s, die langsamste %2/s</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>Durchsatz der Stufe noch nicht gemessen</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>Schritt %1 in einem Budget von %2 s; letzte Runde %3 Schritte, %4 % ausgelastet</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>Schritt %1 in einem Budget von %2 s</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>Validierungsverlust des Schwarms, Bits pro Byte</translation>
    </message>
    <message>
        <source>bits per byte</source>
        <translation>Bits pro Byte</translation>
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
        <translation>Grafikprozessoren</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>Leistungstest</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>Misst, wie schnell dieser PC Matrizen multipliziert, Daten zur GPU und zurück kopiert und ein kleines Modell trainiert. Der Schwarm teilt diesem PC anhand der Werte einen passenden Teil der Arbeit zu. Das dauert etwa eine Minute.</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>&amp;Leistungstest starten</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>Messung</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Suche nach GPUs …</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>Keine GPU gefunden – SwarmTrain trainiert auf der CPU</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>Training auf dem Prozessor ist langsamer, aber jeder Beitrag zählt. Wenn dieser PC eine Grafikkarte hat, installieren Sie deren aktuellen Treiber, damit SwarmTrain sie findet.</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>SwarmTrain trainiert auf den als bereit markierten GPUs.</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>SwarmTrain hat diese GPUs gefunden.</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>Bereit zum Training</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>Nicht für Training verwendet</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Unbekannt</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>Hersteller</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%1 von %2 frei</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>Treiber</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>Compute Capability</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Auslastung</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>Andere Programme</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>%1 belegt</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Wird gestartet …</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>Der Leistungstest ist fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>Kann nicht auf „%1“ lauschen: keine IP-Adresse.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>keine der in den Einstellungen gewählten GPUs ist vorhanden und nutzbar</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>In keinem Schwarm</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Von Ihnen pausiert bis %1</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Von Ihnen pausiert</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Durch einen Fehler angehalten</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Trägt bei</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>Warten auf die nächste Runde</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Wird vorbereitet</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Invite</name>
    <message>
        <source>Paste a swarm&apos;s address or an invite link.</source>
        <translation>Fügen Sie die Adresse eines Schwarms oder einen Einladungslink ein.</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>Dieser Einladungslink ist beschädigt: Er enthält keine Schwarm-Adresse.</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>Dieser Einladungslink ist beschädigt: Sein Zertifikat-Fingerabdruck ist nicht sha256//…</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>„%1“ ist weder ein Einladungslink noch eine http(s)-Adresse.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>eine Anfrage ist ein JSON-Objekt auf einer Zeile, höchstens %1 Bytes</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>eine Pause dauert von 1 Sekunde bis %1 Tage</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join braucht die URL oder den Einladungslink des Schwarms</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats umfasst 1 bis %1 Tage</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log zeigt 0 bis %1 Zeilen</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>unbekannter Befehl „%1“</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>Debug</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>Schwerwiegend</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>Stufe</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>&amp;Kategorie:</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>Alle Kategorien</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>&amp;Stufe:</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>Alle Meldungen</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>Info und höher</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>Warnungen und Fehler</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>Meldungen durchsuchen …</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>K&amp;opieren</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>Meldungen: %1</translation>
    </message>
    <message>
        <source>Showing %1 of %2</source>
        <translation>%1 von %2 angezeigt</translation>
    </message>
</context>
<context>
    <name>swarmtrain::MainWindow</name>
    <message>
        <source>SwarmTrain keeps running</source>
        <translation>SwarmTrain läuft weiter</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>SwarmTrain leistet im Hintergrund weiter seinen Beitrag und tritt zurück, sobald Sie den Computer benutzen. Über das Symbol im Infobereich können Sie es wieder öffnen, pausieren oder beenden.</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Schwarm</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ModelPage</name>
    <message>
        <source>The swarm&apos;s model</source>
        <translation>Das Modell des Schwarms</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>Ausprobieren</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>Geben Sie den Anfang eines Textes ein; das Modell schreibt weiter</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>Schreiben</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>Das Training pausiert für die paar Sekunden, in denen das Modell schreibt, und läuft dann weiter.</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>Der Schwarm antwortet gerade nicht.</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>In keinem Schwarm: Treten Sie auf der Seite Schwarm einem bei.</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1, Runde %2</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>%1 Bit pro Byte</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>Validierungsverlust %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>Der Gastgeber des Schwarms veröffentlicht keine Exporte (--export-every des Koordinators).</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>Runde %1: %2 (GGUF für llama.cpp, Ollama und LM Studio; der Hugging-Face-Ordner für transformers)</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>Das Modell des Schwarms wird geladen…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>Es wird geschrieben; das Training pausiert bis dahin.</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>Fertig: %1. Das Training läuft weiter.</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>Schreiben nicht möglich: %1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>%1 Token trainiert</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>Pausiert: %1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>Warte darauf, dass der Koordinator diesen PC in der Pipeline einteilt</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>Baue Pipeline-Stufe %1 von %2 auf</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>Übernehme den Zustand von Pipeline-Stufe %1 von einem Nachbarn</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>Training: Pipeline-Stufe 1 von %1, Schritt %2</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>Mittle die Gradienten von Pipeline-Stufe %1</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>Warte, bis jede Pipeline-Stufe einen Peer hat</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>Bediene Pipeline-Stufe %1 von %2, Schritt %3</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>Wann gerechnet wird</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>Starten nach &amp;Leerlauf von:</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>Immer (0 min)</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>SwarmTrain rechnet nur, wenn Tastatur und Maus so lange nicht benutzt wurden, und pausiert, sobald Sie zurückkommen. 0 = immer, auch während Sie arbeiten.</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>Pausieren, solange der Computer im &amp;Akkubetrieb läuft</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>Nur rechnen &amp;zwischen</translation>
    </message>
    <message>
        <source>and</source>
        <translation>und</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>Spiele und andere Programme</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>Solange eines dieser Programme läuft, hält SwarmTrain an und gibt den GPU-Speicher frei, damit das Programm die ganze GPU bekommt.</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>Programmname, z. B. game.exe</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Hinzufügen</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>GPU-Grenzen</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>Maximale GPU-A&amp;uslastung:</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>Maximaler GPU-&amp;Speicher:</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>Pause at GPU &amp;temperature:</source>
        <translation>Pausieren bei GPU-&amp;Temperatur:</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>Eine geringere Auslastung hält die GPU kühler und leiser; das Training dauert dann länger. Das Training wird fortgesetzt, sobald die GPU 5 °C unter die Grenze abgekühlt ist.</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>Anwendung</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>SwarmTrain beim A&amp;nmelden starten</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>S&amp;prache:</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>Speicherplatz&amp;grenze:</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>Für heruntergeladene Trainingsdaten, Checkpoints und die Kopie des Modells auf diesem PC.</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>Anzeige&amp;name:</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>Keiner: Die Bestenliste zeigt die Schlüssel-ID dieses PCs</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>Wird ab dem nächsten Beitritt zu einem Schwarm neben dem Guthaben dieses PCs in der Bestenliste des Schwarms angezeigt. Jeder kann ihn lesen, und andere PCs dürfen denselben Namen verwenden.</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>Der Name ist länger als %1 Zeichen.</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>Der Name darf keine Zeilenumbrüche oder Steuerzeichen enthalten.</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>Der Name darf keine Zeichen enthalten, die die Schreibrichtung ändern.</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>Der Name darf keine unsichtbaren Zeichen (Nullbreite) enthalten.</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>Der Name darf nicht nur aus Leerzeichen bestehen.</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>Trainieren &amp;mit:</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>Automatisch: die beste gefundene GPU, sonst der Prozessor</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>Nur die unten angehakten GPUs</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>Keine: nur auf dem Prozessor trainieren</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>Jede angehakte GPU trainiert eine eigene Kopie des Modells. Eine Änderung startet das Training neu.</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1, %2 GiB</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>Keine GPU gefunden: der Prozessor trainiert.</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Suche nach GPUs…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>Keine der gefundenen GPUs kann mit diesem Build trainieren.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>Der Einladungslink ist in der Zwischenablage.</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>Aktueller Schwarm</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Schwarm</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>Peers online</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Runde</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>Rolle dieses PCs</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>Zertifikat</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>Schwarm verlassen</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>Einem Schwarm beitreten</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>Fügen Sie die Adresse des Schwarms (https://…) oder einen Einladungslink ein, den Ihnen jemand geschickt hat (swarmtrain://join?…). Eine Einladung legt zudem das Zertifikat des Schwarms fest, sodass sich niemand dazwischen als der Schwarm ausgeben kann.</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>Beitreten</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>Zertifikat-Pin</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>Einen Schwarm auf diesem PC hosten</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>Startet einen Koordinator auf diesem PC, damit Freunde in Ihrem Netzwerk gemeinsam ein Modell trainieren können. Wählen Sie eine Textdatei als Trainingsdaten; dieser PC tritt dem Schwarm ebenfalls bei.</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>Trainingstext</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>Eine reine Textdatei (.txt)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen …</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>Modellgröße</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>Winzig</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>Klein</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Mittel</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1: %2 Schichten × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>Hosten starten</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>Hosten beenden</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>Einladungslink für Freunde</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>Erscheint, sobald der Schwarm läuft</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>In keinem Schwarm</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>Vollständige Modellkopie</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>Nicht festgelegt</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>Festgelegt: %1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>Der Koordinator des Schwarms ist nicht erreichbar: %1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>Trete dem Schwarm unter %1 bei …</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>Wählen Sie eine Textdatei zum Trainieren.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>„%1“ ist keine Datei.</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>Der Schwarm konnte nicht starten: %1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>Ihr Schwarm läuft, und dieser PC trainiert mit. Schicken Sie Freunden den Einladungslink.</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>Schwarm wird gestartet …</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>Textdatei zum Trainieren wählen</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>Textdateien (*.txt);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… oder swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>Keiner (einfache Adresse)</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>Unverschlüsseltes http:// zu anderen Computern erlauben (unsicher: ihre Antworten könnten gefälscht sein)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>Pipeline-Stufen</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Pipeline-Stufe: noch nicht zugeteilt</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Pipeline-Stufe %1 von %2</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>Stufe %1: %n Peer</numerusform>
            <numerusform>Stufe %1: %n Peers</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>, %1 Mikrobatches/s</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation> (die langsamste)</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>Bestenliste</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Guthaben</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>%1 (This PC)</source>
        <translation>%1 (dieser PC)</translation>
    </message>
    <message>
        <source>Join a swarm to see who contributes most.</source>
        <translation>Treten Sie einem Schwarm bei, um zu sehen, wer am meisten beiträgt.</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>Noch niemand steht in der Bestenliste dieses Schwarms.</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>Dieser PC steht noch nicht in der Bestenliste.</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>Die Zeile dieses PCs ist fett gedruckt.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>Schwarm wird verlassen</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>Schwarm verlassen</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Wird gestartet</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>Der Koordinator des Schwarms ist nicht erreichbar; neuer Versuch in %1 s</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>Trete dem Schwarm unter %1 bei</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>Dem Schwarm unter %1 beigetreten</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>Lade Datenteil %1 von %2 herunter</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>Lade das Modell des Schwarms herunter</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>Stand des Schwarms aus Runde %1 heruntergeladen</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>Trainiere Runde %1</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>Fortgesetzt</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>Warte auf den Start von Runde %1</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>Mittle Runde %1 mit dem Schwarm</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>Prüfe die Arbeit eines anderen Teilnehmers in Runde %1</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>Zu langsam für die Runden dieses Schwarms: prüft stattdessen die Arbeit anderer Teilnehmer</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>Beitrag mit %1 % der GPU-Zeit</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Trägt bei</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Von Ihnen pausiert</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>Pausiert: Sie benutzen den Computer</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>Pausiert: Akkubetrieb</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>Pausiert: Ein Spiel läuft</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>Pausiert: Ein anderes Programm nutzt die GPU</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>Pausiert: Die GPU ist zu heiß</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>Pausiert: außerhalb der gewählten Zeiten</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>Pausiert: Die Dateien von SwarmTrain überschreiten Ihre Speicherplatzgrenze</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>Pausiert: Das Modell schreibt den Text, um den Sie gebeten haben</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>Übersicht öffnen</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausieren</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>1 Stunde pausieren</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>SwarmTrain beenden</translation>
    </message>
    <message>
        <source>SwarmTrain — %1</source>
        <translation>SwarmTrain – %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::WorkStatus</name>
    <message>
        <source>Full model</source>
        <translation>Vollständiges Modell</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Pipeline-Stufe: noch nicht zugeteilt</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Pipeline-Stufe %1 von %2</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1, auf %2 GPUs</translation>
    </message>
</context>
</TS>
