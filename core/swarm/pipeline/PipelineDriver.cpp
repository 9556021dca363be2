#include "PipelineDriver.h"

#include "PipelineDriverFlight.h"

#include "PeerTransport.h"
#include "StageFrames.h"
#include "StageWorker.h"

#include <QTimer>

#include <algorithm>
#include <cmath>
#include <utility>

namespace swarmtrain {

namespace {

QString toQString(const std::string &text) { return QString::fromStdString(text); }

} // namespace

PipelineDriver::PipelineDriver(PeerTransport &transport, const QString &selfKeyId, StageWorker &firstStage,
                               PipelineDriverSettings settings, QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_selfKeyId(selfKeyId)
    , m_firstStage(firstStage)
    , m_settings(settings)
    , m_config(firstStage.config())
    , m_placed(std::size_t(settings.stageCount))
    , m_random(settings.seed ^ 0x9e3779b97f4a7c15ull)
{
    for (int s = 0; s < settings.stageCount; ++s)
        m_choosers.emplace_back(settings.hops, settings.seed + std::uint64_t(s));
    connect(&transport, &PeerTransport::frameReceived, this, &PipelineDriver::onFrame);
    connect(&transport, &PeerTransport::peerConnected, this, [this](const QString &peerKeyId) {
        m_dialing.remove(peerKeyId);
        // Backwards it had confirmed were replayed elsewhere while it was away: take them back.
        takeBack(peerKeyId);
        for (int s = 1; s < m_settings.stageCount; ++s)
            refreshPeers(s);
    });
    connect(&transport, &PeerTransport::connectionFailed, this,
            [this](const QString &peerKeyId) { m_dialing.remove(peerKeyId); });
    connect(&transport, &PeerTransport::peerDisconnected, this,
            [this](const QString &peerKeyId) { dropPeer(peerKeyId, QStringLiteral("the peer disconnected")); });
    m_redial = new QTimer(this);
    m_redial->setInterval(1000);
    connect(m_redial, &QTimer::timeout, this, &PipelineDriver::redial);
    m_redial->start();
}

PipelineDriver::~PipelineDriver() = default;

void PipelineDriver::dropPeer(const QString &peerKeyId, const QString &reason)
{
    for (int s = 1; s < m_settings.stageCount; ++s)
        refreshPeers(s);
    std::vector<Hop *> waiting;
    for (auto &[id, f] : m_flights) {
        if (f.hop.peer == peerKeyId)
            waiting.push_back(&f.hop);
        // A cross-check's answer of its stands for nothing now (nor would the gradient behind it).
        std::erase_if(f.hop.answers, [&](const Answer &answer) { return answer.peer == peerKeyId; });
    }
    for (Hop &hop : m_replays) {
        if (hop.peer == peerKeyId)
            waiting.push_back(&hop);
    }
    for (Hop *hop : waiting)
        failHop(*hop, reason, false);
    replayConfirmedAt(peerKeyId);
}

PipelineDriver::Flight *PipelineDriver::flight(std::uint64_t id)
{
    const auto it = m_flights.find(id);
    return it == m_flights.end() ? nullptr : &it->second;
}

void PipelineDriver::setStagePeers(int stage, const QHash<QString, QString> &endpointsByKeyId)
{
    if (stage < 1 || stage >= m_settings.stageCount)
        return;
    m_placed[std::size_t(stage)] = endpointsByKeyId;
    refreshPeers(stage);
    redial();
}

void PipelineDriver::refreshPeers(int stage)
{
    std::vector<std::string> usable;
    for (const QString &keyId : m_placed[std::size_t(stage)].keys()) {
        if (m_transport.isConnected(keyId) && !m_banned.contains(keyId))
            usable.push_back(keyId.toStdString());
    }
    m_choosers[std::size_t(stage)].setPeers(usable);
}

void PipelineDriver::redial()
{
    for (const auto &placed : m_placed) {
        for (auto it = placed.begin(); it != placed.end(); ++it) {
            const QString &keyId = it.key();
            if (m_transport.isConnected(keyId) || m_banned.contains(keyId) || m_dialing.contains(keyId))
                continue;
            if (m_transport.connectToPeer(it.value(), keyId))
                m_dialing.insert(keyId);
        }
    }
}

int PipelineDriver::inFlight() const
{
    return int(std::count_if(m_flights.begin(), m_flights.end(), [](const auto &item) { return !item.second.done; }));
}

void PipelineDriver::start(Microbatch batch)
{
    const std::uint64_t id = batch.id;
    if (m_flights.contains(id))
        return Q_EMIT microbatchFailed(id, QStringLiteral("microbatch %1 is already in flight").arg(id));
    if (id >> Flight::kRunShift)
        return Q_EMIT microbatchFailed(id, QStringLiteral("microbatch id %1 is too large").arg(id));
    Flight &f = m_flights[id];
    f.batch = std::move(batch);
    const std::size_t stages = std::size_t(m_settings.stageCount);
    f.inputs.resize(stages);
    f.gradOuts.resize(stages);
    f.confirmedAt.resize(stages);
    f.hop.id = id;
    const WirePrecision precision = m_settings.precision;
    const auto tokens = std::make_shared<const std::vector<std::int32_t>>(f.batch.tokens);
    const MicrobatchShape shape = f.batch.shape;
    m_firstStage.post(
        this,
        [tokens, shape, precision](PipelineStage &stage) -> Result<QByteArray> {
            Result<std::vector<float>> output = stage.forward({shape, *tokens, {}});
            if (!output)
                return output.error();
            return encodeWire(*output, precision);
        },
        [this, id](const Result<QByteArray> &output) {
            Flight *f = flight(id);
            if (!f)
                return;
            if (!output)
                return dropMicrobatch(id, output.error());
            f->inputs[1] = *output;
            f->hop.backward = m_settings.stageCount == 2;
            decideCheck(f->hop);
            sendHop(f->hop);
        });
}

void PipelineDriver::sendHop(Hop &hop)
{
    Flight *f = flight(hop.id);
    if (!f)
        return;
    HopChooser &chooser = m_choosers[std::size_t(hop.stage)];
    std::vector<std::string> except;
    for (const QString &peer : hop.tried)
        except.push_back(peer.toStdString());
    if (const auto leftOut = m_leftOut.find(f->batch.step); leftOut != m_leftOut.end()) {
        for (const QString &peer : leftOut->second)
            except.push_back(peer.toStdString());
    }
    for (const Answer &answer : hop.answers)
        except.push_back(answer.peer.toStdString()); // a cross-check wants another peer's
    const Clock::time_point now = Clock::now();
    std::optional<std::string> peer = chooser.choose(now, except);
    if (!hop.timer) {
        hop.timer = std::make_unique<QTimer>();
        hop.timer->setSingleShot(true);
        connect(hop.timer.get(), &QTimer::timeout, this, [this, &hop] {
            if (!hop.peer.isEmpty())
                return failHop(hop, QStringLiteral("no answer in time"), false);
            sendHop(hop); // the wait for a usable peer is over
        });
    }
    if (!peer && hop.checked && !hop.answers.empty())
        return settleWithoutPeer(hop);
    if (!peer) {
        // Every peer of the stage is backing off or was tried: wait, then try them all again.
        hop.tried.clear();
        hop.peer.clear();
        hop.timer->start(m_settings.retryWait);
        return;
    }
    const bool last = hop.stage == m_settings.stageCount - 1;
    wire::StageWork work;
    work.set_microbatch(f->wireId());
    work.set_stage(std::uint32_t(hop.stage));
    work.set_step(f->batch.step);
    work.set_pass(hop.backward ? wire::StageWork::PASS_BACKWARD : wire::StageWork::PASS_FORWARD);
    work.set_attempt(++hop.attempt);
    work.set_batch(std::uint32_t(f->batch.shape.batch));
    work.set_tokens(std::uint32_t(f->batch.shape.tokens));
    work.set_precision(std::uint32_t(m_settings.precision));
    QByteArray payload = f->inputs[std::size_t(hop.stage)];
    if (hop.backward)
        payload += last ? encodeTargets(f->batch.targets) : f->gradOuts[std::size_t(hop.stage)];
    hop.peer = QString::fromStdString(*peer);
    // A peer on probation, caught once, or caught by another trainer has every answer checked.
    const bool probation = m_settings.crossCheckShare > 0 && m_vouched.value(hop.peer) < m_settings.probationAnswers;
    if (!hop.replay && (probation || m_caught.contains(hop.peer) || m_suspects.contains(hop.peer)))
        hop.checked = true;
    hop.sentAt = now;
    const std::chrono::milliseconds timeout = chooser.timeout(*peer);
    if (Result<void> sent = m_transport.send(hop.peer, stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, work, payload.size()), payload);
        !sent)
        return failHop(hop, toQString(sent.error().message), false);
    hop.timer->start(timeout);
}

PipelineDriver::Hop *PipelineDriver::findHop(const QString &peerKeyId, const wire::StageWork &work)
{
    Flight *f = flight(work.microbatch() & ((std::uint64_t(1) << Flight::kRunShift) - 1));
    if (!f || f->wireId() != work.microbatch())
        return nullptr; // no such microbatch, or an answer of an earlier run of it
    const auto matches = [&](const Hop &hop) {
        return hop.id == f->hop.id && hop.peer == peerKeyId && hop.attempt == work.attempt()
               && std::uint32_t(hop.stage) == work.stage() && (work.pass() == wire::StageWork::PASS_BACKWARD) == hop.backward;
    };
    if (!f->done && matches(f->hop))
        return &f->hop;
    for (Hop &hop : m_replays) {
        if (matches(hop))
            return &hop;
    }
    return nullptr;
}

void PipelineDriver::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    if (!header.has_stage() || m_banned.contains(peerKeyId)
        || (header.type() != wire::FRAME_TYPE_STAGE_REPLY && header.type() != wire::FRAME_TYPE_STAGE_REFUSED))
        return; // a dropped peer's answers, already on their way, count for nothing
    const wire::StageWork &work = header.stage();
    Hop *hop = findHop(peerKeyId, work);
    if (!hop) {
        // A late answer to a hop already given to another peer: its gradient must not count.
        if (header.type() == wire::FRAME_TYPE_STAGE_REPLY && work.pass() == wire::StageWork::PASS_BACKWARD)
            sendVerdict(peerKeyId, work.step(), work.microbatch(), false);
        return;
    }
    if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED && work.busy())
        return retryElsewhere(*hop);
    if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
        return failHop(*hop, QStringLiteral("refused: %1").arg(toQString(work.refusal()).left(200)), false);
    onReply(*hop, peerKeyId, work, payload);
}

