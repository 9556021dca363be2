<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr">
<context>
    <name>swarmtrain::ClientSession</name>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 Go/s</translation>
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
        <translation>Dans aucun essaim</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>Rejoignez un essaim depuis la page Essaim, ou hébergez-en un sur ce PC.</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>Arrêté : %1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Mis en pause par vous jusqu&apos;à %1</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>En attente du prochain tour</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Préparation</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>Reprise</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Arrêté</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Arrêté par une erreur</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>Produits matriciels</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>Bande passante de copie</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>Entraînement, résident en mémoire GPU</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>Entraînement, avec échange mémoire</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Terminé</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Appareil</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>Produit matriciel, %1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>Hôte vers appareil</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>Appareil vers hôte</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 couches × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>Entraînement %1, résident en mémoire GPU</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 jetons/s</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>Entraînement %1, avec échange mémoire</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>Avec échange par rapport au résident</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>%1 trouvé, mais cette version de SwarmTrain ne s&apos;entraîne que sur des GPU NVIDIA</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>%1 trouvé, mais cette version de SwarmTrain ne prend pas en charge CUDA</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>%1 trouvé, mais CUDA ne le voit pas (CUDA_VISIBLE_DEVICES est-elle définie ?)</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 millions</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT, %n couche × %1, %2 de paramètres</numerusform>
            <numerusform>GPT, %n couches × %1, %2 de paramètres</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 est du http:// non chiffré vers un autre ordinateur : n’importe qui sur le chemin pourrait falsifier les réponses de l’essaim. Demandez son lien d’invitation https:// ou autorisez le HTTP non chiffré.</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>Enregistrement de la copie du modèle de ce PC et information du coordinateur</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>Départ de l&apos;essaim précédent</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>Départ de l&apos;essaim</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>Déplacement de l’entraînement vers les appareils choisis</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama, %n couche × %1, %2 de paramètres</numerusform>
            <numerusform>Llama, %n couches × %1, %2 de paramètres</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>Rejoignez d&apos;abord un essaim : le modèle est celui de l&apos;essaim.</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>Impossible de récupérer le modèle de l&apos;essaim : %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s), %1 a second</source>
        <translation>
            <numerusform>%n jeton, %1 par seconde</numerusform>
            <numerusform>%n jetons, %1 par seconde</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>swarmtrain::ControlCommands</name>
    <message>
        <source>swarm: %1</source>
        <translation>essaim : %1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>mode : %1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>tour %1, %2 étapes sur %3</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>en pause (%1) jusqu&apos;à %2</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>en pause (%1)</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>, mémoire du GPU libérée</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>%1 tours contribués, %2 acceptés, %3 non acceptés</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 jetons, %2 heures de calcul, crédit %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 min, %L2 jetons, crédit %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for attend une durée de 1s à 30d, comme 90s, 15m, 2h ou 1d</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join attend l&apos;URL ou le lien d&apos;invitation de l&apos;essaim</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave ne prend pas d&apos;URL</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DashboardPage</name>
    <message>
        <source>%1 GPU-hours</source>
        <translation>%1 heures GPU</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 jetons/s</translation>
    </message>
    <message>
        <source>Current work</source>
        <translation>Travail en cours</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Mode</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Tour</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Vitesse</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>Contribution de ce PC</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>Jetons entraînés</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>Temps de calcul</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>Tours acceptés</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Crédit</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>Données envoyées</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>Données reçues</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>Jetons par seconde, 5 dernières minutes</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>il y a (minutes)</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>Perte de validation de l&apos;essaim</translation>
    </message>
    <message>
        <source>round</source>
        <translation>tour</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>Heures GPU</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Démarrage</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reprendre</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Pas %1 sur %2</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>Aucun tour en cours</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1 (%2 refusés)</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>perte</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 milliards</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 millions</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>Pas internes</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>Heures GPU par jour, %1 – %2</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 micro-lots/s</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>Cet étage %1/s, le plus lent %2/s</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>Débit de l’étage pas encore mesuré</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>Pas %1 dans un budget de %2 s ; dernier tour %3 pas, utilisé à %4 %</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>Pas %1 dans un budget de %2 s</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>Perte de validation de l&apos;essaim, bits par octet</translation>
    </message>
    <message>
        <source>bits per byte</source>
        <translation>bits par octet</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DevicePage</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 Gio</translation>
    </message>
    <message>
        <source>Graphics processors</source>
        <translation>Processeurs graphiques</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Actualiser</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>Test de performance</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>Mesure la vitesse à laquelle ce PC multiplie des matrices, copie des données vers et depuis le GPU et entraîne un petit modèle. L&apos;essaim s&apos;appuie sur ces valeurs pour confier à ce PC une part de travail adaptée. Cela prend environ une minute.</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>Lancer le &amp;test</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>Mesure</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Résultat</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Recherche des GPU…</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>Aucun GPU trouvé — SwarmTrain s&apos;entraîne sur le CPU</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>L&apos;entraînement sur le processeur est plus lent, mais chaque contribution compte. Si ce PC possède une carte graphique, installez son pilote à jour pour que SwarmTrain la trouve.</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>SwarmTrain s&apos;entraîne sur les GPU marqués comme prêts.</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>SwarmTrain a trouvé ces GPU.</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>Prêt pour l&apos;entraînement</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>Non utilisé pour l&apos;entraînement</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Inconnu</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>Fabricant</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Mémoire</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%1 libres sur %2</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>Pilote</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Température</translation>
    </message>
    <message>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>Capacité de calcul</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>Utilisation</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>Autres programmes</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>%1 utilisés</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Démarrage…</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>Le test de performance a échoué : %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>Impossible d&apos;écouter sur « %1 » : ce n&apos;est pas une adresse IP.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>aucun des GPU choisis dans les paramètres n’est présent et utilisable</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>Dans aucun essaim</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>Mis en pause par vous jusqu&apos;à %1</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Mis en pause par vous</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>Arrêté par une erreur</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribution en cours</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>En attente du prochain tour</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>Préparation</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Invite</name>
    <message>
        <source>Paste a swarm&apos;s address or an invite link.</source>
        <translation>Collez l&apos;adresse d&apos;un essaim ou un lien d&apos;invitation.</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>Ce lien d&apos;invitation est endommagé : il n&apos;indique aucune adresse d&apos;essaim.</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>Ce lien d&apos;invitation est endommagé : son empreinte de certificat n&apos;est pas sha256//…</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>« %1 » n&apos;est ni un lien d&apos;invitation ni une adresse http(s).</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>une requête est un objet JSON sur une ligne, d&apos;au plus %1 octets</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>une pause dure de 1 seconde à %1 jours</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join attend l&apos;URL ou le lien d&apos;invitation de l&apos;essaim</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats couvre de 1 à %1 jours</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log affiche de 0 à %1 lignes</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>commande inconnue « %1 »</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>Débogage</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>Avertissement</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Erreur</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>Fatal</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Heure</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>Niveau</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Catégorie</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Message</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>&amp;Catégorie :</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>Toutes les catégories</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>&amp;Niveau :</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>Tous les messages</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>Info et plus</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>Avertissements et erreurs</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>Rechercher dans les messages…</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>Co&amp;pier</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>Messages : %1</translation>
    </message>
    <message>
        <source>Showing %1 of %2</source>
        <translation>%1 affichés sur %2</translation>
    </message>
