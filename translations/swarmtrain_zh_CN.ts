<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
        <translation>未加入集群</translation>
    </message>
    <message>
        <source>Join a swarm on the Swarm page, or host one on this PC.</source>
        <translation>在“集群”页面加入一个集群，或在这台电脑上托管一个。</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>已由你暂停，直到 %1</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>正在等待下一轮</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>正在准备</translation>
    </message>
    <message>
        <source>Resuming</source>
        <translation>正在恢复</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>因错误而停止</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>矩阵乘法</translation>
    </message>
    <message>
        <source>Copy bandwidth</source>
        <translation>复制带宽</translation>
    </message>
    <message>
        <source>Training, resident</source>
        <translation>训练（常驻显存）</translation>
    </message>
    <message>
        <source>Training, swapped</source>
        <translation>训练（换入换出）</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Matrix product, %1</source>
        <translation>矩阵乘法，%1</translation>
    </message>
    <message>
        <source>Host to device</source>
        <translation>主机到设备</translation>
    </message>
    <message>
        <source>Device to host</source>
        <translation>设备到主机</translation>
    </message>
    <message>
        <source>GPT %1 layers × %2</source>
        <translation>GPT %1 层 × %2</translation>
    </message>
    <message>
        <source>Training %1, resident</source>
        <translation>训练 %1（常驻显存）</translation>
    </message>
    <message>
        <source>%L1 tokens/s</source>
        <translation>%L1 token/秒</translation>
    </message>
    <message>
        <source>Training %1, swapped</source>
        <translation>训练 %1（换入换出）</translation>
    </message>
    <message>
        <source>Swapped against resident</source>
        <translation>换入换出相对常驻显存</translation>
    </message>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only</source>
        <translation>找到了 %1，但此版本的 SwarmTrain 仅支持在 NVIDIA GPU 上训练</translation>
    </message>
    <message>
        <source>%1 found, but this build of SwarmTrain has no CUDA support</source>
        <translation>找到了 %1，但此版本的 SwarmTrain 不支持 CUDA</translation>
    </message>
    <message>
        <source>%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)</source>
        <translation>找到了 %1，但 CUDA 检测不到它（是否设置了 CUDA_VISIBLE_DEVICES？）</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 百万</translation>
    </message>
    <message numerus="yes">
        <source>GPT, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>GPT，%n 层 × %1，%2 参数</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is plain http:// to another computer: anyone on the way could forge the swarm&apos;s answers. Ask for its https:// invite link, or allow plain HTTP.</source>
        <translation>%1 是发往另一台计算机的未加密 http://：路径上的任何人都可以伪造集群的应答。请索取它的 https:// 邀请链接，或允许未加密的 HTTP。</translation>
    </message>
    <message>
        <source>Saving this PC&apos;s copy of the model and telling the coordinator</source>
        <translation>正在保存本机的模型副本并通知协调器</translation>
    </message>
    <message>
        <source>Leaving the previous swarm</source>
        <translation>正在离开之前的集群</translation>
    </message>
    <message>
        <source>Leaving the swarm</source>
        <translation>正在离开集群</translation>
    </message>
    <message>
        <source>Moving training to the devices chosen</source>
        <translation>正在将训练移到所选设备</translation>
    </message>
    <message numerus="yes">
        <source>Llama, %n layer(s) × %1, %2 parameters</source>
        <translation>
            <numerusform>Llama，%n 层 × %1，%2 参数</numerusform>
        </translation>
    </message>
    <message>
        <source>Join a swarm first: the model is the swarm&apos;s.</source>
        <translation>请先加入一个集群：模型属于集群。</translation>
    </message>
    <message>
        <source>Cannot fetch the swarm&apos;s model: %1</source>
        <translation>无法获取集群的模型：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s), %1 a second</source>
        <translation>
            <numerusform>%n 个词元，每秒 %1 个</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>swarmtrain::ControlCommands</name>
    <message>
        <source>swarm: %1</source>
        <translation>集群：%1</translation>
    </message>
    <message>
        <source>mode: %1</source>
        <translation>模式：%1</translation>
    </message>
    <message>
        <source>round %1, %2 of %3 steps</source>
        <translation>第 %1 轮，%3 步中的第 %2 步</translation>
    </message>
    <message>
        <source>paused (%1) until %2</source>
        <translation>已暂停（%1），直到 %2</translation>
    </message>
    <message>
        <source>paused (%1)</source>
        <translation>已暂停（%1）</translation>
    </message>
    <message>
        <source>, GPU memory released</source>
        <translation>，已释放 GPU 显存</translation>
    </message>
    <message>
        <source>%1 rounds contributed, %2 accepted, %3 not accepted</source>
        <translation>贡献了 %1 轮，%2 轮被接受，%3 轮未被接受</translation>
    </message>
    <message>
        <source>%L1 tokens, %2 compute hours, credit %3</source>
        <translation>%L1 个词元，%2 计算小时，积分 %3</translation>
    </message>
    <message>
        <source>%1 min, %L2 tokens, credit %3</source>
        <translation>%1 分钟，%L2 个词元，积分 %3</translation>
    </message>
    <message>
        <source>--for needs a duration from 1s to 30d, such as 90s, 15m, 2h or 1d</source>
        <translation>--for 需要 1s 到 30d 之间的时长，例如 90s、15m、2h 或 1d</translation>
    </message>
    <message>
        <source>swarm join needs the swarm&apos;s URL or invite link</source>
        <translation>swarm join 需要集群的 URL 或邀请链接</translation>
    </message>
    <message>
        <source>swarm leave takes no URL</source>
        <translation>swarm leave 不接受 URL</translation>
    </message>