void PipelineDriver::onReply(Hop &hop, const QString &peerKeyId, const wire::StageWork &work, const QByteArray &payload)
{
    const Flight &f = *flight(hop.id);
    const std::size_t count = f.batch.shape.tokenCount() * std::size_t(m_config.nEmbd);
    // The answer is checked like any stranger's bytes before it is used or passed on.
    Result<std::vector<float>> decoded = decodeWire(payload, count, m_settings.precision);
    if (!decoded)
        return failHop(hop, QStringLiteral("a bad answer: %1").arg(toQString(decoded.error().message)), true);
    const bool last = hop.stage == m_settings.stageCount - 1;
    if (hop.backward && last && (!std::isfinite(work.loss()) || work.loss() < 0))
        return failHop(hop, QStringLiteral("a bad answer: a loss that is not a finite non-negative number"), true);

    hop.timer->stop();
    m_choosers[std::size_t(hop.stage)].succeeded(peerKeyId.toStdString(), Clock::now() - hop.sentAt);
    ++m_served[peerKeyId];
    hop.peer.clear();
    hop.tried.clear();
    if (!hop.checked)
        return useAnswer(hop, peerKeyId, payload, work.loss());
    hop.answers.push_back({peerKeyId, payload, work.loss(), std::move(decoded).value()});
    std::vector<std::pair<QString, QString>> wrong;
    if (const std::optional<Answer> settled = settleCheck(hop, wrong)) {
        const int stage = hop.stage;
        useAnswer(hop, settled->peer, settled->payload, settled->loss);
        // Once this hop has moved on: catching a peer may run this very microbatch again.
        for (const auto &[peer, why] : wrong)
            catchPeer(peer, stage, why);
        return;
    }
    if (hop.answers.size() >= kMostAnswers)
        return abandon(hop.id, QStringLiteral("no two of %1 peers of stage %2 gave the same answer").arg(hop.answers.size()).arg(hop.stage));
    sendHop(hop); // another peer's answer is wanted
}