</context>
<context>
    <name>swarmtrain::MainWindow</name>
    <message>
        <source>SwarmTrain keeps running</source>
        <translation>SwarmTrain continue de tourner</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>SwarmTrain continue de contribuer en arrière-plan et s&apos;efface dès que vous utilisez l&apos;ordinateur. Rouvrez-le, mettez-le en pause ou quittez-le depuis son icône dans la zone de notification.</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>Tableau de bord</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Appareil</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Essaim</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Paramètres</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Journal</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ModelPage</name>
    <message>
        <source>The swarm&apos;s model</source>
        <translation>Le modèle de l&apos;essaim</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>Le télécharger</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>L&apos;essayer</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>Tapez le début d&apos;un texte ; le modèle le poursuit</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>Écrire</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>L&apos;entraînement se met en pause les quelques secondes où le modèle écrit, puis reprend.</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>L&apos;essaim ne répond pas pour le moment.</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>Pas dans un essaim : rejoignez-en un sur la page Essaim.</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1, tour %2</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>%1 bits par octet</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>perte de validation %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>L&apos;hôte de l&apos;essaim ne publie aucun export (--export-every du coordinateur).</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>Tour %1 : %2 (GGUF pour llama.cpp, Ollama et LM Studio ; le dossier Hugging Face pour transformers)</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>Récupération du modèle de l&apos;essaim…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>Écriture en cours ; l&apos;entraînement est en pause jusqu&apos;à la fin.</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>Terminé : %1. L&apos;entraînement reprend.</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>Impossible d&apos;écrire : %1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>%1 jetons entraînés</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>En pause : %1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>En attente que le coordinateur place ce PC dans le pipeline</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>Construction de l’étage %1 sur %2 du pipeline</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>Récupération de l’état de l’étage %1 du pipeline auprès d’un voisin</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>Entraînement : étage 1 sur %1 du pipeline, pas %2</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>Moyenne des gradients de l’étage %1 du pipeline</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>En attente d’un pair pour chaque étage du pipeline</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>Service de l’étage %1 sur %2 du pipeline, pas %3</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>Quand calculer</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>Démarrer après &amp;inactivité de :</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>Toujours (0 min)</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>SwarmTrain ne calcule que si personne n&apos;a utilisé le clavier ni la souris depuis ce délai, et se met en pause dès votre retour. 0 = toujours, même pendant que vous travaillez.</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>Mettre en pause quand l&apos;ordinateur est sur &amp;batterie</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>Calculer uniquement &amp;entre</translation>
    </message>
    <message>
        <source>and</source>
        <translation>et</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>Jeux et autres programmes</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>Tant que l&apos;un de ces programmes tourne, SwarmTrain s&apos;arrête et libère la mémoire du GPU, afin que le programme dispose de tout le GPU.</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>Nom du programme, p. ex. game.exe</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Ajouter</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Retirer</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>Limites du GPU</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>&amp;Utilisation maximale du GPU :</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>&amp;Mémoire GPU maximale :</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> Mio</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatique</translation>
    </message>
    <message>
        <source>Pause at GPU &amp;temperature:</source>
        <translation>Pause à une &amp;température GPU de :</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>Une utilisation plus faible garde le GPU plus frais et plus silencieux ; l&apos;entraînement prend alors plus de temps. Il reprend lorsque le GPU est redescendu 5 °C sous la limite.</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>Application</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>&amp;Démarrer SwarmTrain à l&apos;ouverture de session</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Langue :</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Langue du système</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>Limite d&apos;espa&amp;ce disque :</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>Pour les données d&apos;entraînement téléchargées, les points de contrôle et la copie du modèle sur ce PC.</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>&amp;Nom affiché :</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>Aucun : le classement affiche l&apos;identifiant de clé de ce PC</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>Affiché à côté du crédit de ce PC dans le classement de l&apos;essaim, à partir de la prochaine fois qu&apos;il rejoint un essaim. Tout le monde peut le lire, et d&apos;autres PC peuvent porter le même nom.</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>Le nom dépasse %1 caractères.</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>Le nom ne peut pas contenir de sauts de ligne ni de caractères de contrôle.</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>Le nom ne peut pas contenir de caractères qui changent le sens du texte.</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>Le nom ne peut pas contenir de caractères invisibles (de largeur nulle).</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>Le nom ne peut pas être composé uniquement d&apos;espaces.</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>Entraîner &amp;avec :</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>Automatique : le meilleur GPU trouvé, sinon le processeur</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>Seulement les GPU cochés ci-dessous</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>Aucun : entraîner sur le processeur seulement</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>Chaque GPU coché entraîne sa propre copie du modèle. Modifier ce choix redémarre l’entraînement.</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1, %2 Gio</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>Aucun GPU trouvé : le processeur entraîne.</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>Recherche des GPU…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>Aucun des GPU trouvés ne peut entraîner avec cette version.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>Le lien d&apos;invitation est dans le presse-papiers.</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>Essaim actuel</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>Essaim</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>Pairs en ligne</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>Tour</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>Rôle de ce PC</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>Certificat</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>Quitter l&apos;essaim</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>Rejoindre un essaim</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>Collez l&apos;adresse de l&apos;essaim (https://…) ou un lien d&apos;invitation envoyé par un ami (swarmtrain://join?…). Une invitation épingle aussi le certificat de l&apos;essaim, pour que personne entre les deux ne puisse se faire passer pour lui.</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>Rejoindre</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>Épinglage du certificat</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>Héberger un essaim sur ce PC</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>Lance un coordinateur sur ce PC, pour que des amis sur votre réseau puissent entraîner un modèle ensemble. Choisissez un fichier texte comme données d&apos;entraînement ; ce PC rejoint aussi l&apos;essaim.</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>Texte d&apos;entraînement</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>Un fichier texte brut (.txt)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Parcourir…</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>Taille du modèle</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>Minuscule</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>Petit</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Moyen</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1 : %2 couches × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>Démarrer l&apos;hébergement</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>Arrêter l&apos;hébergement</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>Lien d&apos;invitation pour vos amis</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>Apparaît quand l&apos;essaim est lancé</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Copier</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>Dans aucun essaim</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>Réplique complète du modèle</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>Non épinglé</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>Épinglé : %1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>Impossible de joindre le coordinateur de l&apos;essaim : %1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>Connexion à l&apos;essaim sur %1…</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>Choisissez un fichier texte pour l&apos;entraînement.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>« %1 » n&apos;est pas un fichier.</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>L&apos;essaim n&apos;a pas pu démarrer : %1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>Votre essaim est lancé et ce PC s&apos;y entraîne. Envoyez le lien d&apos;invitation à vos amis.</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>Démarrage de l&apos;essaim…</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>Choisir un fichier texte pour l&apos;entraînement</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>Fichiers texte (*.txt);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… ou swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>Aucun (adresse simple)</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>Autoriser le http:// non chiffré vers d’autres ordinateurs (risqué : leurs réponses pourraient être falsifiées)</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>Étages du pipeline</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Étage du pipeline : pas encore attribué</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Étage %1 sur %2 du pipeline</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>Étage %1 : %n pair</numerusform>
            <numerusform>Étage %1 : %n pairs</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>, %1 micro-lots/s</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation> (le plus lent)</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>Classement</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nom</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>Crédit</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Jetons</translation>
    </message>
    <message>
        <source>%1 (This PC)</source>
        <translation>%1 (ce PC)</translation>
    </message>
    <message>
        <source>Join a swarm to see who contributes most.</source>
        <translation>Rejoignez un essaim pour voir qui contribue le plus.</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>Personne ne figure encore au classement de cet essaim.</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>Ce PC ne figure pas encore au classement.</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>La ligne de ce PC est en gras.</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>Départ de l&apos;essaim</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>Essaim quitté</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Arrêté</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Démarrage</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>Impossible de joindre le coordinateur de l&apos;essaim ; nouvel essai dans %1 s</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>Connexion à l&apos;essaim sur %1</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>Essaim rejoint sur %1</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>Téléchargement du fragment de données %1 sur %2</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>Téléchargement du modèle de l&apos;essaim</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>État de l&apos;essaim du tour %1 téléchargé</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>Entraînement du tour %1</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>Repris</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>En attente du début du tour %1</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>Moyennage du tour %1 avec l&apos;essaim</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>Vérification du travail d’un autre pair à la manche %1</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>Trop lent pour les tours de cet essaim : vérifie plutôt le travail des autres pairs</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>Contribution à %1 % du temps GPU</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>Contribution en cours</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>Mis en pause par vous</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>En pause : vous utilisez l&apos;ordinateur</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>En pause : sur batterie</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>En pause : un jeu est lancé</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>En pause : un autre programme utilise le GPU</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>En pause : le GPU est trop chaud</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>En pause : en dehors des heures choisies</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>En pause : les fichiers de SwarmTrain dépassent votre limite d&apos;espace disque</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>En pause : le modèle écrit le texte que vous avez demandé</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>Ouvrir le tableau de bord</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>Pause pendant 1 heure</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reprendre</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>Quitter SwarmTrain</translation>
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
        <translation>Modèle complet</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>Étage du pipeline : pas encore attribué</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>Étage %1 sur %2 du pipeline</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1, sur %2 GPU</translation>
    </message>
</context>
</TS>