</context>
<context>
    <name>swarmtrain::DashboardPage</name>
    <message>
        <source>%1 GPU-hours</source>
        <translation>%1 GPU 小时</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 token/秒</translation>
    </message>
    <message>
        <source>Current work</source>
        <translation>当前工作</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Contributed by this PC</source>
        <translation>本机贡献</translation>
    </message>
    <message>
        <source>Tokens trained</source>
        <translation>已训练 token</translation>
    </message>
    <message>
        <source>Compute time</source>
        <translation>计算时间</translation>
    </message>
    <message>
        <source>Rounds accepted</source>
        <translation>已接受轮次</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>积分</translation>
    </message>
    <message>
        <source>Data sent</source>
        <translation>已发送数据</translation>
    </message>
    <message>
        <source>Data received</source>
        <translation>已接收数据</translation>
    </message>
    <message>
        <source>Tokens per second, last 5 minutes</source>
        <translation>每秒 token 数（最近 5 分钟）</translation>
    </message>
    <message>
        <source>minutes ago</source>
        <translation>分钟前</translation>
    </message>
    <message>
        <source>Swarm validation loss</source>
        <translation>集群验证损失</translation>
    </message>
    <message>
        <source>round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>No round in progress</source>
        <translation>没有进行中的轮次</translation>
    </message>
    <message>
        <source>%1 (%2 rejected)</source>
        <translation>%1（%2 被拒绝）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 十亿</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 百万</translation>
    </message>
    <message>
        <source>Inner steps</source>
        <translation>内部步数</translation>
    </message>
    <message>
        <source>GPU-hours per day, %1 – %2</source>
        <translation>每日 GPU 小时数，%1 – %2</translation>
    </message>
    <message>
        <source>%1 microbatches/s</source>
        <translation>%1 个微批次/秒</translation>
    </message>
    <message>
        <source>This stage %1/s, the slowest %2/s</source>
        <translation>本阶段 %1/秒，最慢阶段 %2/秒</translation>
    </message>
    <message>
        <source>Stage throughput not measured yet</source>
        <translation>尚未测得阶段吞吐量</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget; last round %3 steps, %4% utilised</source>
        <translation>在 %2 秒预算中的第 %1 步；上一轮 %3 步，利用率 %4%</translation>
    </message>
    <message>
        <source>Step %1 in a %2 s budget</source>
        <translation>在 %2 秒预算中的第 %1 步</translation>
    </message>
    <message>
        <source>Swarm validation loss, bits per byte</source>
        <translation>集群验证损失，每字节比特数</translation>
    </message>
    <message>
        <source>bits per byte</source>
        <translation>每字节比特数</translation>
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
        <translation>图形处理器</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Measures how fast this PC multiplies matrices, copies data to and from the GPU and trains a small model. The swarm uses the figures to give this PC a fitting share of the work. It takes about a minute.</source>
        <translation>测量这台电脑进行矩阵乘法、在 GPU 之间来回复制数据以及训练一个小模型的速度。集群会根据这些数据为这台电脑分配合适的工作量。大约需要一分钟。</translation>
    </message>
    <message>
        <source>Run &amp;benchmark</source>
        <translation>运行基准测试(&amp;B)</translation>
    </message>
    <message>
        <source>Measurement</source>
        <translation>测量项</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>正在查找 GPU…</translation>
    </message>
    <message>
        <source>No GPU found — SwarmTrain trains on the CPU</source>
        <translation>未找到 GPU — SwarmTrain 将使用 CPU 训练</translation>
    </message>
    <message>
        <source>Training on the processor is slower, but every contribution counts. If this PC has a graphics card, installing its current driver lets SwarmTrain find it.</source>
        <translation>用处理器训练会慢一些，但每一份贡献都有意义。如果这台电脑有显卡，请安装其最新驱动程序，以便 SwarmTrain 找到它。</translation>
    </message>
    <message>
        <source>SwarmTrain trains on the GPUs marked ready.</source>
        <translation>SwarmTrain 使用标记为就绪的 GPU 进行训练。</translation>
    </message>
    <message>
        <source>SwarmTrain found these GPUs.</source>
        <translation>SwarmTrain 找到了以下 GPU。</translation>
    </message>
    <message>
        <source>Ready for training</source>
        <translation>可用于训练</translation>
    </message>
    <message>
        <source>Not used for training</source>
        <translation>不用于训练</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>厂商</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>%2 中可用 %1</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动程序</translation>
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
        <translation>计算能力</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>其他程序</translation>
    </message>
    <message>
        <source>%1 in use</source>
        <translation>已占用 %1</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>The benchmark failed: %1</source>
        <translation>基准测试失败：%1</translation>
    </message>
