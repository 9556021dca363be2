<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja">
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
        <translation>スウォームに未参加</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>「スウォーム」ページでスウォームに参加するか、この PC でホストしてください。</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>停止しました: %1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>%1 まで一時停止中（手動）</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>次のラウンドを待っています</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>準備中</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>再開しています</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>エラーにより停止</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>行列積</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>コピー帯域幅</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>学習（VRAM 常駐）</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>学習（スワップあり）</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>行列積、%1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>ホスト → デバイス</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>デバイス → ホスト</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 層 × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>学習 %1（VRAM 常駐）</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 トークン/秒</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>学習 %1（スワップあり）</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>スワップありと常駐の比較</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>%1 が見つかりましたが、このビルドの SwarmTrain は NVIDIA GPU でのみ学習します</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>%1 が見つかりましたが、このビルドの SwarmTrain は CUDA に対応していません</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>%1 が見つかりましたが、CUDA から認識されません（CUDA_VISIBLE_DEVICES が設定されていませんか?）</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 百万</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT、%n 層 × %1、パラメーター %2</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 は別のコンピューターへの暗号化されていない http:// です。経路上の誰でもスウォームの応答を偽造できます。https:// の招待リンクを依頼するか、暗号化されていない HTTP を許可してください。</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>このPCのモデルのコピーを保存し、コーディネーターに知らせています</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>以前のスウォームから離脱しています</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>スウォームから離脱しています</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>選んだデバイスに学習を移しています</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama、%n 層 × %1、パラメーター %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>まずスウォームに参加してください。モデルはスウォームのものです。</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>スウォームのモデルを取得できません: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s), %1 a second</source>
        <translation>
            <numerusform>%n トークン、毎秒 %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>swarmtrain::ControlCommands</name>
    <message>
        <source>swarm: %1</source>
        <translation>スウォーム: %1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>モード: %1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>ラウンド %1、%3 ステップ中 %2</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>%2 まで一時停止中 (%1)</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>一時停止中 (%1)</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>、GPUメモリを解放済み</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>%1 ラウンドに貢献、%2 件承認、%3 件不承認</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 トークン、計算時間 %2 時間、クレジット %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 分、%L2 トークン、クレジット %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for には 1s から 30d までの時間を指定してください (例: 90s、15m、2h、1d)</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join にはスウォームのURLまたは招待リンクが必要です</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave にURLは指定できません</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DashboardPage</name>
    <message>
        <source>%1 GPU-hours</source>
        <translation>%1 GPU 時間</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 トークン/秒</translation>
    </message>
    <message>
        <source>Current work</source>
        <translation>現在の作業</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>モード</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>ラウンド</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>この PC の貢献</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>学習済みトークン</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>計算時間</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>承認されたラウンド</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>クレジット</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>送信データ</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>受信データ</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>毎秒トークン数（直近 5 分間）</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>分前</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>スウォームの検証損失</translation>
    </message>
    <message>
        <source>round</source>
        <translation>ラウンド</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU 時間</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>起動中</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>再開</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>ステップ %1 / %2</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>進行中のラウンドはありません</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1（%2 件却下）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>損失</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 十億</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 百万</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>内部ステップ</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>1 日あたりの GPU 時間（%1 ～ %2）</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 マイクロバッチ/秒</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>この段 %1/秒、最も遅い段 %2/秒</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>段のスループットはまだ測定されていません</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>%2 秒の予算でステップ %1、前回のラウンドは %3 ステップ、利用率 %4%</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>%2 秒の予算でステップ %1</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>スウォームの検証損失、1 バイトあたりのビット数</translation>
    </message>
    <message>
        <source>bits per byte</source>
        <translation>1 バイトあたりのビット数</translation>
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
        <translation>グラフィックス プロセッサー</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>更新(&amp;R)</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>ベンチマーク</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>この PC の行列積の速度、GPU とのデータ転送の速度、小さなモデルの学習速度を測定します。スウォームはこの結果をもとに、この PC に適した量の作業を割り当てます。所要時間は約 1 分です。</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>ベンチマークを実行(&amp;B)</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>測定項目</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>結果</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>GPU を探しています…</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>GPU が見つかりません — SwarmTrain は CPU で学習します</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>プロセッサーでの学習は遅くなりますが、どんな貢献も役に立ちます。この PC にグラフィックス カードがある場合は、最新のドライバーをインストールすると SwarmTrain が認識できるようになります。</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>SwarmTrain は「準備完了」の GPU で学習します。</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>SwarmTrain が次の GPU を見つけました。</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>学習の準備完了</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>学習には使用しません</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>ベンダー</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%2 中 %1 空き</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>ドライバー</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
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
        <translation>使用率</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>他のプログラム</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>%1 使用中</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>開始しています…</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>ベンチマークに失敗しました: %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>「%1」で待ち受けできません: IP アドレスではありません。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>設定で選んだ GPU はどれも見つからないか使用できません</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>スウォームに未参加</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>%1 まで一時停止中（手動）</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>手動で一時停止中</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>エラーにより停止</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>貢献中</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>次のラウンドを待っています</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>準備中</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Invite</name>
    <message>
        <source>Paste a swarm&apos;s address or an invite link.</source>
        <translation>スウォームのアドレスまたは招待リンクを貼り付けてください。</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>この招待リンクは壊れています: スウォームのアドレスが含まれていません。</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>この招待リンクは壊れています: 証明書のフィンガープリントが sha256//… 形式ではありません</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>「%1」は招待リンクでも http(s) アドレスでもありません。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>リクエストは1行の JSON オブジェクトで、最大 %1 バイトです</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>一時停止は1秒から%1日までです</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join にはスウォームのURLまたは招待リンクが必要です</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats の期間は1日から%1日までです</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log は0行から%1行まで表示します</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>不明なコマンド「%1」</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>デバッグ</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>情報</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>エラー</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>致命的</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>時刻</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>レベル</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>カテゴリ</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>メッセージ</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>カテゴリ(&amp;C):</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>すべてのカテゴリ</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>レベル(&amp;L):</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>すべてのメッセージ</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>情報以上</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>警告とエラー</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>メッセージを検索…</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>コピー(&amp;C)</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>メッセージ: %1</translation>
    </message>
    <message>
        <source>Showing %1 of %2</source>
        <translation>%2 件中 %1 件を表示</translation>
    </message>
