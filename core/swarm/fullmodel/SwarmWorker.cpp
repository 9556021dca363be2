#include "SwarmWorker.h"

#include "PeerTokenizer.h"
#include "PipelineWorker.h"

#include "CoordinatorClient.h"
#include "CoordinatorSession.h"
#include "DataPlane.h"
#include "DataShards.h"
#include "DeviceProfile.h"
#include "FileIo.h"
#include "Identity.h"
#include "QtText.h"
#include "ReplicaTrainer.h"
#include "StatsStore.h"
#include "SwarmLog.h"
#include "SwarmState.h"
#include "Trainer.h"
#include "WorkGate.h"

#include <QCryptographicHash>

#include <algorithm>
#include <limits>

namespace swarmtrain {

namespace {

constexpr int kReadyPollMs = 250;
constexpr int kLeaveTimeoutMs = 5'000;

// Every peer trains on its own shards in its own order: the swarm's seed mixed with the key.
std::uint64_t dataSeed(std::uint64_t swarmSeed, const QString &keyId)
{
    const QByteArray digest = QCryptographicHash::hash(keyId.toLatin1(), QCryptographicHash::Sha256);
    std::uint64_t mixed = 0;
    for (int i = 0; i < 8; ++i)
        mixed = (mixed << 8) | std::uint8_t(digest[i]);
    return swarmSeed ^ mixed;
}

ReplicaOptions replicaOptions(const TrainingSettings &training)
{
    ReplicaOptions o;
    o.batchSize = training.batchSize;
    // A time-budgeted round runs up to its cap. The schedule counts the swarm's tokens as the
    // state records them (the rounds' advances); H a round for a state from before that.
    o.innerSteps = training.stepCap();
    o.scheduleStepsPerRound = training.innerSteps;
    // Without a decay horizon (an open-ended swarm) the full rate stays after warm-up.
    o.schedule = {training.lr, training.minLr, training.warmupIters,
                  training.lrDecayIters > 0 ? training.lrDecayIters : std::numeric_limits<std::int64_t>::max()};
    o.weightDecay = training.weightDecay;
    o.eps = training.adamEps;
    o.gradClip = training.gradClip;
    o.outerLr = training.outerLr;
    o.outerMomentum = training.outerMomentum;
    o.keepInnerStateAcrossRounds = training.innerStateKept;
    return o;
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
        if (result && m_session->joined().pipeline) {
            result = runPipeline();
            if (Result<void> left = m_session->leave(-1); !left && !m_gate->stopRequested())
                qCWarning(lcWorker).noquote() << "cannot say goodbye:" << toQString(left.error());
        } else if (result) {
            result = prepareReplica();
        }
        while (result && m_trainer && !m_gate->stopRequested()) {
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
            if (*trained == Outcome::SitOut) {
                result = sitOutRounds();
                continue;
            }
            Result<Outcome> waited = *trained == Outcome::Verify ? Result<Outcome>(Outcome::Verify) : waitForRound();
            if (!waited)
                result = waited.error();
            else if (*waited == Outcome::CatchUp)
                result = catchUp();
            else if (*waited == Outcome::Verify)
                result = runSpotCheck();
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
                qCWarning(lcWorker).noquote() << toQString(left.error());
        } catch (const std::exception &e) {
            qCWarning(lcWorker) << "cannot save the replica:" << e.what();
        }
    }
    if (!result && !stopped) {
        const QString message = toQString(result.error());
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
    // A data plane on one address of several: the coordinator accepts its endpoint only from it.
    const QHostAddress listen(m_options.listenAddress);
    if (!listen.isNull() && listen != QHostAddress::AnyIPv4 && listen != QHostAddress::AnyIPv6 && listen != QHostAddress::Any)
        clientOptions.sourceAddress = listen.toString();
    clientOptions.allowPlainHttp = m_options.allowPlainHttp;
    m_client = std::make_unique<CoordinatorClient>(*m_identity, clientOptions);
    m_gate->setStopHook([client = m_client.get()] { client->cancel(); });
    m_session = std::make_unique<CoordinatorSession>(*m_client, *m_gate, [this](std::optional<int> retryInMs) {
        if (!retryInMs) {
            if (m_statusBeforeOutage)
                setStatus(m_statusBeforeOutage->state, m_statusBeforeOutage->detail);
            m_statusBeforeOutage.reset();
            return;
        }
        if (!m_statusBeforeOutage)
            m_statusBeforeOutage = m_status;
        setStatus(WorkState::Joining,
                  tr("Cannot reach the swarm's coordinator; trying again in %1 s").arg(*retryInMs / 1000));
    });

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
        m_endpoint = host + QLatin1Char(':') + QString::number(m_options.announcedPort ? m_options.announcedPort : *port);
        m_listenPort = *port;
    }
    configureThreads(m_options.threads);
    qCInfo(lcWorker).noquote() << "peer" << m_identity->keyId() << "data plane"
                               << (m_endpoint.isEmpty() ? QStringLiteral("outbound only") : m_endpoint);
    return {};
}

Result<void> SwarmWorker::join()
{
    setStatus(WorkState::Joining, tr("Joining the swarm at %1").arg(m_options.swarmUrl));
    Result<DeviceReport> device = loadOrMeasureDeviceProfile(
        m_options.stateDir, {m_options.device, m_options.threads, m_options.deviceMemoryBudget, m_options.gpuProbeCommand});
    if (!device)
        return device.error();
    JoinRequest request;
    request.publicKey = m_identity->publicKey();
    request.device = *device;
    request.endpoint = m_endpoint;
    request.invite = m_options.inviteToken;
    request.displayName = m_options.displayName;
    request.clientVersion = QStringLiteral("swarmtrain " SWARMTRAIN_VERSION);
    Result<JoinAnswer> answer = m_session->join(request);
    if (!answer)
        return answer.error();
    qCInfo(lcWorker).noquote() << "joined; round" << answer->round << (answer->reachable ? "reachable" : "outbound only");
    (void)m_stats->recordEvent(QStringLiteral("joined"), tr("Joined the swarm at %1").arg(m_options.swarmUrl),
                               QDateTime::currentDateTime());
    return {};
}

Result<void> SwarmWorker::runPipeline()
{
    // Pipeline mode serves its stage on a transport of its own, on the port the join announced.
    m_dataPlane.reset();
    PipelineWorker::Hooks hooks;
    hooks.status = [this](WorkState state, const QString &detail) { setStatus(state, detail); };
    hooks.progress = [this](const WorkStatus &progress) {
        // The figures are the pipeline worker's; what it is doing stays what hooks.status said.
        WorkStatus next = progress;
        next.state = m_status.state;
        next.detail = m_status.detail;
        m_status = next;
        const auto now = std::chrono::steady_clock::now();
        if (now - m_lastProgress < std::chrono::seconds(1))
            return;
        m_lastProgress = now;
        Q_EMIT statusChanged(m_status);
    };
    hooks.stepFinished = [this](const RoundReport &report) {
        // What this PC did for the step, as the full-model rounds record theirs.
        Contribution record;
        record.round = report.round;
        record.swarm = m_options.swarmUrl;
        record.startedAt = record.finishedAt = QDateTime::currentDateTimeUtc();
        record.tokens = report.tokens;
        record.bytesUp = report.bytesUp;
        record.bytesDown = report.bytesDown;
        if (Result<void> recorded = m_stats->recordContribution(record); !recorded)
            qCWarning(lcWorker).noquote() << toQString(recorded.error());
        Q_EMIT roundFinished(report);
    };
    hooks.credited = [this](const PipelineAnswer::Credited &credited) {
        // Steps this PC did not apply have no record to mark.
        Result<std::optional<RecordedContribution>> stored = m_stats->contribution(m_options.swarmUrl, credited.step);
        if (stored && *stored && (*stored)->verdict == Verdict::Pending)
            (void)m_stats->markAccepted(m_options.swarmUrl, credited.step, credited.microbatches > 0, credited.credit);
    };
    PipelineWorker worker(m_options, *m_gate, *m_session, *m_identity, std::move(m_tokens), std::move(hooks));
    return worker.run(m_listenPort);
}

Result<void> SwarmWorker::prepareShards()
{
    Result<std::vector<std::int32_t>> tokens =
        loadAssignedShards(m_session->joined(), m_options.stateDir / "shards", *m_session, [this](int index, int count) {
            setStatus(WorkState::Downloading, tr("Downloading data shard %1 of %2").arg(index).arg(count));
        });
    if (!tokens)
        return tokens.error();
    m_tokens = std::move(tokens).value();
    return {};
}

ReplicaOptions SwarmWorker::replicaOptionsOf(const QString &keyId) const
{
    const JoinAnswer &joined = m_session->joined();
    ReplicaOptions o = replicaOptions(joined.training);
    o.seed = dataSeed(joined.training.seed, keyId);
    o.device = m_options.device;
    o.deviceMemoryBudget = m_options.deviceMemoryBudget;
    return o;
}

Result<void> SwarmWorker::prepareReplica()
{
    const JoinAnswer &joined = m_session->joined();
    const ReplicaOptions o = replicaOptionsOf(m_identity->keyId());

    // The replica saved when this peer last stopped or put it aside, if it is still of use: not
    // older than the state the coordinator serves, not newer than its current round.
    std::filesystem::path stateFile = replicaFile();
    bool useLocal = false;
    if (std::filesystem::exists(stateFile)) {
        const auto [served, current] = m_swarmRounds.value_or(std::make_pair(joined.checkpoint.round, joined.round));
        Result<SwarmStateInfo> local = inspectSwarmState(stateFile);
        useLocal = local && local->round >= served && local->round <= current
                   && local->config.toJson() == joined.model.toJson();
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
    // The shards were checked against the join answer's tokenizer; the state must hold that one too.
    if (const std::string why = tokenizerMismatch(m_trainer->tokenizer(), joined.tokenizer); !why.empty())
        return makeError("the swarm's state is refused: its tokenizer is not the join answer's: " + why);
    if (Result<void> set = m_trainer->setTrainingTokens(std::exchange(m_tokens, {})); !set)
        return set.error();
    m_tokensPerStep = qint64(o.batchSize) * m_trainer->config().blockSize;
    QString settings;
    if (o.keepInnerStateAcrossRounds)
        settings += QStringLiteral(", its inner optimizer kept from round to round");
    if (o.eps != ReplicaOptions{}.eps)
        settings += QStringLiteral(", inner AdamW epsilon %1").arg(o.eps);
    qCInfo(lcWorker).noquote() << "replica at round" << m_trainer->round() << "on" << toQString(m_trainer->deviceName())
                               << (useLocal ? QStringLiteral("(saved locally)") : QStringLiteral("(downloaded)")) + settings;
    return {};
}

Result<std::filesystem::path> SwarmWorker::downloadState(std::optional<qint64> round)
{
    setStatus(WorkState::Downloading, tr("Downloading the swarm's model"));
    const std::filesystem::path file = m_options.stateDir / "global.safetensors";
    const QString path = round ? QStringLiteral("/v1/checkpoint?round=%1").arg(*round) : QStringLiteral("/v1/checkpoint");
    // The answer's X-Content-SHA256 header is checked against the file.
    if (Result<void> got = m_session->download(path, file, {}); !got)
        return got.error();
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
        // Not ready while our state may not be the swarm's: training on it would not count.
        const bool doubt = stateInDoubt();
        Result<HeartbeatAnswer> answer = heartbeat(doubt ? QStringLiteral("training") : QStringLiteral("ready"), {},
                                                   /*persist=*/true);
        if (!answer)
            return m_gate->stopRequested() ? Result<Outcome>(Outcome::Stopped) : Result<Outcome>(answer.error());
        if (needsCatchUp(*answer))
            return Outcome::CatchUp;
        if (m_spotCheck)
            return Outcome::Verify;
        if (doubt && !stateInDoubt())
            continue; // the verdict came and holds: ready now
        // The round that may take us (an asynchronous one, newer than our state): the others'
        // frames of it are held, not refused, until our all-reduce starts.
        if (joinable(answer->round))
            m_dataPlane->expectRound(quint64(answer->round));
        if (joinable(answer->round) && answer->roundState == QLatin1StringView("running") && answer->member)
            return Outcome::Done;
        m_gate->sleepFor(int(std::min<qint64>(kReadyPollMs, m_session->joined().heartbeatIntervalMs)));
    }
}


Result<HeartbeatAnswer> SwarmWorker::heartbeat(const QString &state, const QString &reason, bool persist)
{
    HeartbeatRequest request{state, m_trainer ? m_trainer->round() : 0, m_status.tokensPerSecond, reason, {},
                             m_trainer ? m_trainer->innerStepsDone() : 0};
    for (const LinkMeasurement &link : m_dataPlane->takeLinkMeasurements())
        request.links.push_back({link.peerKeyId, link.rttMs, link.bytesPerSecond});
    request.links.resize(std::min(request.links.size(), std::size_t(protocol::kMaxLinkReports)));
    m_lastHeartbeat = std::chrono::steady_clock::now();
    Result<HeartbeatAnswer> answer = m_session->heartbeat(request, persist);
    if (!answer)
        return answer.error();
    m_swarmRounds = std::make_pair(answer->checkpointRound, answer->round);
    m_budgetMs = answer->budgetMs;
    m_straggler = answer->straggler;
    m_dataPlane->exchangeProbes(answer->probe);
    m_lastVerdict = answer->lastContribution;
    if (answer->lastContribution)
        recordVerdict(*answer->lastContribution);
    if (m_uploadRound)
        uploadState(*m_uploadRound);
    if (answer->uploadUpdateRound && m_updateUploaded != answer->uploadUpdateRound)
        uploadUpdate(*answer->uploadUpdateRound);
    const auto doneAlready = [&](const SpotCheckTask &task) {
        return m_checkDone && m_checkDone->first == task.round && m_checkDone->second == task.peerId;
    };
    // A check is taken on once the member's update is in: until then this peer trains on.
    if (answer->spotCheck && answer->spotCheck->updateReady && !m_spotCheck && !doneAlready(*answer->spotCheck)
        && state != QLatin1StringView("verifying"))
        m_spotCheck = answer->spotCheck;
    return answer;
}

void SwarmWorker::heartbeatIfDue(const QString &state)
{
    const auto interval = std::chrono::milliseconds(m_session->joined().heartbeatIntervalMs);
    if (std::chrono::steady_clock::now() - m_lastHeartbeat < interval)
        return;
    // One try: a coordinator that is away must not hold up training.
    const QString reason = state == QLatin1StringView("paused") ? m_gate->pauseReason() : QString();
    Result<HeartbeatAnswer> answer = heartbeat(state, reason, /*persist=*/false);
    if (!answer)
        qCWarning(lcWorker).noquote() << "heartbeat failed:" << toQString(answer.error());
    else if (needsCatchUp(*answer))
        m_catchUpNeeded = true;
}

bool SwarmWorker::joinable(qint64 round) const
{
    const TrainingSettings &training = m_session->joined().training;
    const qint64 base = m_trainer->round();
    return round == base || (training.asyncRounds && round > base && round - base <= training.maxStaleness);
}

bool SwarmWorker::stateInDoubt() const
{
    // A synchronous swarm's member whose state came from a round the coordinator did not accept
    // (it applied something else than the agreed update), or whose verdict is still pending while
    // that round is open, says "training" rather than "ready": work trained on a state that is not
    // the swarm's would go into the next round's average from the wrong base. It catches up once
    // the agreed state is served (needsCatchUp()). An asynchronous swarm takes stale work by
    // design, weighed down.
    if (!m_trainer || m_session->joined().training.asyncRounds)
        return false;
    const qint64 base = m_trainer->round();
    if (m_resyncAtRound && *m_resyncAtRound == base)
        return true;
    // Our state is our own round's result, whose verdict we have not heard while that round is
    // still the swarm's (as far as we know): one heartbeat more tells.
    const bool verdictKnown = m_lastVerdict && m_lastVerdict->round + 1 == base && m_lastVerdict->accepted.has_value();
    return m_contributedRound == base - 1 && !verdictKnown && m_swarmRounds && m_swarmRounds->second == base - 1;
}

bool SwarmWorker::needsCatchUp(const HeartbeatAnswer &answer) const
{
    const qint64 round = m_trainer ? m_trainer->round() : m_releasedRound;
    // An asynchronous swarm takes work trained on a state a few rounds old.
    const TrainingSettings &training = m_session->joined().training;
    const qint64 lag = training.asyncRounds ? training.maxStaleness : 0;
    // The swarm serves a newer state than ours (we missed a round, or, asynchronous, too many),
    // or went back to gather a round we already applied (it ended without a majority), or ours
    // was found wrong.
    return answer.checkpointRound > round + lag
           || (answer.round < round && answer.roundState == QLatin1StringView("gathering"))
           || (m_resyncAtRound && answer.checkpointRound >= *m_resyncAtRound);
}

void SwarmWorker::recordVerdict(const ContributionVerdictInfo &last)
{
    if (!last.accepted)
        return;
    // The coordinator asks one accepted member for the agreed state; the verdict came late.
    if (last.uploadCheckpoint && m_trainer && m_trainer->round() == last.round + 1)
        m_uploadRound = last.round + 1;
    Result<std::optional<RecordedContribution>> stored = m_stats->contribution(m_options.swarmUrl, last.round);
    if (!stored || !*stored || (*stored)->verdict != Verdict::Pending)
        return;
    (void)m_stats->markAccepted(m_options.swarmUrl, last.round, *last.accepted, last.credit);
    if (!*last.accepted && m_trainer && m_trainer->round() == last.round + 1)
        replicaRejected(last.round);
}

void SwarmWorker::replicaRejected(qint64 round)
{
    // Our parameters differ from the majority's: take the agreed state when it is served.
    qCWarning(lcWorker) << "round" << round << "was not accepted: this replica differs from the swarm's";
    m_resyncAtRound = round + 1;
}

Result<void> SwarmWorker::leave()
{
    // The replica first (a released one was saved when it was released): a coordinator that
    // does not answer must not stand between Ctrl-C and what this peer keeps.
    Result<void> saved = m_trainer ? m_trainer->saveGlobalState(replicaFile()) : Result<void>{};
    // Tell the coordinator, so no round waits for us: one short try, not the session's
    // retries (minutes when the coordinator is away), which would make Ctrl-C hang.
    CoordinatorClientOptions once;
    once.baseUrl = m_options.swarmUrl;
    once.pinnedPublicKey = m_options.pinnedPublicKey;
    once.maxAttempts = 1;
    once.connectTimeoutMs = kLeaveTimeoutMs;
    once.requestTimeoutMs = kLeaveTimeoutMs;
    CoordinatorClient client(*m_identity, once);
    // A program that quits does not wait for it (WorkGate::abandon).
    m_gate->setAbandonHook([&client] { client.cancel(); });
    if (m_gate->abandoned())
        client.cancel();
    CoordinatorSession session(client, *m_gate, [](std::optional<int>) {});
    Result<void> told = session.leave(m_trainer ? m_trainer->round() : m_releasedRound);
    m_gate->setAbandonHook({});
    if (!told && m_gate->abandoned())
        qCInfo(lcWorker) << "gave up telling the coordinator we leave, to quit at once; it drops this peer when its"
                            " heartbeats stop";
    else if (!told)
        qCWarning(lcWorker).noquote() << "could not tell the coordinator we leave:" << toQString(told.error());
    return saved;
}

void SwarmWorker::setStatus(WorkState state, const QString &detail)
{
    if (m_status.state == state && m_status.detail == detail)
        return;
    m_status.state = state;
    m_status.detail = detail;
    m_status.innerSteps = m_session && m_session->hasJoined() ? m_session->joined().training.innerSteps : 0;
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
    m_status.budgetSeconds = double(m_budgetMs) / 1000.0;
    Q_EMIT statusChanged(m_status);
}

} // namespace swarmtrain