</context>
<context>
    <name>swarmtrain::EmbeddedCoordinator</name>
    <message>
        <source>Cannot listen on &quot;%1&quot;: not an IP address.</source>
        <translation>无法在“%1”上监听：不是 IP 地址。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::GpuChoice</name>
    <message>
        <source>none of the GPUs chosen in Settings is here and usable</source>
        <translation>设置中所选的 GPU 均不存在或不可用</translation>
    </message>
</context>
<context>
    <name>swarmtrain::HeadlessClient</name>
    <message>
        <source>Not in a swarm</source>
        <translation>未加入集群</translation>
    </message>
    <message>
        <source>Paused by you until %1</source>
        <translation>已由你暂停，直到 %1</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>已由你暂停</translation>
    </message>
    <message>
        <source>Stopped by an error</source>
        <translation>因错误而停止</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>正在贡献</translation>
    </message>
    <message>
        <source>Waiting for the next round</source>
        <translation>正在等待下一轮</translation>
    </message>
    <message>
        <source>Getting ready</source>
        <translation>正在准备</translation>
    </message>
</context>
<context>
    <name>swarmtrain::Invite</name>
    <message>
        <source>Paste a swarm&apos;s address or an invite link.</source>
        <translation>请粘贴集群地址或邀请链接。</translation>
    </message>
    <message>
        <source>This invite link is damaged: it names no swarm address.</source>
        <translation>此邀请链接已损坏：其中没有集群地址。</translation>
    </message>
    <message>
        <source>This invite link is damaged: its certificate fingerprint is not sha256//…</source>
        <translation>此邀请链接已损坏：其证书指纹不是 sha256//… 格式</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither an invite link nor an http(s) address.</source>
        <translation>“%1”既不是邀请链接，也不是 http(s) 地址。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LocalControlServer</name>
    <message>
        <source>a request is one JSON object on one line, at most %1 bytes</source>
        <translation>请求必须是单行的一个 JSON 对象，最多 %1 字节</translation>
    </message>
    <message>
        <source>a pause lasts from 1 second to %1 days</source>
        <translation>暂停时长为 1 秒到 %1 天</translation>
    </message>
    <message>
        <source>join needs the swarm&apos;s URL or invite link</source>
        <translation>join 需要集群的 URL 或邀请链接</translation>
    </message>
    <message>
        <source>stats covers from 1 to %1 days</source>
        <translation>stats 涵盖 1 到 %1 天</translation>
    </message>
    <message>
        <source>log shows from 0 to %1 lines</source>
        <translation>log 显示 0 到 %1 行</translation>
    </message>
    <message>
        <source>unknown command &quot;%1&quot;</source>
        <translation>未知命令“%1”</translation>
    </message>