</context>
<context>
    <name>swarmtrain::MainWindow</name>
    <message>
        <source>SwarmTrain keeps running</source>
        <translation>SwarmTrain は実行を続けています</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>SwarmTrain はバックグラウンドで貢献を続け、コンピューターを使い始めるとすぐに処理を譲ります。システム トレイのアイコンから、再び開く・一時停止する・終了することができます。</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>ダッシュボード</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>スウォーム</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>ログ</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ModelPage</name>
    <message>
        <source>The swarm&apos;s model</source>
        <translation>スウォームのモデル</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>ダウンロード</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>試す</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>文章の書き出しを入力すると、モデルが続きを書きます</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>書く</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>モデルが書く数秒間だけ学習は一時停止し、その後再開します。</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>スウォームが現在応答していません。</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>スウォームに参加していません。スウォームページで参加してください。</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1、ラウンド %2</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>1 バイトあたり %1 ビット</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>検証損失 %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>スウォームのホストはエクスポートを公開していません（コーディネーターの --export-every）。</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>ラウンド %1: %2（llama.cpp、Ollama、LM Studio 用の GGUF、transformers 用の Hugging Face フォルダー）</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>スウォームのモデルを取得しています…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>書いています。終わるまで学習は一時停止しています。</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>完了: %1。学習を再開します。</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>書けませんでした: %1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>学習済みトークン %1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>一時停止中: %1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>コーディネーターがこの PC をパイプラインに配置するのを待っています</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>パイプライン段 %1 / %2 を構築しています</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>パイプライン段 %1 の状態を隣のピアから取得しています</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>学習中: パイプライン段 1 / %1、ステップ %2</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>パイプライン段 %1 の勾配を平均しています</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>すべてのパイプライン段にピアがそろうのを待っています</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>パイプライン段 %1 / %2 を担当中、ステップ %3</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>計算するタイミング</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>アイドル状態が続いたら開始(&amp;I):</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>常に（0 分）</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>キーボードとマウスがこの時間使われていないときだけ SwarmTrain は計算し、操作を再開するとすぐに一時停止します。0 = 常に計算（作業中も含む）。</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>バッテリー駆動中は一時停止(&amp;B)</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>次の時間帯のみ計算(&amp;T)</translation>
    </message>
    <message>
        <source>and</source>
        <translation>～</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>ゲームと他のプログラム</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>これらのプログラムのいずれかが実行中の間、SwarmTrain は停止して GPU のメモリを解放し、そのプログラムが GPU 全体を使えるようにします。</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>プログラム名（例: game.exe）</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>追加(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>削除(&amp;R)</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>GPU の制限</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>GPU の最大使用率(&amp;U):</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>GPU の最大メモリ(&amp;M):</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自動</translation>
    </message>
    <message>
        <source>Pause at GPU &amp;temperature:</source>
        <translation>GPU 温度がこの値で一時停止(&amp;T):</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>使用率を下げると GPU の温度と騒音は下がりますが、学習には時間がかかります。GPU が上限より 5 °C 下がると学習を再開します。</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>アプリケーション</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>ログイン時に SwarmTrain を起動(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>言語(&amp;L):</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>システムの既定</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>ディスク容量の上限(&amp;D):</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>ダウンロードした学習データ、チェックポイント、この PC 上のモデルのコピーに使われます。</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>表示名(&amp;N):</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>なし: ランキングにはこの PC のキー ID が表示されます</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>次にスウォームに参加したときから、スウォームのランキングでこの PC のクレジットの横に表示されます。誰でも読むことができ、他の PC が同じ名前を使うこともあります。</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>名前が %1 文字を超えています。</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>名前に改行や制御文字は使えません。</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>名前に文字の向きを変える文字は使えません。</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>名前に見えない文字（ゼロ幅文字）は使えません。</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>名前を空白だけにすることはできません。</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>学習に使うもの(&amp;W):</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>自動: 見つかった最良の GPU、なければプロセッサ</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>下でチェックした GPU のみ</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>なし: プロセッサだけで学習</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>チェックした GPU はそれぞれモデルのコピーを 1 つずつ学習します。変更すると学習をやり直します。</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1、%2 GiB</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>GPU が見つかりません: プロセッサで学習します。</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>GPU を探しています…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>見つかった GPU はどれもこのビルドでは学習できません。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>招待リンクをクリップボードにコピーしました。</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>現在のスウォーム</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>スウォーム</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>オンラインのピア</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>ラウンド</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>この PC の役割</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>証明書</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>スウォームから退出</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>スウォームに参加</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>スウォームのアドレス（https://…）または友人から届いた招待リンク（swarmtrain://join?…）を貼り付けてください。招待リンクはスウォームの証明書も固定するため、途中の第三者がスウォームになりすますことはできません。</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>参加</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>証明書のピン留め</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>この PC でスウォームをホスト</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>この PC でコーディネーターを動かし、同じネットワークの友人と一緒にモデルを学習できるようにします。学習データとしてテキスト ファイルを選んでください。この PC もスウォームに参加します。</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>学習用テキスト</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>プレーン テキスト ファイル（.txt）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>参照…</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>ポート</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>モデルのサイズ</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>極小</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>小</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1: %2 層 × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>ホストを開始</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>ホストを停止</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>友人用の招待リンク</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>スウォームの実行中に表示されます</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>コピー</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>スウォームに未参加</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>モデル全体のレプリカ</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>ピン留めなし</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>ピン留め: %1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>スウォームのコーディネーターに接続できません: %1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>%1 のスウォームに参加しています…</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>学習に使うテキスト ファイルを選んでください。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>「%1」はファイルではありません。</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>スウォームを開始できませんでした: %1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>スウォームが実行中で、この PC も学習に参加しています。友人に招待リンクを送りましょう。</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>スウォームを開始しています…</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>学習に使うテキスト ファイルを選択</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>テキスト ファイル (*.txt);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… または swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>なし（通常のアドレス）</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>別のコンピューターへの暗号化されていない http:// を許可する（危険: 応答が偽造される可能性があります）</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>パイプライン段</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>パイプライン段: まだ割り当てられていません</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>パイプライン段 %1 / %2</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>段 %1: ピア %n 台</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>、%1 マイクロバッチ/秒</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation>（最も遅い）</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>ランキング</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>順位</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>クレジット</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>トークン数</translation>
    </message>
    <message>
        <source>%1 (This PC)</source>
        <translation>%1（この PC）</translation>
    </message>
    <message>
        <source>Join a swarm to see who contributes most.</source>
        <translation>スウォームに参加すると、誰が最も貢献しているかを確認できます。</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>このスウォームのランキングにはまだ誰もいません。</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>この PC はまだランキングに載っていません。</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>この PC の行は太字で表示されます。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>スウォームから退出しています</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>スウォームから退出しました</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>起動中</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>スウォームのコーディネーターに接続できません。%1 秒後に再試行します</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>%1 のスウォームに参加しています</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>%1 のスウォームに参加しました</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>データ シャード %1 / %2 をダウンロードしています</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>スウォームのモデルをダウンロードしています</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>ラウンド %1 のスウォームの状態をダウンロードしました</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>ラウンド %1 を学習中</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>再開しました</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>ラウンド %1 の開始を待っています</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>ラウンド %1 をスウォームと平均化しています</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>ラウンド %1 で他のピアの作業を検証しています</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>このスウォームのラウンドには遅すぎます。代わりに他のピアの作業を検証します</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>GPU 時間の %1% で貢献中</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>貢献中</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>手動で一時停止中</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>一時停止中: コンピューターが使用中です</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>一時停止中: バッテリー駆動</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>一時停止中: ゲームが実行中です</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>一時停止中: 別のプログラムが GPU を使用しています</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>一時停止中: GPU が高温です</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>一時停止中: 指定した時間帯の外です</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>一時停止中: SwarmTrain のファイルがディスク容量の上限を超えています</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>一時停止中: モデルがご依頼の文章を書いています</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>ダッシュボードを開く</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>1 時間一時停止</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>再開</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>SwarmTrain を終了</translation>
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
        <translation>フルモデル</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>パイプライン段: まだ割り当てられていません</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>パイプライン段 %1 / %2</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1、%2 台の GPU で</translation>
    </message>
</context>
</TS>
