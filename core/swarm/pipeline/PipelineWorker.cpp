#include "PipelineWorker.h"

#include "CoordinatorSession.h"
#include "DeviceMemory.h"
#include "Identity.h"
#include "PeerTokenizer.h"
#include "PipelineStage.h"
#include "SwarmLog.h"
#include "Tokenizer.h"
#include "WorkGate.h"

#include <QHostAddress>

#include <algorithm>

namespace swarmtrain {

namespace {

using L = QLatin1StringView;
using Clock = std::chrono::steady_clock;

constexpr int kPollMs = 200;
constexpr int kEagerPolls = 4; // polls in a row without the pause, at most
constexpr int kEvalBatches = 4;
// A stage peer that still lacks a closed trainer's count after this long sits the step out.
constexpr auto kCloseWait = std::chrono::seconds(10);
// A resync the neighbour refused (it sends its state at most every 10 s) is asked again after this.
constexpr auto kResyncRetry = std::chrono::seconds(11);
constexpr int kStepTimeoutMs = 60'000;
// The stage's state for an export waits behind the stage's queued work at most this long.
constexpr auto kExportWait = std::chrono::seconds(60);

QString toQString(const std::string &text) { return QString::fromStdString(text); }

} // namespace

PipelineWorker::PipelineWorker(const WorkerOptions &options, WorkGate &gate, CoordinatorSession &session, const Identity &identity,
                               std::vector<std::int32_t> tokens, Hooks hooks)
    : m_options(options)
    , m_gate(gate)
    , m_session(session)
    , m_identity(identity)
    , m_hooks(std::move(hooks))
    , m_train(std::move(tokens))
    , m_rng(std::hash<std::string>{}(identity.keyId().toStdString()))
{
}

PipelineWorker::~PipelineWorker() = default;

Result<void> PipelineWorker::setUp(quint16 port)
{
    const JoinAnswer &joined = m_session.joined();
    m_settings = *joined.pipeline;
    m_config = joined.model;
    Result<WirePrecision> precision = parseWirePrecision(m_settings.precision.toStdString());
    if (!precision)
        return precision.error();
    m_precision = *precision;
    Result<std::vector<StageSpan>> spans = partitionStages(m_config, m_settings.stages);
    if (!spans)
        return makeError("the swarm's pipeline cannot be split: " + spans.error().message);
    m_spans = std::move(*spans);
    // This peer builds its stage without a whole-model state file: the tokenizer comes on its
    // own, and must be the one the join answer names (its shards were checked against it).
    Result<Tokenizer> tokenizer = fetchSwarmTokenizer(joined, m_session, m_options.stateDir);
    if (!tokenizer)
        return tokenizer.error();
    if (tokenizer->vocabSize() > m_config.vocabSize)
        return makeError("the swarm's tokenizer has more tokens than its model");
    if (Result<ValidationSample> sample = m_session.validationSample(); sample)
        m_validation = std::move(sample->tokens);
    else
        qCWarning(lcWorker).noquote() << "no validation sample:" << QString::fromStdString(sample.error().message);
    if (int(m_train.size()) <= m_config.blockSize)
        return makeError("the data shards hold fewer tokens than one block");
    m_plane = std::make_unique<PipelinePlane>(m_identity);
    m_plane->setMisbehaviour(m_options.misbehaviour);
    m_plane->setCrossCheckShare(m_settings.crossCheckShare);
    if (!m_options.listenAddress.isEmpty()) {
        Result<quint16> listening = m_plane->listen(QHostAddress(m_options.listenAddress), port);
        if (!listening)
            return listening.error();
    }
    qCInfo(lcWorker).noquote() << "pipeline-stage mode:" << m_settings.stages << "stages," << m_settings.microbatchesPerStep
                               << "microbatches a step," << m_settings.precision << "on the wire";
    return {};
}

Result<void> PipelineWorker::run(quint16 port)
{
    if (Result<void> ready = setUp(port); !ready)
        return ready;
    while (!m_gate.stopRequested()) {
        if (m_gate.paused()) {
            if (m_stage >= 0) {
                m_plane->clearStage();
                releaseCachedDeviceMemory(); // the stage's device memory goes back to the game
                m_stage = -1;
            }
            m_hooks.status(WorkState::Paused, tr("Paused: %1").arg(m_gate.pauseReason()));
            m_gate.sleepFor(1000);
            continue;
        }
        Result<PipelineAnswer> answer = m_session.pipeline(request());
        if (!answer) {
            if (m_gate.stopRequested())
                break;
            return answer.error();
        }
        m_acted = false;
        if (Result<void> followed = follow(*answer); !followed)
            return followed;
        // A report just made, or a phase just entered, goes to the coordinator at once: each of
        // a step's phases waits for someone's report, so a poll's pause there is the step's too.
        if (!m_acted || ++m_eagerPolls > kEagerPolls) {
            m_eagerPolls = 0;
            m_gate.sleepFor(kPollMs);
        }
    }
    return {};
}

PipelineRequest PipelineWorker::request()
{
    const PipelinePlaneState state = m_plane->state();
    PipelineRequest r = m_report.request;
    // A trainer says who served its microbatches for as long as the step it closed is open: a
    // replay of a vanished peer's work moves some of them while the step closes (again).
    if (m_stage == 0 && m_closedStep >= 0 && m_closedStep == m_seenStep && (r.report.isEmpty() || r.step == m_closedStep)) {
        r.step = m_closedStep;
        r.servedBy = m_plane->servedBy(std::uint64_t(m_closedStep));
    }
    r.stage = state.stage;
    r.stateSteps = state.stateSteps;
    r.hash = state.stage >= 0 ? state.hash : QString();
    // Counts start again with each stage.
    if (state.served < m_servedReported || state.busySeconds < m_busyReported)
        m_servedReported = 0, m_busyReported = 0.0;
    // Rates over a second of compute, or five seconds of wall time: a poll's worth says too little.
    const bool due = state.busySeconds - m_busyReported >= 1.0
                     || (Clock::now() - m_rateSince > std::chrono::seconds(5) && state.busySeconds - m_busyReported >= 0.005);
    if (due && state.served > m_servedReported) {
        m_rateSince = Clock::now();
        r.served = state.served - m_servedReported;
        r.busySeconds = state.busySeconds - m_busyReported;
        m_servedReported = state.served;
        m_busyReported = state.busySeconds;
    }
    return r;
}

Result<void> PipelineWorker::follow(const PipelineAnswer &answer)
{
    if (answer.step != m_seenStep || answer.attempt != m_seenAttempt) {
        m_seenStep = answer.step;
        m_seenAttempt = answer.attempt;
        m_report = {}; // the last step's (or attempt's) report has done its work
        m_acted = true;
    }
    if (answer.phase != m_seenPhase) {
        m_seenPhase = answer.phase;
        m_acted = true;
    }
    if (answer.credited && answer.credited->step != m_creditedStep) {
        m_creditedStep = answer.credited->step;
        if (m_hooks.credited)
            m_hooks.credited(*answer.credited);
    }
    if (answer.stage < 0) {
        m_hooks.status(WorkState::Waiting, tr("Waiting for the coordinator to place this PC in the pipeline"));
        return {};
    }
    if (answer.stage != m_stage) {
        if (Result<void> held = holdStage(answer.stage); !held)
            return held;
    }
    if (const quint64 round = pipelineAllReduceRound(answer.step, answer.attempt); m_expectedRound != round) {
        // A replica that sat steps out (resyncing, unready) would otherwise refuse its group's
        // first frames of this step as too far ahead of the last step it ran, and be cut off.
        m_expectedRound = round;
        m_plane->expectRound(round);
    }
    QHash<QString, QByteArray> keys;
    std::vector<QHash<QString, QString>> stagePeers(std::size_t(m_settings.stages));
    for (const PipelinePeerInfo &peer : answer.peers) {
        keys.insert(peer.peerId, peer.publicKey);
        if (peer.member && !peer.endpoint.isEmpty() && peer.stage < m_settings.stages)
            stagePeers[std::size_t(peer.stage)].insert(peer.peerId, peer.endpoint);
    }
    m_plane->setKnownPeers(keys);
    if (m_stage == 0)
        m_plane->setSuspects(answer.suspects);
    if (answer.phase == L("stepping") && !answer.group.isEmpty()) {
        step(answer);
    } else if (!answer.member) {
        resync(answer);
    } else if (m_stage == 0 && answer.phase == L("training")) {
        m_plane->setStagePeers(stagePeers);
        train(answer);
    } else if (m_stage > 0 && answer.phase == L("closing")) {
        close(answer);
    } else if (m_stage == 0 && answer.phase == L("closing") && m_closedStep == answer.step && !answer.leftOut.isEmpty()) {
        m_plane->leaveOut(std::uint64_t(answer.step), answer.leftOut);
    }
    if (!answer.uploadState.isEmpty())
        uploadState(answer);
    publish(answer);
    return {};
}

Result<void> PipelineWorker::holdStage(int stage)
{
    if (stage >= m_settings.stages)
        return makeError("the coordinator placed this peer on a stage the pipeline does not have");
    m_hooks.status(WorkState::Downloading, tr("Building pipeline stage %1 of %2").arg(stage + 1).arg(m_settings.stages));
    PipelineStageOptions options;
    options.seed = m_session.joined().training.seed;
    options.device = m_options.device;
    options.deviceMemoryBudget = m_options.deviceMemoryBudget;
    options.microbatchSize = m_settings.microbatchSize;
    Result<std::unique_ptr<PipelineStage>> built = PipelineStage::create(m_config, m_spans[std::size_t(stage)], options);
    if (!built && options.device != "cpu") {
        // A GPU too full to take even one engine stage (a game holds it): the CPU serves.
        qCWarning(lcWorker).noquote() << "cannot serve pipeline stage" << stage << "through the GPU:"
                                      << QString::fromStdString(built.error().message) << "- computing it on the CPU";
        options.device = "cpu";
        built = PipelineStage::create(m_config, m_spans[std::size_t(stage)], options);
    }
    if (!built)
        return built.error();
    const std::string serving = (*built)->serving();
    if (Result<void> set = m_plane->setStage(stage, std::move(*built), m_settings.stages, m_precision, m_settings.microbatchSize);
        !set)
        return set;
    m_stage = stage;
    m_drivenStep = m_closedStep = -1;
    m_stepStarted = m_closingFor = m_expectedRound = 0;
    m_resyncing = false;
    qCInfo(lcWorker).noquote() << "serving pipeline stage" << stage << "of" << m_settings.stages << "on"
                               << QString::fromStdString(serving);
    return {};
}

void PipelineWorker::resync(const PipelineAnswer &answer)
{
    const PipelinePlaneState state = m_plane->state();
    if (m_resyncing && state.resyncOutcome) {
        m_resyncing = false;
        if (state.resyncOutcome->first)
            qCInfo(lcWorker).noquote() << "took stage" << m_stage << "'s state from a neighbour:" << state.resyncOutcome->second;
        else
            qCWarning(lcWorker).noquote() << "could not take the stage's state:" << state.resyncOutcome->second;
    }
    if (answer.resyncFrom.isEmpty() || m_resyncing || Clock::now() - m_resyncAsked < kResyncRetry)
        return;
    const auto source = std::find_if(answer.peers.begin(), answer.peers.end(),
                                     [&](const PipelinePeerInfo &peer) { return peer.peerId == answer.resyncFrom; });
    if (source == answer.peers.end() || source->endpoint.isEmpty())
        return;
    m_hooks.status(WorkState::Downloading, tr("Taking pipeline stage %1's state from a neighbour").arg(m_stage + 1));
    m_resyncAsked = Clock::now();
    m_resyncing = true;
    m_plane->resyncFrom(source->peerId, source->endpoint);
}

void PipelineWorker::uploadState(const PipelineAnswer &answer)
{
    if (answer.uploadState == m_uploadedState || answer.uploadState != m_plane->state().hash)
        return; // sent already, or the stage moved on from it
    // One try: the coordinator asks another member of the stage when this one fails.
    m_uploadedState = answer.uploadState;
    auto state = m_plane->exportState(kExportWait);
    if (!state || state->first != answer.uploadState)
        return;
    if (m_options.misbehaviour.stageState)
        m_options.misbehaviour.stageState(state->second);
    if (Result<void> sent = m_session.uploadStageState(m_stage, state->first, state->second); !sent)
        qCWarning(lcWorker).noquote() << "could not upload stage" << m_stage << "'s state for the model's export:"
                                      << QString::fromStdString(sent.error().message);
    else
        qCInfo(lcWorker).noquote() << "uploaded stage" << m_stage << "'s state for the model's export";
}

std::vector<Microbatch> PipelineWorker::microbatches(const std::vector<std::int32_t> &tokens, int count, std::uint64_t step)
{
    const int block = m_config.blockSize;
    const MicrobatchShape shape{m_settings.microbatchSize, block};
    std::uniform_int_distribution<std::size_t> start(0, tokens.size() - std::size_t(block) - 1);
    std::vector<Microbatch> batches;
    for (int i = 0; i < count; ++i) {
        Microbatch batch{m_nextId++, step, shape, {}, {}};
        for (int row = 0; row < shape.batch; ++row) {
            const std::size_t at = start(m_rng);
            batch.tokens.insert(batch.tokens.end(), tokens.begin() + std::ptrdiff_t(at), tokens.begin() + std::ptrdiff_t(at) + block);
            batch.targets.insert(batch.targets.end(), tokens.begin() + std::ptrdiff_t(at) + 1,
                                 tokens.begin() + std::ptrdiff_t(at) + block + 1);
        }
        batches.push_back(std::move(batch));
    }
    return batches;
}

void PipelineWorker::train(const PipelineAnswer &answer)
{
    if (m_closedStep == answer.step)
        return;
    if (m_drivenStep != answer.step) {
        m_drivenStep = answer.step;
        m_share = answer.share;
        m_evalLoss = -1.0;
        // One trainer measures the validation loss: the first of the step's trainers.
        QStringList trainers;
        for (const PipelinePeerInfo &peer : answer.peers) {
            if (peer.member && peer.stage == 0)
                trainers.append(peer.peerId);
        }
        std::sort(trainers.begin(), trainers.end());
        m_evaluating = m_settings.evalEvery > 0 && answer.step % m_settings.evalEvery == 0 && !trainers.isEmpty()
                       && trainers.front() == m_identity.keyId() && int(m_validation.size()) > m_config.blockSize;
        if (m_evaluating)
            m_plane->evaluate(microbatches(m_validation, kEvalBatches, std::uint64_t(answer.step)));
        m_plane->drive(microbatches(m_train, m_share, std::uint64_t(answer.step)));
        m_hooks.status(WorkState::Training, tr("Training: pipeline stage 1 of %1, step %2").arg(m_settings.stages).arg(answer.step));
    }
    const PipelinePlaneState state = m_plane->state();
    if (m_evaluating && state.evalOutcome) {
        m_evaluating = false;
        m_evalLoss = state.evalOutcome->first ? state.evalOutcome->second : -1.0;
    }
    if (m_evaluating || state.done + state.failed < m_share || state.inFlight > 0)
        return;
    if (Result<void> closed = m_plane->closeStep(std::uint64_t(answer.step)); !closed)
        return; // a replay is still running: next time
    m_closedStep = answer.step;
    setReport(answer, QStringLiteral("closed"));
    m_report.request.microbatches = state.done;
    m_report.request.dropped = state.failed;
    m_report.request.lossSum = state.lossSum;
    m_report.request.evalLoss = m_evalLoss;
    m_report.request.wrongAnswers = m_plane->takeWrongAnswerers().mid(0, protocol::kMaxWrongAnswerers);
}

void PipelineWorker::close(const PipelineAnswer &answer)
{
    const bool ready = m_report.request.report == L("ready");
    if (m_report.pending() && !ready)
        return;
    const qint64 served = m_plane->state().served;
    if (const quint64 round = pipelineAllReduceRound(answer.step, answer.attempt); m_closingFor != round || served != m_closingServed) {
        // A new closing, or work (a replay of a vanished peer's microbatches) still arriving:
        // the wait starts again. A fixed wait would give up on a replay that a busy machine
        // computes slower, and the stage would apply none of the step.
        m_closingFor = round;
        m_closingServed = served;
        m_closingSince = Clock::now();
    }
    // Said again whenever the count held changes: a replay of a vanished peer's work lands here,
    // and the coordinator waits for the stage's counts to add up before the stage steps again.
    if (const std::optional<int> held = m_plane->readyForStep(std::uint64_t(answer.step), answer.closedTrainers)) {
        if (!ready || m_report.request.microbatches != *held) {
            setReport(answer, QStringLiteral("ready"));
            m_report.request.microbatches = *held;
        }
    } else if (!ready && Clock::now() - m_closingSince > kCloseWait) {
        setReport(answer, QStringLiteral("unready"));
        m_report.request.why = QStringLiteral("a closed trainer's count never arrived here");
    }
}

void PipelineWorker::step(const PipelineAnswer &answer)
{
    if (const quint64 round = pipelineAllReduceRound(answer.step, answer.attempt); m_stepStarted != round) {
        m_stepStarted = round;
        StageStepPlan plan;
        plan.step = std::uint64_t(answer.step);
        plan.round = round;
        plan.requireComplete = answer.attempt + 1 < protocol::kMaxStepAttempts;
        for (const QString &id : answer.group) {
            const auto peer = std::find_if(answer.peers.begin(), answer.peers.end(), [&](const auto &p) { return p.peerId == id; });
            plan.members.append(AllReduceMember{id, peer != answer.peers.end() ? peer->endpoint : QString(), 0, 0});
        }
        plan.microbatches = answer.microbatches;
        plan.lr = m_session.joined().training.lr;
        plan.gradClip = m_session.joined().training.gradClip;
        plan.timeoutMs = kStepTimeoutMs;
        plan.placeInPipeline(m_config, m_spans, m_stage);
        m_hooks.status(WorkState::Averaging, tr("Averaging pipeline stage %1's gradients").arg(m_stage + 1));
        if (Result<void> started = m_plane->startStep(plan); !started) {
            setReport(answer, QStringLiteral("failed"));
            m_report.request.why = toQString(started.error().message);
        }
        return;
    }
    const PipelinePlaneState state = m_plane->state();
    const QString &said = m_report.request.report;
    if (said == L("stepped") || said == L("failed") || said == L("incomplete") || !state.stepOutcome)
        return;
    const bool applied = state.stepOutcome->first;
    setReport(answer, applied ? QStringLiteral("stepped") : state.stepIncomplete ? QStringLiteral("incomplete") : QStringLiteral("failed"));
    m_report.request.microbatches = state.stepCounted;
    m_report.request.disputed = state.stepDisputed.mid(0, 2);
    if (!applied) {
        m_report.request.why = state.stepOutcome->second.left(200);
        return;
    }
    RoundReport report;
    report.round = answer.step;
    report.members = int(answer.group.size());
    report.pipelineStage = m_stage;
    report.pipelineStages = m_settings.stages;
    report.microbatches = state.stepCounted;
    report.paramsHash = state.stepOutcome->second;
    report.bytesUp = state.bytesSent - m_bytesSent;
    report.bytesDown = state.bytesReceived - m_bytesReceived;
    m_bytesSent = state.bytesSent;
    m_bytesReceived = state.bytesReceived;
    if (m_stage == 0 && state.done > 0) {
        report.loss = state.lossSum / state.done;
        report.tokens = qint64(state.done) * m_settings.microbatchSize * m_config.blockSize;
    }
    m_hooks.stepFinished(report);
}

void PipelineWorker::setReport(const PipelineAnswer &answer, const QString &kind)
{
    m_report = {};
    m_report.request.step = answer.step;
    m_report.request.attempt = answer.attempt;
    m_report.request.report = kind;
    m_acted = true;
}

void PipelineWorker::publish(const PipelineAnswer &answer)
{
    WorkStatus status;
    status.round = answer.step;
    status.pipelineStage = m_stage;
    status.pipelineStages = m_settings.stages;
    const PipelinePlaneState state = m_plane->state();
    status.microbatchesServed = state.served;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - m_rateAt).count();
    if (seconds >= 2.0) {
        const double rate = state.served >= m_servedAt ? double(state.served - m_servedAt) / seconds : 0.0;
        m_servedRate = 0.5 * rate + 0.5 * m_servedRate;
        m_servedAt = state.served;
        m_rateAt = now;
    }
    status.microbatchesPerSecond = m_servedRate;
    if (m_stage >= 0 && std::size_t(m_stage) < answer.stageRates.size())
        status.stageThroughput = answer.stageRates[std::size_t(m_stage)];
    double bottleneck = 0.0;
    for (const double rate : answer.stageRates)
        bottleneck = bottleneck == 0.0 ? rate : (rate > 0 ? std::min(bottleneck, rate) : bottleneck);
    status.bottleneckThroughput = bottleneck;
    if (answer.phase == L("waiting"))
        m_hooks.status(WorkState::Waiting, tr("Waiting for every pipeline stage to have a peer"));
    else if (m_stage > 0 && answer.member && answer.phase == L("training"))
        m_hooks.status(WorkState::Training, tr("Serving pipeline stage %1 of %2, step %3").arg(m_stage + 1).arg(m_settings.stages).arg(answer.step));
    m_hooks.progress(status);
}

} // namespace swarmtrain