void PipelineDriver::useAnswer(Hop &hop, const QString &peerKeyId, const QByteArray &payload, double loss)
{
    Flight &f = *flight(hop.id);
    f.servedBy.insert(peerKeyId);
    if (!hop.backward) {
        f.inputs[std::size_t(++hop.stage)] = payload;
        hop.backward = hop.stage == m_settings.stageCount - 1;
        decideCheck(hop);
        return sendHop(hop);
    }
    sendVerdict(peerKeyId, f.batch.step, f.wireId(), true);
    f.confirmedAt[std::size_t(hop.stage)] = peerKeyId;
    if (hop.replay) {
        // The peer heard the step's close before this: it is told its new count, after the verdict.
        if (m_closed.contains(f.batch.step))
            sendClose(peerKeyId, f.batch.step, confirmedCounts(f.batch.step).value(peerKeyId));
        return endReplay(hop);
    }
    if (hop.stage == m_settings.stageCount - 1)
        f.loss = loss;
    f.gradOuts[std::size_t(--hop.stage)] = payload;
    if (hop.stage > 0) {
        decideCheck(hop);
        return sendHop(hop);
    }
    finishLocally(hop.id);
}

void PipelineDriver::failHop(Hop &hop, const QString &reason, bool offence)
{
    if (hop.peer.isEmpty())
        return;
    const QString peer = hop.peer;
    hop.timer->stop();
    hop.peer.clear();
    hop.tried.append(peer);
    m_choosers[std::size_t(hop.stage)].failed(peer.toStdString(), Clock::now());
    if (const Flight *f = flight(hop.id); f && hop.backward && m_transport.isConnected(peer))
        sendVerdict(peer, f->batch.step, f->wireId(), false);
    ++m_retries;
    Q_EMIT hopRetried(hop.id, hop.stage, peer, reason);
    if (offence)
        countOffence(peer);
    // Not from inside the frame or timer handler that failed it: the next try starts afresh.
    hop.timer->start(0);
}