</context>
<context>
    <name>swarmtrain::LogPage</name>
    <message>
        <source>Debug</source>
        <translation>调试</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Fatal</source>
        <translation>严重</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>级别</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>&amp;Category:</source>
        <translation>类别(&amp;C):</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>&amp;Level:</source>
        <translation>级别(&amp;L):</translation>
    </message>
    <message>
        <source>All messages</source>
        <translation>所有消息</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>信息及以上</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>警告和错误</translation>
    </message>
    <message>
        <source>Search messages…</source>
        <translation>搜索消息…</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Messages: %1</source>
        <translation>消息：%1</translation>
    </message>
    <message>
        <source>Showing %1 of %2</source>
        <translation>显示 %1 / %2 条</translation>
    </message>
</context>
<context>
    <name>swarmtrain::MainWindow</name>
    <message>
        <source>SwarmTrain keeps running</source>
        <translation>SwarmTrain 仍在运行</translation>
    </message>
    <message>
        <source>SwarmTrain goes on contributing in the background and steps aside whenever you use the computer. Open it again, pause it or quit from its icon in the system tray.</source>
        <translation>SwarmTrain 会在后台继续贡献算力，并在你使用电脑时自动让出资源。可通过系统托盘中的图标重新打开、暂停或退出。</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>仪表板</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ModelPage</name>
    <message>
        <source>The swarm&apos;s model</source>
        <translation>集群的模型</translation>
    </message>
    <message>
        <source>Download it</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Try it</source>
        <translation>试一试</translation>
    </message>
    <message>
        <source>Type the start of a text; the model writes on</source>
        <translation>输入一段文字的开头，模型会接着写</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>写</translation>
    </message>
    <message>
        <source>Training pauses for the few seconds the model writes, and then goes on.</source>
        <translation>模型写作的几秒钟内训练会暂停，之后继续。</translation>
    </message>
    <message>
        <source>The swarm does not answer now.</source>
        <translation>集群目前没有响应。</translation>
    </message>
    <message>
        <source>Not in a swarm: join one on the Swarm page.</source>
        <translation>未加入集群：请在“集群”页面加入一个。</translation>
    </message>
    <message>
        <source>%1, round %2</source>
        <translation>%1，第 %2 轮</translation>
    </message>
    <message>
        <source>%1 bits per byte</source>
        <translation>每字节 %1 比特</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>验证损失 %1</translation>
    </message>
    <message>
        <source>The swarm&apos;s host publishes no exports (the coordinator&apos;s --export-every).</source>
        <translation>集群的主持者没有发布导出（协调器的 --export-every）。</translation>
    </message>
    <message>
        <source>Round %1: %2 (GGUF for llama.cpp, Ollama and LM Studio; the Hugging Face folder for transformers)</source>
        <translation>第 %1 轮：%2（GGUF 用于 llama.cpp、Ollama 和 LM Studio；Hugging Face 文件夹用于 transformers）</translation>
    </message>
    <message>
        <source>Fetching the swarm&apos;s model…</source>
        <translation>正在获取集群的模型…</translation>
    </message>
    <message>
        <source>Writing; training is paused until it is done.</source>
        <translation>正在写作；完成前训练暂停。</translation>
    </message>
    <message>
        <source>Done: %1. Training goes on.</source>
        <translation>完成：%1。训练继续。</translation>
    </message>
    <message>
        <source>Could not write: %1</source>
        <translation>无法写作：%1</translation>
    </message>
    <message>
        <source>%1 tokens trained</source>
        <translation>已训练 %1 个词元</translation>
    </message>
