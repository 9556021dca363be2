#include "SwarmWorker.h"

#include "DataPlane.h"
#include "FileIo.h"
#include "Identity.h"
#include "ReplicaTrainer.h"
#include "Sha256.h"
#include "StatsStore.h"
#include "SwarmState.h"
#include "Trainer.h"
#include "WorkGate.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>

#include <algorithm>
#include <cstring>
#include <limits>
#include <thread>

Q_LOGGING_CATEGORY(lcWorker, "swarmtrain.worker", QtInfoMsg)

namespace swarmtrain {

namespace {

constexpr int kMaxRetryPauseMs = 30'000;
constexpr int kReadyPollMs = 250;
constexpr std::uint64_t kMaxShardBytes = 1ull << 30;
constexpr std::uint64_t kMaxStateBytes = 16ull << 30;

QString toQString(const std::string &text) { return QString::fromStdString(text); }

qint64 integer(const QJsonObject &object, const char *key, qint64 fallback = 0)
{
    const QJsonValue value = object.value(QLatin1StringView(key));
    return value.isDouble() ? qint64(value.toDouble()) : fallback;
}

double number(const QJsonObject &object, const char *key, double fallback)
{
    const QJsonValue value = object.value(QLatin1StringView(key));
    return value.isDouble() ? value.toDouble() : fallback;
}

qint64 nowMs() { return QDateTime::currentMSecsSinceEpoch(); }

// Every peer trains on its own shards in its own order: the swarm's seed mixed with the key.
std::uint64_t dataSeed(std::uint64_t swarmSeed, const QString &keyId)
{
    const QByteArray digest = QCryptographicHash::hash(keyId.toLatin1(), QCryptographicHash::Sha256);
    std::uint64_t mixed = 0;
    for (int i = 0; i < 8; ++i)
        mixed = (mixed << 8) | std::uint8_t(digest[i]);
    return swarmSeed ^ mixed;
}

} // namespace

SwarmWorker::SwarmWorker(WorkerOptions options, std::shared_ptr<WorkGate> gate)
    : m_options(std::move(options))
    , m_gate(std::move(gate))
{
}

SwarmWorker::~SwarmWorker()
{
    m_gate->setStopHook({}); // the client goes with us
}

void SwarmWorker::run()
{
    // LibTorch's c10::Error and allocation failures end here as an error, never past the thread.
    Result<void> result;
    try {
        result = setUp();
        if (result)
            result = join();
        if (result)
            result = prepareShards();
        if (result)
            result = prepareReplica();
        while (result && !m_gate->stopRequested()) {
            Result<Outcome> trained = trainRound();
            if (!trained) {
                result = trained.error();
                break;
            }
            if (*trained == Outcome::CatchUp) {
                result = catchUp();
                continue;
            }
            if (*trained == Outcome::Stopped)
                break;
            Result<Outcome> waited = waitForRound();
            if (!waited)
                result = waited.error();
            else if (*waited == Outcome::CatchUp)
                result = catchUp();
            else if (*waited == Outcome::Done)
                result = runRound();
        }
    } catch (const std::exception &e) {
        result = makeError(std::string("the worker failed: ") + e.what());
    }

    const bool stopped = m_gate->stopRequested();
    if (m_trainer) {
        setStatus(WorkState::Stopping, tr("Leaving the swarm"));
        try {
            if (Result<void> left = leave(); !left)
                qCWarning(lcWorker).noquote() << toQString(left.error().message);
        } catch (const std::exception &e) {
            qCWarning(lcWorker) << "cannot save the replica:" << e.what();
        }
    }
    if (!result && !stopped) {
        const QString message = toQString(result.error().message);
        qCCritical(lcWorker).noquote() << message;
        if (m_stats)
            (void)m_stats->recordEvent(QStringLiteral("error"), message, QDateTime::currentDateTime());
        setStatus(WorkState::Failed, message);
        Q_EMIT finished(false, message);
        return;
    }
    if (m_stats)
        (void)m_stats->recordEvent(QStringLiteral("stopped"), tr("Left the swarm"), QDateTime::currentDateTime());
    setStatus(WorkState::Stopped, tr("Stopped"));
    Q_EMIT finished(true, {});
}

Result<void> SwarmWorker::setUp()
{
    setStatus(WorkState::Starting, tr("Starting"));
    std::error_code ec;
    std::filesystem::create_directories(m_options.stateDir / "shards", ec);
    if (ec)
        return makeError("cannot create the state directory " + m_options.stateDir.string() + ": " + ec.message());
    Result<Identity> identity = Identity::loadOrCreate(m_options.stateDir / "identity.pem");
    if (!identity)
        return identity.error();
    m_identity = std::make_unique<Identity>(std::move(identity).value());
    Result<std::unique_ptr<StatsStore>> stats = StatsStore::open(m_options.stateDir / "stats.db");
    if (!stats)
        return stats.error();
    m_stats = std::move(stats).value();

    CoordinatorClientOptions clientOptions;
    clientOptions.baseUrl = m_options.swarmUrl;
    clientOptions.pinnedPublicKey = m_options.pinnedPublicKey;
    m_client = std::make_unique<CoordinatorClient>(*m_identity, clientOptions);
    m_gate->setStopHook([client = m_client.get()] { client->cancel(); });

    m_dataPlane = std::make_unique<DataPlane>(*m_identity);
    if (!m_options.listenAddress.isEmpty()) {
        const QHostAddress address(m_options.listenAddress);
        if (address.isNull())
            return makeError("the data plane's listen address is not an IP address: "
                             + m_options.listenAddress.toStdString());
        Result<quint16> port = m_dataPlane->listen(address, m_options.listenPort);
        if (!port)
            return port.error();
        const QString host = m_options.announcedHost.isEmpty() ? QStringLiteral("*") : m_options.announcedHost;
        m_endpoint = host + QLatin1Char(':') + QString::number(*port);
    }
    configureThreads(m_options.threads);
    qCInfo(lcWorker).noquote() << "peer" << m_identity->keyId() << "data plane"
                               << (m_endpoint.isEmpty() ? QStringLiteral("outbound only") : m_endpoint);
    return {};
}

Result<QJsonObject> SwarmWorker::ask(const char *what, const std::function<Result<QJsonObject>()> &call)
{
    int pauseMs = 1000;
    const WorkStatus before = m_status;
    for (int failures = 0;; ++failures) {
        Result<QJsonObject> answer = call();
        if (answer) {
            if (failures > 0)
                setStatus(before.state, before.detail);
            return answer;
        }
        const int status = CoordinatorClient::httpStatus(answer.error());
        const bool unknownPeer = status == 401 && answer.error().message.find("join first") != std::string::npos;
        if (m_gate->stopRequested() || CoordinatorClient::isCancelled(answer.error()))
            return makeError("stopped");
        if (status >= 400 && status < 500 && !unknownPeer)
            return answer.error();
        const QString message = toQString(answer.error().message);
        qCWarning(lcWorker).noquote() << what << "failed:" << message;
        setStatus(WorkState::Joining, tr("Cannot reach the swarm's coordinator; trying again in %1 s")
                                          .arg(pauseMs / 1000));
        m_gate->sleepFor(pauseMs);
        if (m_gate->stopRequested())
            return makeError("stopped");
        pauseMs = std::min(2 * pauseMs, kMaxRetryPauseMs);
        // A coordinator that lost its peers (a new state directory) asks us to join first.
        if (unknownPeer && std::strcmp(what, "join") != 0)
            (void)join();
    }
}

Result<void> SwarmWorker::join()
{
    setStatus(WorkState::Joining, tr("Joining the swarm at %1").arg(m_options.swarmUrl));
    const QJsonObject device{{QStringLiteral("kind"), QString::fromStdString(m_options.device)},
                             {QStringLiteral("cpu_threads"), int(std::thread::hardware_concurrency())}};
    const QJsonObject body{{QStringLiteral("public_key"), QString::fromLatin1(m_identity->publicKey().toBase64())},
                           {QStringLiteral("device"), device},
                           {QStringLiteral("endpoint"), m_endpoint},
                           {QStringLiteral("client_version"), QStringLiteral("swarmtrain " SWARMTRAIN_VERSION)}};
    Result<QJsonObject> answer = ask("join", [&] { return m_client->postJson(QStringLiteral("/v1/join"), body); });
    if (!answer)
        return answer.error();
    m_join = *answer;
    m_heartbeatMs = int(std::clamp<qint64>(integer(m_join, "heartbeat_interval_ms", 10'000), 100, 600'000));
    qCInfo(lcWorker).noquote() << "joined; round" << integer(m_join, "round") << (m_join.value(QLatin1StringView("reachable")).toBool() ? "reachable" : "outbound only");
    (void)m_stats->recordEvent(QStringLiteral("joined"), tr("Joined the swarm at %1").arg(m_options.swarmUrl),
                               QDateTime::currentDateTime());
    return {};
}

Result<void> SwarmWorker::prepareShards()
{
    const QJsonArray assigned = m_join.value(QLatin1StringView("assigned_shards")).toArray();
    const QJsonArray shards = m_join.value(QLatin1StringView("shards")).toArray();
    if (assigned.isEmpty())
        return makeError("the coordinator assigned this peer no data shards");
    std::string text;
    int index = 0;
    for (const QJsonValue &id : assigned) {
        ++index;
        const auto info = std::find_if(shards.begin(), shards.end(), [&](const QJsonValue &shard) {
            return shard.toObject().value(QLatin1StringView("id")) == id;
        });
        if (info == shards.end())
            return makeError("the coordinator assigned shard '" + id.toString().toStdString() + "' it does not list");
        const QString sha256 = info->toObject().value(QLatin1StringView("sha256")).toString();
        const std::string name = id.toString().toStdString();
        if (name.empty() || name.find_first_of("/\\") != std::string::npos || name.front() == '.')
            return makeError("the coordinator named a shard '" + name + "', which is not a plain file name");
        const std::filesystem::path file = m_options.stateDir / "shards" / (name + ".txt");

        Result<std::vector<std::byte>> bytes = readFileBytes(file, kMaxShardBytes);
        if (!bytes || QString::fromStdString(Sha256::hexOf(*bytes)) != sha256) {
            setStatus(WorkState::Downloading, tr("Downloading data shard %1 of %2").arg(index).arg(assigned.size()));
            const QString path = QStringLiteral("/v1/shards/") + id.toString();
            Result<QJsonObject> done = ask("shard download", [&]() -> Result<QJsonObject> {
                Result<void> got = m_client->download(path, file, sha256);
                if (!got)
                    return got.error();
                return QJsonObject();
            });
            if (!done)
                return done.error();
            bytes = readFileBytes(file, kMaxShardBytes);
            if (!bytes)
                return bytes.error();
        }
        text.append(reinterpret_cast<const char *>(bytes->data()), bytes->size());
    }
    m_text = std::move(text);
    return {};
}

Result<void> SwarmWorker::prepareReplica()
{
    const QJsonObject training = m_join.value(QLatin1StringView("training")).toObject();
    ReplicaOptions o;
    o.batchSize = int(integer(training, "batch_size", o.batchSize));
    o.innerSteps = integer(training, "inner_steps", o.innerSteps);
    // Without a decay horizon (an open-ended swarm) the full rate stays after warm-up.
    const qint64 decay = integer(training, "lr_decay_iters", 0);
    o.schedule = {number(training, "lr", o.schedule.maxLr), number(training, "min_lr", o.schedule.minLr),
                  integer(training, "warmup_iters", o.schedule.warmupIters),
                  decay > 0 ? decay : std::numeric_limits<std::int64_t>::max()};
    o.weightDecay = number(training, "weight_decay", o.weightDecay);
    o.gradClip = number(training, "grad_clip", o.gradClip);
    o.outerLr = number(training, "outer_lr", o.outerLr);
    o.outerMomentum = number(training, "outer_momentum", o.outerMomentum);
    o.seed = dataSeed(std::uint64_t(integer(training, "seed", 1)), m_identity->keyId());
    o.device = m_options.device;
    o.deviceMemoryBudget = m_options.deviceMemoryBudget;

    // The replica saved when this peer last stopped, if it is still of use: not older than the
    // state the coordinator serves, not newer than its current round.
    const qint64 served = integer(m_join.value(QLatin1StringView("checkpoint")).toObject(), "round");
    const qint64 current = integer(m_join, "round");
    std::filesystem::path stateFile = replicaFile();
    bool useLocal = false;
    if (std::filesystem::exists(stateFile)) {
        Result<SwarmStateInfo> local = inspectSwarmState(stateFile);
        Result<GptConfig> model = GptConfig::fromJson(
            QJsonDocument(m_join.value(QLatin1StringView("model")).toObject()).toJson().toStdString());
        useLocal = local && model && local->round >= served && local->round <= current
                   && local->config.toJson() == model->toJson();
    }
    if (!useLocal) {
        Result<std::filesystem::path> downloaded = downloadState();
        if (!downloaded)
            return downloaded.error();
        stateFile = *downloaded;
    }
    Result<std::unique_ptr<ReplicaTrainer>> trainer = ReplicaTrainer::create(stateFile, o);
    if (!trainer)
        return trainer.error();
    m_trainer = std::move(trainer).value();
    if (!useLocal)
        removeDownloadedState(stateFile);
    Result<std::vector<std::int32_t>> tokens = m_trainer->tokenizer().encode(m_text);
    if (!tokens)
        return makeError("cannot encode the data shards: " + tokens.error().message);
    if (Result<void> set = m_trainer->setTrainingTokens(std::move(tokens).value()); !set)
        return set.error();
    m_text.clear();
    m_text.shrink_to_fit();
    m_tokensPerStep = qint64(o.batchSize) * m_trainer->config().blockSize;
    qCInfo(lcWorker).noquote() << "replica at round" << m_trainer->round() << "on" << toQString(m_trainer->deviceName())
                               << (useLocal ? "(saved locally)" : "(downloaded)");
    return {};
}

Result<std::filesystem::path> SwarmWorker::downloadState()
{
    setStatus(WorkState::Downloading, tr("Downloading the swarm's model"));
    const std::filesystem::path file = m_options.stateDir / "global.safetensors";
    Result<QJsonObject> done = ask("state download", [&]() -> Result<QJsonObject> {
        // The answer's X-Content-SHA256 header is checked against the file.
        Result<void> got = m_client->download(QStringLiteral("/v1/checkpoint"), file, {});
        if (!got)
            return got.error();
        return QJsonObject();
    });
    if (!done)
        return done.error();
    return file;
}

void SwarmWorker::removeDownloadedState(const std::filesystem::path &file)
{
    // Loaded into the replica, which is saved on its own: the download only took disk space
    // (the person's disk limit counts it).
    std::error_code ec;
    std::filesystem::remove(file, ec);
}

Result<void> SwarmWorker::catchUp()
{
    m_catchUpNeeded = false;
    Result<std::filesystem::path> file = downloadState();
    if (!file)
        return file.error();
    const qint64 before = m_trainer->round();
    if (Result<void> loaded = m_trainer->loadGlobalState(*file); !loaded)
        return loaded.error();
    removeDownloadedState(*file);
    m_dataPlane->resetErrorFeedback();
    m_resyncAtRound.reset();
    m_work = {};
    qCInfo(lcWorker) << "caught up from round" << before << "to the swarm's state of round" << m_trainer->round();
    (void)m_stats->recordEvent(QStringLiteral("resync"),
                               tr("Downloaded the swarm's state of round %1").arg(m_trainer->round()),
                               QDateTime::currentDateTime());
    return m_trainer->saveGlobalState(replicaFile());
}

Result<SwarmWorker::Outcome> SwarmWorker::trainRound()
{
    if (m_trainer->innerStepsDone() >= integer(m_join.value(QLatin1StringView("training")).toObject(), "inner_steps", 1))
        return Outcome::Done;
    if (!m_work.startedAt.isValid())
        m_work.startedAt = QDateTime::currentDateTimeUtc();
    for (;;) {
        setStatus(WorkState::Training, tr("Training round %1").arg(m_trainer->round()));
        const auto started = std::chrono::steady_clock::now();
        const qint64 stepsBefore = m_trainer->innerStepsDone();
        std::optional<std::chrono::steady_clock::time_point> stepStarted;
        const auto shouldStop = [&] {
            // The duty cycle: after a step that took t, rest t * (1 - duty) / duty.
            const double duty = m_gate->duty();
            if (stepStarted && duty < 1.0) {
                const double busy = std::chrono::duration<double>(std::chrono::steady_clock::now() - *stepStarted).count();
                m_gate->sleepFor(int(busy * (1.0 - duty) / duty * 1000.0));
            }
            stepStarted = std::chrono::steady_clock::now();
            if (m_gate->stopRequested() || m_gate->paused() || m_catchUpNeeded)
                return true;
            heartbeatIfDue(QStringLiteral("training"));
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const double tokens = double((m_trainer->innerStepsDone() - stepsBefore) * m_tokensPerStep);
            emitProgress(seconds > 0 ? tokens / seconds : 0.0);
            return m_catchUpNeeded;
        };
        Result<InnerReport> report = m_trainer->trainInner(shouldStop, [this] { return m_gate->interrupted(); });
        if (!report)
            return report.error();
        // A round shorter than the one-second progress cadence still shows its speed.
        if (report->seconds > 0)
            m_status.tokensPerSecond = double(report->tokens) / report->seconds;
        m_work.tokens += report->tokens;
        m_work.flops += report->flops;
        m_work.seconds += report->seconds;
        m_work.lossSum += report->meanLoss * double(report->steps);
        m_work.steps += report->steps;
        if (!report->interrupted)
            return Outcome::Done;
        if (m_gate->stopRequested())
            return Outcome::Stopped;
        if (m_catchUpNeeded)
            return Outcome::CatchUp;
        if (m_gate->releaseRequested()) {
            if (Result<void> released = releaseReplica(); !released)
                return released.error();
        }
        if (!holdWhilePaused())
            return Outcome::Stopped; // leave() copes with a released replica
        if (!m_trainer) {
            if (Result<void> reloaded = reloadReplica(); !reloaded)
                return reloaded.error();
        }
        if (m_catchUpNeeded)
            return Outcome::CatchUp;
    }
}

Result<void> SwarmWorker::releaseReplica()
{
    // What the swarm agreed on is saved; the steps of this round trained so far are dropped
    // (they live in device memory, which is what the person wants back).
    if (Result<void> saved = m_trainer->saveGlobalState(replicaFile()); !saved)
        return saved.error();
    m_releasedRound = m_trainer->round();
    m_trainer.reset();
    m_work = {};
    releaseCachedDeviceMemory();
    qCInfo(lcWorker) << "released the device's memory; round" << m_releasedRound << "starts again on resume";
    return {};
}

Result<void> SwarmWorker::reloadReplica()
{
    if (Result<void> shards = prepareShards(); !shards)
        return shards;
    return prepareReplica();
}

bool SwarmWorker::holdWhilePaused()
{
    if (!m_gate->paused())
        return !m_gate->stopRequested();
    const QString reason = m_gate->pauseReason();
    setStatus(WorkState::Paused, reason);
    (void)m_stats->recordEvent(QStringLiteral("paused"), reason, QDateTime::currentDateTime());
    while (m_gate->paused() && !m_gate->stopRequested()) {
        heartbeatIfDue(QStringLiteral("paused"));
        m_gate->sleepFor(m_heartbeatMs);
    }
    if (m_gate->stopRequested())
        return false;
    (void)m_stats->recordEvent(QStringLiteral("resumed"), tr("Resumed"), QDateTime::currentDateTime());
    return true;
}

Result<SwarmWorker::Outcome> SwarmWorker::waitForRound()
{
    setStatus(WorkState::Waiting, tr("Waiting for round %1 to start").arg(m_trainer->round()));
    for (;;) {
        if (m_gate->stopRequested())
            return Outcome::Stopped;
        if (m_gate->paused()) {
            if (!holdWhilePaused())
                return Outcome::Stopped;
            setStatus(WorkState::Waiting, tr("Waiting for round %1 to start").arg(m_trainer->round()));
        }
        Result<Heartbeat> answer = heartbeat(QStringLiteral("ready"), {}, /*persist=*/true);
        if (!answer)
            return m_gate->stopRequested() ? Result<Outcome>(Outcome::Stopped) : Result<Outcome>(answer.error());
        if (needsCatchUp(*answer))
            return Outcome::CatchUp;
        if (answer->round == m_trainer->round() && answer->roundState == QLatin1StringView("running") && answer->member)
            return Outcome::Done;
        m_gate->sleepFor(std::min(kReadyPollMs, m_heartbeatMs));
    }
}

Result<void> SwarmWorker::runRound()
{
    const qint64 round = m_trainer->round();
    setStatus(WorkState::Averaging, tr("Averaging round %1 with the swarm").arg(round));
    Result<QJsonObject> info = ask("round", [&] { return m_client->getJson(QStringLiteral("/v1/round")); });
    if (!info)
        return info.error();
    if (integer(*info, "round", -1) != round || info->value(QLatin1StringView("state")).toString() != QLatin1StringView("running"))
        return {}; // it moved on meanwhile; the next heartbeat says where to
    QList<AllReduceMember> members;
    QHash<QString, QByteArray> keys;
    for (const QJsonValue &value : info->value(QLatin1StringView("members")).toArray()) {
        const QJsonObject m = value.toObject();
        const QJsonArray range = m.value(QLatin1StringView("range")).toArray();
        AllReduceMember member{m.value(QLatin1StringView("peer_id")).toString(),
                               m.value(QLatin1StringView("endpoint")).toString(), qint64(range.at(0).toDouble()),
                               qint64(range.at(1).toDouble())};
        if (!m.value(QLatin1StringView("reachable")).toBool())
            member.endpoint.clear();
        keys.insert(member.keyId, QByteArray::fromBase64(m.value(QLatin1StringView("public_key")).toString().toLatin1()));
        members.append(member);
    }
    m_dataPlane->setKnownPeers(keys);

    AllReduceOptions options;
    options.timeoutMs = int(std::clamp<qint64>(integer(*info, "deadline_ms") - nowMs(), 2'000, 30 * 60'000));
    const qint64 sentBefore = m_dataPlane->bytesSent(), receivedBefore = m_dataPlane->bytesReceived();
    const CoordinatorClient::Counters httpBefore = m_client->counters();
    const double tokens = double(std::max<qint64>(m_work.tokens, 1));
    Result<AllReduceOutcome> outcome = m_dataPlane->allReduce(
        quint64(round), members, m_trainer->pseudoGradient(), tokens, options,
        [this] {
            heartbeatIfDue(QStringLiteral("training"));
            return !m_gate->stopRequested();
        },
        std::min(kReadyPollMs, m_heartbeatMs));
    if (!outcome) {
        // Not fatal: the round goes on without us and we catch up from the swarm's state.
        if (!m_gate->stopRequested())
            qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(outcome.error().message);
        return {};
    }
    for (const QString &sender : outcome->rejectedSenders)
        qCWarning(lcWorker).noquote() << "round" << round << ": refused the update of" << sender;
    if (Result<void> applied = m_trainer->applyOuterStep(outcome->average); !applied) {
        // Every member got the same average; ours is refused, so the swarm's state is needed.
        qCWarning(lcWorker).noquote() << "round" << round << ":" << toQString(applied.error().message);
        m_resyncAtRound = round + 1;
        m_work = {};
        return {};
    }

    RoundReport report;
    report.round = round;
    report.members = int(members.size());
    report.tokens = m_work.tokens;
    report.flops = m_work.flops;
    report.computeSeconds = m_work.seconds;
    report.loss = m_work.steps > 0 ? m_work.lossSum / double(m_work.steps) : 0.0;
    report.paramsHash = QString::fromStdString(m_trainer->globalHash());
    report.skippedRanges = int(outcome->skippedRanges.size());
    report.rejectedPieces = int(outcome->rejectedSenders.size());

    const QJsonObject contribution{{QStringLiteral("round"), double(round)},
                                   {QStringLiteral("tokens"), double(report.tokens)},
                                   {QStringLiteral("flops"), report.flops},
                                   {QStringLiteral("seconds"), report.computeSeconds},
                                   {QStringLiteral("loss"), report.loss},
                                   {QStringLiteral("params_hash"), report.paramsHash},
                                   {QStringLiteral("bytes_up"), double(m_dataPlane->bytesSent() - sentBefore)},
                                   {QStringLiteral("bytes_down"), double(m_dataPlane->bytesReceived() - receivedBefore)}};
    Result<QJsonObject> verdict = ask("contribution", [&] {
        return m_client->postJson(QStringLiteral("/v1/contribution"), contribution);
    });
    if (!verdict && m_gate->stopRequested())
        return {};
    if (verdict) {
        const QJsonValue accepted = verdict->value(QLatin1StringView("accepted"));
        report.verdictKnown = accepted.isBool();
        report.accepted = accepted.toBool();
        report.credit = verdict->value(QLatin1StringView("credit")).toDouble();
    } else {
        // The round closed without us (its deadline passed); the state may still agree.
        qCWarning(lcWorker).noquote() << "round" << round << ": the contribution was not taken:"
                                      << toQString(verdict.error().message);
    }

    if (verdict && verdict->value(QLatin1StringView("upload_checkpoint")).toBool())
        report.uploadedState = uploadState(round + 1);

    const CoordinatorClient::Counters httpAfter = m_client->counters();
    report.bytesUp = m_dataPlane->bytesSent() - sentBefore + httpAfter.bytesUp - httpBefore.bytesUp;
    report.bytesDown = m_dataPlane->bytesReceived() - receivedBefore + httpAfter.bytesDown - httpBefore.bytesDown;

    Contribution record;
    record.round = round;
    record.swarm = m_options.swarmUrl;
    record.startedAt = m_work.startedAt.isValid() ? m_work.startedAt : QDateTime::currentDateTimeUtc();
    record.finishedAt = QDateTime::currentDateTimeUtc();
    record.tokens = report.tokens;
    record.flops = report.flops;
    record.computeSeconds = report.computeSeconds;
    record.bytesUp = report.bytesUp;
    record.bytesDown = report.bytesDown;
    if (Result<void> recorded = m_stats->recordContribution(record); !recorded)
        qCWarning(lcWorker).noquote() << toQString(recorded.error().message);
    else if (report.verdictKnown)
        (void)m_stats->markAccepted(record.swarm, round, report.accepted, report.credit);

    m_work = {};
    if (Result<void> saved = m_trainer->saveGlobalState(replicaFile()); !saved)
        return saved.error();
    Q_EMIT roundFinished(report);
    return {};
}

bool SwarmWorker::uploadState(qint64 stateRound)
{
    m_uploadRound.reset();
    if (!m_trainer || m_trainer->round() != stateRound)
        return false; // we no longer hold that state
    const std::filesystem::path upload = m_options.stateDir / "upload.safetensors";
    Result<void> saved = m_trainer->saveGlobalState(upload);
    Result<std::vector<std::byte>> bytes = saved ? readFileBytes(upload, kMaxStateBytes)
                                                 : Result<std::vector<std::byte>>(saved.error());
    std::error_code ec;
    std::filesystem::remove(upload, ec);
    if (!bytes) {
        qCWarning(lcWorker).noquote() << "cannot upload state" << stateRound << ":" << toQString(bytes.error().message);
        return false;
    }
    const QByteArray body(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size()));
    Result<QJsonObject> uploaded =
        m_client->postBytes(QStringLiteral("/v1/checkpoint?round=%1").arg(stateRound), body);
    if (!uploaded) {
        qCWarning(lcWorker).noquote() << "state upload failed:" << toQString(uploaded.error().message);
        return false;
    }
    qCInfo(lcWorker) << "uploaded the swarm's state of round" << stateRound;
    return true;
}

Result<SwarmWorker::Heartbeat> SwarmWorker::heartbeat(const QString &state, const QString &reason, bool persist)
{
    QJsonObject body{{QStringLiteral("state"), state},
                     {QStringLiteral("base_round"), double(m_trainer ? m_trainer->round() : 0)},
                     {QStringLiteral("tokens_per_s"), m_status.tokensPerSecond}};
    if (!reason.isEmpty())
        body.insert(QStringLiteral("reason"), reason);
    m_lastHeartbeat = std::chrono::steady_clock::now();
    const auto send = [&] { return m_client->postJson(QStringLiteral("/v1/heartbeat"), body); };
    Result<QJsonObject> answer = persist ? ask("heartbeat", send) : send();
    if (!answer)
        return answer.error();
    Heartbeat beat;
    beat.round = integer(*answer, "round");
    beat.roundState = answer->value(QLatin1StringView("round_state")).toString();
    beat.deadlineMs = integer(*answer, "deadline_ms");
    beat.member = answer->value(QLatin1StringView("member")).toBool();
    beat.checkpointRound = integer(*answer, "checkpoint_round");
    recordVerdict(answer->value(QLatin1StringView("last_contribution")).toObject());
    if (m_uploadRound)
        uploadState(*m_uploadRound);
    return beat;
}

void SwarmWorker::heartbeatIfDue(const QString &state)
{
    if (std::chrono::steady_clock::now() - m_lastHeartbeat < std::chrono::milliseconds(m_heartbeatMs))
        return;
    // One try: a coordinator that is away must not hold up training.
    const QString reason = state == QLatin1StringView("paused") ? m_gate->pauseReason() : QString();
    Result<Heartbeat> answer = heartbeat(state, reason, /*persist=*/false);
    if (!answer)
        qCWarning(lcWorker).noquote() << "heartbeat failed:" << toQString(answer.error().message);
    else if (needsCatchUp(*answer))
        m_catchUpNeeded = true;
}

bool SwarmWorker::needsCatchUp(const Heartbeat &answer) const
{
    const qint64 round = m_trainer ? m_trainer->round() : m_releasedRound;
    // The swarm serves a newer state than ours (we missed a round), or went back to gather a
    // round we already applied (it ended without a majority), or ours was found wrong.
    return answer.checkpointRound > round
           || (answer.round < round && answer.roundState == QLatin1StringView("gathering"))
           || (m_resyncAtRound && answer.checkpointRound >= *m_resyncAtRound);
}

void SwarmWorker::recordVerdict(const QJsonObject &last)
{
    const QJsonValue accepted = last.value(QLatin1StringView("accepted"));
    if (last.isEmpty() || !accepted.isBool())
        return;
    const qint64 round = integer(last, "round", -1);
    // The coordinator asks one accepted member for the agreed state; the verdict came late.
    if (last.value(QLatin1StringView("upload_checkpoint")).toBool() && m_trainer && m_trainer->round() == round + 1)
        m_uploadRound = round + 1;
    Result<std::optional<RecordedContribution>> stored = m_stats->contribution(m_options.swarmUrl, round);
    if (!stored || !*stored || (*stored)->verdict != Verdict::Pending)
        return;
    (void)m_stats->markAccepted(m_options.swarmUrl, round, accepted.toBool(),
                                last.value(QLatin1StringView("credit")).toDouble());
    if (!accepted.toBool() && m_trainer && m_trainer->round() == round + 1) {
        // Our parameters differ from the majority's: take the agreed state when it is served.
        qCWarning(lcWorker) << "round" << round << "was not accepted: this replica differs from the swarm's";
        m_resyncAtRound = round + 1;
    }
}

Result<void> SwarmWorker::leave()
{
    // Tell the coordinator at once, so no round waits for us; one try is enough.
    m_client->resetCancel(); // a stop cancelled what was in flight; this one call is wanted
    const QJsonObject body{{QStringLiteral("state"), QStringLiteral("left")},
                           {QStringLiteral("base_round"), double(m_trainer ? m_trainer->round() : m_releasedRound)}};
    if (Result<QJsonObject> told = m_client->postJson(QStringLiteral("/v1/heartbeat"), body); !told)
        qCWarning(lcWorker).noquote() << "could not tell the coordinator we leave:" << toQString(told.error().message);
    // A released replica was saved when it was released.
    return m_trainer ? m_trainer->saveGlobalState(replicaFile()) : Result<void>{};
}

void SwarmWorker::setStatus(WorkState state, const QString &detail)
{
    if (m_status.state == state && m_status.detail == detail)
        return;
    m_status.state = state;
    m_status.detail = detail;
    m_status.innerSteps = integer(m_join.value(QLatin1StringView("training")).toObject(), "inner_steps");
    if (m_trainer) {
        m_status.round = m_trainer->round();
        m_status.innerStepsDone = m_trainer->innerStepsDone();
    }
    m_lastProgress = std::chrono::steady_clock::now();
    Q_EMIT statusChanged(m_status);
}

void SwarmWorker::emitProgress(double tokensPerSecond)
{
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastProgress < std::chrono::seconds(1))
        return;
    m_lastProgress = now;
    m_status.round = m_trainer->round();
    m_status.innerStepsDone = m_trainer->innerStepsDone();
    m_status.tokensPerSecond = tokensPerSecond;
    Q_EMIT statusChanged(m_status);
}

} // namespace swarmtrain