void PipelineDriver::countOffence(const QString &peerKeyId)
{
    if (++m_offences[peerKeyId] < m_settings.offencesBeforeBan || m_banned.contains(peerKeyId))
        return;
    m_banned.insert(peerKeyId);
    const QString why = QStringLiteral("banned after %1 bad answers").arg(m_offences[peerKeyId]);
    // At once, not when the transport says it has gone: its work is taken back and run elsewhere.
    dropPeer(peerKeyId, why);
    m_transport.disconnectPeer(peerKeyId, why);
}

void PipelineDriver::retryElsewhere(Hop &hop)
{
    // A busy peer computed nothing: no backoff, no verdict, just another peer now (or, when it
    // was the only one, after retryWait).
    hop.timer->stop();
    m_choosers[std::size_t(hop.stage)].released(hop.peer.toStdString());
    hop.tried.append(std::exchange(hop.peer, QString()));
    ++m_busyRefusals;
    hop.timer->start(0);
}

void PipelineDriver::replayConfirmedAt(const QString &peerKeyId)
{
    for (auto &[id, f] : m_flights) {
        for (int s = 1; s < m_settings.stageCount; ++s) {
            if (f.confirmedAt[std::size_t(s)] != peerKeyId)
                continue;
            // Its gradient went with the peer (or will be taken back should it return): the
            // backward runs again on another peer of the stage, from what was kept.
            f.confirmedAt[std::size_t(s)].clear();
            m_revoke[peerKeyId].insert({f.batch.step, f.wireId()});
            Hop &hop = m_replays.emplace_back();
            hop.id = id;
            hop.stage = s;
            hop.backward = true;
            hop.replay = true;
            ++m_replayCount;
            sendHop(hop);
        }
    }
}

void PipelineDriver::leaveOut(std::uint64_t step, const QString &peerKeyId)
{
    if (!m_closed.contains(step) || m_leftOut[step].contains(peerKeyId))
        return;
    m_leftOut[step].insert(peerKeyId);
    replayConfirmedAt(peerKeyId);
    // Connected still: it is told at once, so the step's work it held counts nowhere twice.
    if (m_transport.isConnected(peerKeyId))
        takeBack(peerKeyId);
}

void PipelineDriver::takeBack(const QString &peerKeyId)
{
    std::set<std::uint64_t> steps;
    for (const auto &[step, id] : m_revoke.take(peerKeyId)) {
        sendVerdict(peerKeyId, step, id, false);
        steps.insert(step);
    }
    // A step it heard closed: its count now, after the verdicts, so it does not say it holds
    // what it gave back.
    for (const std::uint64_t step : steps) {
        if (m_closed.contains(step))
            sendClose(peerKeyId, step, confirmedCounts(step).value(peerKeyId));
    }
}

void PipelineDriver::endReplay(Hop &hop)
{
    // Not now: this hop's own code is still running.
    hop.timer->stop();
    QTimer::singleShot(0, this, [this, target = &hop] {
        m_replays.remove_if([target](const Hop &h) { return &h == target; });
    });
    hop.id = ~std::uint64_t(0); // matches no answer from now on
}

void PipelineDriver::sendVerdict(const QString &peerKeyId, std::uint64_t step, std::uint64_t id, bool count)
{
    wire::StageWork verdict;
    verdict.set_step(step);
    verdict.set_microbatch(id);
    verdict.set_pass(wire::StageWork::PASS_BACKWARD);
    verdict.set_count(count);
    (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_VERDICT, verdict), {});
}