</context>
<context>
    <name>swarmtrain::PipelineWorker</name>
    <message>
        <source>Paused: %1</source>
        <translation>已暂停：%1</translation>
    </message>
    <message>
        <source>Waiting for the coordinator to place this PC in the pipeline</source>
        <translation>正在等待协调器将本机分配到流水线中</translation>
    </message>
    <message>
        <source>Building pipeline stage %1 of %2</source>
        <translation>正在构建流水线阶段 %1 / %2</translation>
    </message>
    <message>
        <source>Taking pipeline stage %1&apos;s state from a neighbour</source>
        <translation>正在从相邻节点获取流水线阶段 %1 的状态</translation>
    </message>
    <message>
        <source>Training: pipeline stage 1 of %1, step %2</source>
        <translation>训练中：流水线阶段 1 / %1，第 %2 步</translation>
    </message>
    <message>
        <source>Averaging pipeline stage %1&apos;s gradients</source>
        <translation>正在平均流水线阶段 %1 的梯度</translation>
    </message>
    <message>
        <source>Waiting for every pipeline stage to have a peer</source>
        <translation>正在等待每个流水线阶段都有节点</translation>
    </message>
    <message>
        <source>Serving pipeline stage %1 of %2, step %3</source>
        <translation>正在服务流水线阶段 %1 / %2，第 %3 步</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SettingsPage</name>
    <message>
        <source>When to compute</source>
        <translation>何时计算</translation>
    </message>
    <message>
        <source>Start after &amp;idle for:</source>
        <translation>空闲多久后开始(&amp;I):</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Always (0 min)</source>
        <translation>始终（0 分钟）</translation>
    </message>
    <message>
        <source>SwarmTrain computes only when nobody has used the keyboard or mouse for this long, and pauses the moment you come back. 0 = always, also while you work.</source>
        <translation>只有在键盘和鼠标闲置达到这段时间后，SwarmTrain 才会计算；你一回来它就会暂停。0 = 始终计算，包括你工作时。</translation>
    </message>
    <message>
        <source>Pause while the computer runs on &amp;battery</source>
        <translation>电脑使用电池供电时暂停(&amp;B)</translation>
    </message>
    <message>
        <source>Compute only &amp;between</source>
        <translation>仅在以下时段计算(&amp;T)</translation>
    </message>
    <message>
        <source>and</source>
        <translation>至</translation>
    </message>
    <message>
        <source>Games and other programs</source>
        <translation>游戏和其他程序</translation>
    </message>
    <message>
        <source>While one of these programs runs, SwarmTrain stops and gives the GPU&apos;s memory back, so the program gets the whole GPU.</source>
        <translation>当这些程序中的任何一个运行时，SwarmTrain 会停止并释放 GPU 显存，让该程序独占整个 GPU。</translation>
    </message>
    <message>
        <source>Program name, e.g. game.exe</source>
        <translation>程序名称，例如 game.exe</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>添加(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>GPU limits</source>
        <translation>GPU 限制</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;utilization:</source>
        <translation>最大 GPU 利用率(&amp;U):</translation>
    </message>
    <message>
        <source>Maximum GPU &amp;memory:</source>
        <translation>最大 GPU 显存(&amp;M):</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Pause at GPU &amp;temperature:</source>
        <translation>GPU 温度达到此值时暂停(&amp;T):</translation>
    </message>
    <message>
        <source>Lower utilization keeps the GPU cooler and quieter; training then takes longer. Training resumes when the GPU has cooled 5 °C below the limit.</source>
        <translation>较低的利用率能让 GPU 更凉爽、更安静，但训练会花更长时间。GPU 冷却到比上限低 5 °C 后，训练会继续。</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>应用程序</translation>
    </message>
    <message>
        <source>&amp;Start SwarmTrain when I log in</source>
        <translation>登录时启动 SwarmTrain(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L):</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>&amp;Disk space limit:</source>
        <translation>磁盘空间上限(&amp;D):</translation>
    </message>
    <message>
        <source>For downloaded training data, checkpoints and this PC&apos;s copy of the model.</source>
        <translation>用于下载的训练数据、检查点以及本机的模型副本。</translation>
    </message>
    <message>
        <source>Display &amp;name:</source>
        <translation>显示名称(&amp;N):</translation>
    </message>
    <message>
        <source>None: the leaderboard shows this PC&apos;s key id</source>
        <translation>无：排行榜显示本机的密钥 ID</translation>
    </message>
    <message>
        <source>Shown beside this PC&apos;s credit on the swarm&apos;s leaderboard, from the next time it joins a swarm. Anyone can read it, and other PCs may use the same name.</source>
        <translation>从下次加入集群起，显示在集群排行榜上本机积分的旁边。任何人都能看到它，其他电脑也可能使用相同的名称。</translation>
    </message>
    <message>
        <source>The name is longer than %1 characters.</source>
        <translation>名称超过 %1 个字符。</translation>
    </message>
    <message>
        <source>The name may not contain line breaks or control characters.</source>
        <translation>名称不能包含换行符或控制字符。</translation>
    </message>
    <message>
        <source>The name may not contain characters that change the direction of the text.</source>
        <translation>名称不能包含改变文字方向的字符。</translation>
    </message>
    <message>
        <source>The name may not contain invisible (zero-width) characters.</source>
        <translation>名称不能包含不可见（零宽度）字符。</translation>
    </message>
    <message>
        <source>The name may not be only spaces.</source>
        <translation>名称不能只包含空格。</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Train &amp;with:</source>
        <translation>训练使用(&amp;W)：</translation>
    </message>
    <message>
        <source>Automatic: the best GPU found, else the processor</source>
        <translation>自动：找到的最佳 GPU，否则使用处理器</translation>
    </message>
    <message>
        <source>Only the GPUs ticked below</source>
        <translation>仅下方勾选的 GPU</translation>
    </message>
    <message>
        <source>None: train on the processor only</source>
        <translation>无：仅用处理器训练</translation>
    </message>
    <message>
        <source>Each GPU ticked trains a model copy of its own. Changing this restarts training.</source>
        <translation>每个勾选的 GPU 训练一份自己的模型副本。更改此项会重新开始训练。</translation>
    </message>
    <message>
        <source>%1, %2 GiB</source>
        <translation>%1，%2 GiB</translation>
    </message>
    <message>
        <source>No GPU found: the processor trains.</source>
        <translation>未找到 GPU：由处理器训练。</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>正在查找 GPU…</translation>
    </message>
    <message>
        <source>None of the GPUs found can train with this build.</source>
        <translation>找到的 GPU 均无法用此版本训练。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmPage</name>
    <message>
        <source>The invite link is on the clipboard.</source>
        <translation>邀请链接已复制到剪贴板。</translation>
    </message>
    <message>
        <source>Current swarm</source>
        <translation>当前集群</translation>
    </message>
    <message>
        <source>Swarm</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Peers online</source>
        <translation>在线节点</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>This PC&apos;s role</source>
        <translation>本机角色</translation>
    </message>
    <message>
        <source>Certificate</source>
        <translation>证书</translation>
    </message>
    <message>
        <source>Leave the swarm</source>
        <translation>离开集群</translation>
    </message>
    <message>
        <source>Join a swarm</source>
        <translation>加入集群</translation>
    </message>
    <message>
        <source>Paste the swarm&apos;s address (https://…) or an invite link a friend sent you (swarmtrain://join?…). An invite also pins the swarm&apos;s certificate, so no one in between can pretend to be it.</source>
        <translation>粘贴集群地址（https://…）或朋友发给你的邀请链接（swarmtrain://join?…）。邀请链接还会固定集群的证书，这样中间人就无法冒充它。</translation>
    </message>
    <message>
        <source>Join</source>
        <translation>加入</translation>
    </message>
    <message>
        <source>Certificate pin</source>
        <translation>证书固定</translation>
    </message>
    <message>
        <source>Host a swarm on this PC</source>
        <translation>在这台电脑上托管集群</translation>
    </message>
    <message>
        <source>Runs a coordinator on this PC, so friends on your network can train a model together. Choose a text file as the training data; this PC joins the swarm too.</source>
        <translation>在这台电脑上运行协调器，让同一网络中的朋友一起训练模型。选择一个文本文件作为训练数据；这台电脑也会加入集群。</translation>
    </message>
    <message>
        <source>Training text</source>
        <translation>训练文本</translation>
    </message>
    <message>
        <source>A plain text file (.txt)</source>
        <translation>纯文本文件（.txt）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>模型大小</translation>
    </message>
    <message>
        <source>Tiny</source>
        <translation>微型</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>小型</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中型</translation>
    </message>
    <message>
        <source>%1: %2 layers × %3</source>
        <translation>%1：%2 层 × %3</translation>
    </message>
    <message>
        <source>Start hosting</source>
        <translation>开始托管</translation>
    </message>
    <message>
        <source>Stop hosting</source>
        <translation>停止托管</translation>
    </message>
    <message>
        <source>Invite link for friends</source>
        <translation>给朋友的邀请链接</translation>
    </message>
    <message>
        <source>Appears when the swarm is running</source>
        <translation>集群运行后显示</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Not in a swarm</source>
        <translation>未加入集群</translation>
    </message>
    <message>
        <source>Full model replica</source>
        <translation>完整模型副本</translation>
    </message>
    <message>
        <source>Not pinned</source>
        <translation>未固定</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>已固定：%1</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator: %1</source>
        <translation>无法连接集群的协调器：%1</translation>
    </message>
    <message>
        <source>Joining the swarm at %1…</source>
        <translation>正在加入位于 %1 的集群…</translation>
    </message>
    <message>
        <source>Choose a text file to train on.</source>
        <translation>请选择用于训练的文本文件。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>“%1”不是文件。</translation>
    </message>
    <message>
        <source>The swarm could not start: %1</source>
        <translation>集群无法启动：%1</translation>
    </message>
    <message>
        <source>Your swarm is running, and this PC trains in it. Send friends the invite link.</source>
        <translation>你的集群正在运行，这台电脑也在其中训练。把邀请链接发给朋友吧。</translation>
    </message>
    <message>
        <source>Starting the swarm…</source>
        <translation>正在启动集群…</translation>
    </message>
    <message>
        <source>Choose a text file to train on</source>
        <translation>选择用于训练的文本文件</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>https://… or swarmtrain://join?…</source>
        <translation>https://… 或 swarmtrain://join?…</translation>
    </message>
    <message>
        <source>None (a plain address)</source>
        <translation>无（普通地址）</translation>
    </message>
    <message>
        <source>Allow plain http:// to other computers (unsafe: their answers could be forged)</source>
        <translation>允许向其他计算机使用未加密的 http://（不安全：其应答可能被伪造）</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>流水线阶段</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>流水线阶段：尚未分配</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>流水线阶段 %1 / %2</translation>
    </message>
    <message numerus="yes">
        <source>Stage %1: %n peer(s)</source>
        <translation>
            <numerusform>阶段 %1：%n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 microbatches/s</source>
        <translation>，%1 个微批次/秒</translation>
    </message>
    <message>
        <source> (the slowest)</source>
        <translation>（最慢）</translation>
    </message>
    <message>
        <source>Leaderboard</source>
        <translation>排行榜</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Credit</source>
        <translation>积分</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <source>%1 (This PC)</source>
        <translation>%1（本机）</translation>
    </message>
    <message>
        <source>Join a swarm to see who contributes most.</source>
        <translation>加入集群后即可查看谁贡献最多。</translation>
    </message>
    <message>
        <source>No one is on this swarm&apos;s leaderboard yet.</source>
        <translation>此集群的排行榜上还没有人。</translation>
    </message>
    <message>
        <source>This PC is not on the leaderboard yet.</source>
        <translation>本机尚未进入排行榜。</translation>
    </message>
    <message>
        <source>This PC&apos;s row is in bold.</source>
        <translation>本机所在行以粗体显示。</translation>
    </message>
</context>
<context>
    <name>swarmtrain::SwarmWorker</name>
    <message>
        <source>Leaving the swarm</source>
        <translation>正在离开集群</translation>
    </message>
    <message>
        <source>Left the swarm</source>
        <translation>已离开集群</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>Cannot reach the swarm&apos;s coordinator; trying again in %1 s</source>
        <translation>无法连接集群的协调器；%1 秒后重试</translation>
    </message>
    <message>
        <source>Joining the swarm at %1</source>
        <translation>正在加入位于 %1 的集群</translation>
    </message>
    <message>
        <source>Joined the swarm at %1</source>
        <translation>已加入位于 %1 的集群</translation>
    </message>
    <message>
        <source>Downloading data shard %1 of %2</source>
        <translation>正在下载数据分片 %1 / %2</translation>
    </message>
    <message>
        <source>Downloading the swarm&apos;s model</source>
        <translation>正在下载集群的模型</translation>
    </message>
    <message>
        <source>Downloaded the swarm&apos;s state of round %1</source>
        <translation>已下载集群第 %1 轮的状态</translation>
    </message>
    <message>
        <source>Training round %1</source>
        <translation>正在训练第 %1 轮</translation>
    </message>
    <message>
        <source>Resumed</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>Waiting for round %1 to start</source>
        <translation>正在等待第 %1 轮开始</translation>
    </message>
    <message>
        <source>Averaging round %1 with the swarm</source>
        <translation>正在与集群对第 %1 轮求平均</translation>
    </message>
    <message>
        <source>Checking the work of another peer in round %1</source>
        <translation>正在核验另一个节点在第 %1 轮的工作</translation>
    </message>
    <message>
        <source>Too slow for this swarm&apos;s rounds: checking other peers&apos; work instead</source>
        <translation>对此群的轮次来说太慢：改为检查其他节点的工作</translation>
    </message>
</context>
<context>
    <name>swarmtrain::ThrottleMonitor</name>
    <message>
        <source>Contributing at %1% of the GPU&apos;s time</source>
        <translation>正在以 %1% 的 GPU 时间贡献</translation>
    </message>
    <message>
        <source>Contributing</source>
        <translation>正在贡献</translation>
    </message>
    <message>
        <source>Paused by you</source>
        <translation>已由你暂停</translation>
    </message>
    <message>
        <source>Paused: you are using the computer</source>
        <translation>已暂停：你正在使用电脑</translation>
    </message>
    <message>
        <source>Paused: on battery</source>
        <translation>已暂停：正在使用电池</translation>
    </message>
    <message>
        <source>Paused: a game is running</source>
        <translation>已暂停：有游戏正在运行</translation>
    </message>
    <message>
        <source>Paused: another program is using the GPU</source>
        <translation>已暂停：其他程序正在使用 GPU</translation>
    </message>
    <message>
        <source>Paused: the GPU is too hot</source>
        <translation>已暂停：GPU 温度过高</translation>
    </message>
    <message>
        <source>Paused: outside the hours you chose</source>
        <translation>已暂停：不在你选择的时段内</translation>
    </message>
    <message>
        <source>Paused: SwarmTrain&apos;s files are over your disk limit</source>
        <translation>已暂停：SwarmTrain 的文件超出了你设定的磁盘上限</translation>
    </message>
    <message>
        <source>Paused: the model is writing the text you asked for</source>
        <translation>已暂停：模型正在写您要求的文字</translation>
    </message>
</context>
<context>
    <name>swarmtrain::TrayIcon</name>
    <message>
        <source>Open dashboard</source>
        <translation>打开仪表板</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause for 1 hour</source>
        <translation>暂停 1 小时</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Quit SwarmTrain</source>
        <translation>退出 SwarmTrain</translation>
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
        <translation>完整模型</translation>
    </message>
    <message>
        <source>Pipeline stage: not placed yet</source>
        <translation>流水线阶段：尚未分配</translation>
    </message>
    <message>
        <source>Pipeline stage %1 of %2</source>
        <translation>流水线阶段 %1 / %2</translation>
    </message>
    <message>
        <source>%1, on %2 GPUs</source>
        <translation>%1，在 %2 个 GPU 上</translation>
    </message>
</context>
</TS>