void PipelineDriver::finishLocally(std::uint64_t id)
{
    Flight &f = *flight(id);
    const std::size_t count = f.batch.shape.tokenCount() * std::size_t(m_config.nEmbd);
    // Decoded once more here rather than kept: the answer was checked when it came.
    const auto gradient =
        std::make_shared<const std::vector<float>>(decodeWire(f.gradOuts[0], count, m_settings.precision).value());
    const auto tokens = std::make_shared<const std::vector<std::int32_t>>(f.batch.tokens);
    const MicrobatchShape shape = f.batch.shape;
    const std::string key = microbatchKey(m_selfKeyId, f.batch.step, f.wireId());
    m_firstStage.post(
        this,
        [gradient, tokens, shape, key](PipelineStage &stage) -> Result<void> {
            Result<StageBackward> back = stage.backward(key, {shape, *tokens, {}}, *gradient);
            if (!back)
                return back.error();
            stage.confirm(key);
            return {};
        },
        [this, id, generation = f.generation](const Result<void> &done) {
            Flight *f = flight(id);
            if (!f || f->generation != generation)
                return; // run again since (restart()): that run finishes it
            if (!done)
                return dropMicrobatch(id, done.error());
            f->done = true;
            // A microbatch run again after its step closed: every stage peer hears its new count.
            if (generation > 0 && m_closed.contains(f->batch.step))
                sendCloses(f->batch.step);
            Q_EMIT microbatchDone(id, f->loss);
        });
}

void PipelineDriver::dropMicrobatch(std::uint64_t id, const Error &stageZero)
{
    m_flights.erase(id);
    Q_EMIT microbatchFailed(id, QStringLiteral("stage 0: %1").arg(toQString(stageZero.message)));
}

QHash<QString, int> PipelineDriver::confirmedCounts(std::uint64_t step) const
{
    QHash<QString, int> counts;
    for (const auto &[id, f] : m_flights) {
        if (f.batch.step != step)
            continue;
        for (int s = 1; s < m_settings.stageCount; ++s)
            ++counts[f.confirmedAt[std::size_t(s)]];
    }
    return counts;
}

void PipelineDriver::sendClose(const QString &peerKeyId, std::uint64_t step, int confirmed)
{
    wire::StageWork close;
    close.set_step(step);
    close.set_close(true);
    close.set_confirmed(std::uint32_t(confirmed));
    (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_VERDICT, close), {});
}

Result<void> PipelineDriver::closeStep(std::uint64_t step)
{
    for (const auto &[id, f] : m_flights) {
        if (f.batch.step == step && !f.done)
            return makeError("microbatch " + std::to_string(id) + " of step " + std::to_string(step) + " is still running");
    }
    for (const Hop &hop : m_replays) {
        if (const Flight *f = flight(hop.id); f && f->batch.step == step)
            return makeError("a replay of step " + std::to_string(step) + " is still running");
    }
    if (confirmedCounts(step).contains(QString()))
        return makeError("a microbatch of step " + std::to_string(step) + " is confirmed at no peer of a stage");
    sendCloses(step);
    m_closed.insert(step);
    return {};
}

void PipelineDriver::sendCloses(std::uint64_t step)
{
    const QHash<QString, int> confirmed = confirmedCounts(step);
    for (const auto &placed : m_placed) {
        for (const QString &peer : placed.keys()) {
            if (m_transport.isConnected(peer)) // one that never hears the close sits this step out
                sendClose(peer, step, confirmed.value(peer));
        }
    }
}

void PipelineDriver::forgetSteps(std::uint64_t step)
{
    const auto forgotten = [step](std::uint64_t s) { return s <= step; };
    // Replays first: they point into the flights. A late answer to one is cancelled (onFrame).
    m_replays.remove_if([&](const Hop &hop) {
        const Flight *f = flight(hop.id);
        return f && forgotten(f->batch.step);
    });
    std::erase_if(m_flights, [&](const auto &item) { return forgotten(item.second.batch.step); });
    // A peer that comes back after this drops the step's work itself (StageOptimizer).
    for (auto &revoke : m_revoke)
        std::erase_if(revoke, [&](const auto &key) { return forgotten(key.first); });
    m_closed.erase(m_closed.begin(), m_closed.upper_bound(step));
    m_leftOut.erase(m_leftOut.begin(), m_leftOut.upper_bound(step));
}

} // namespace swarmtrain
