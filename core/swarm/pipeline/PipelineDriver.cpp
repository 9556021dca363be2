#include "PipelineDriver.h"

#include "PeerTransport.h"
#include "StageFrames.h"
#include "StageWorker.h"

#include <QTimer>

#include <cmath>

namespace swarmtrain {

namespace {

using Clock = HopChooser::Clock;

QString toQString(const std::string &text) { return QString::fromStdString(text); }

} // namespace

struct PipelineDriver::Flight {
    Microbatch batch;
    std::vector<QByteArray> inputs; // [s]: stage s's input as it went over the wire (s >= 1)
    QByteArray gradient;            // backward: the gradient of stage `stage`'s output, on the wire
    int stage = 1;
    bool backward = false;
    double loss = 0.0;
    QString peer;                   // the peer asked now; empty while none is
    std::uint32_t attempt = 0;
    Clock::time_point sentAt;
    QStringList tried;              // peers this hop failed on
    QTimer *timer = nullptr;
};

PipelineDriver::PipelineDriver(PeerTransport &transport, const QString &selfKeyId, StageWorker &firstStage,
                               PipelineDriverSettings settings, QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_selfKeyId(selfKeyId)
    , m_firstStage(firstStage)
    , m_settings(settings)
    , m_config(firstStage.config())
    , m_placed(std::size_t(settings.stageCount))
{
    for (int s = 0; s < settings.stageCount; ++s)
        m_choosers.emplace_back(settings.hops, settings.seed + std::uint64_t(s));
    connect(&transport, &PeerTransport::frameReceived, this, &PipelineDriver::onFrame);
    connect(&transport, &PeerTransport::peerConnected, this, [this](const QString &peerKeyId) {
        m_dialing.remove(peerKeyId);
        for (int s = 1; s < m_settings.stageCount; ++s)
            refreshPeers(s);
    });
    connect(&transport, &PeerTransport::connectionFailed, this,
            [this](const QString &peerKeyId) { m_dialing.remove(peerKeyId); });
    connect(&transport, &PeerTransport::peerDisconnected, this, [this](const QString &peerKeyId) {
        for (int s = 1; s < m_settings.stageCount; ++s)
            refreshPeers(s);
        std::vector<std::uint64_t> waiting;
        for (const auto &[id, flight] : m_flights) {
            if (flight.peer == peerKeyId)
                waiting.push_back(id);
        }
        for (const std::uint64_t id : waiting)
            failHop(id, QStringLiteral("the peer disconnected"), false);
    });
    m_redial = new QTimer(this);
    m_redial->setInterval(1000);
    connect(m_redial, &QTimer::timeout, this, &PipelineDriver::redial);
    m_redial->start();
}

PipelineDriver::~PipelineDriver() = default;

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

void PipelineDriver::start(Microbatch batch)
{
    const std::uint64_t id = batch.id;
    if (m_flights.contains(id))
        return Q_EMIT microbatchFailed(id, QStringLiteral("microbatch %1 is already in flight").arg(id));
    Flight &f = m_flights[id];
    f.batch = std::move(batch);
    f.inputs.resize(std::size_t(m_settings.stageCount));
    f.timer = new QTimer(this);
    f.timer->setSingleShot(true);
    connect(f.timer, &QTimer::timeout, this, [this, id] { failHop(id, QStringLiteral("no answer in time"), false); });
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
            if (!output) {
                delete f->timer;
                m_flights.erase(id);
                return Q_EMIT microbatchFailed(id, QStringLiteral("stage 0: %1").arg(toQString(output.error().message)));
            }
            f->inputs[1] = *output;
            f->backward = m_settings.stageCount == 2;
            sendHop(id);
        });
}

void PipelineDriver::sendHop(std::uint64_t id)
{
    Flight *f = flight(id);
    if (!f)
        return;
    HopChooser &chooser = m_choosers[std::size_t(f->stage)];
    std::vector<std::string> except;
    for (const QString &peer : f->tried)
        except.push_back(peer.toStdString());
    const Clock::time_point now = Clock::now();
    std::optional<std::string> peer = chooser.choose(now, except);
    if (!peer) {
        // Every peer of the stage is backing off or was tried: wait, then try them all again.
        f->tried.clear();
        f->peer.clear();
        QTimer::singleShot(m_settings.retryWait, this, [this, id] { sendHop(id); });
        return;
    }
    wire::StageWork work;
    work.set_microbatch(id);
    work.set_stage(std::uint32_t(f->stage));
    work.set_pass(f->backward ? wire::StageWork::PASS_BACKWARD : wire::StageWork::PASS_FORWARD);
    work.set_attempt(++f->attempt);
    work.set_batch(std::uint32_t(f->batch.shape.batch));
    work.set_tokens(std::uint32_t(f->batch.shape.tokens));
    work.set_precision(std::uint32_t(m_settings.precision));
    QByteArray payload = f->inputs[std::size_t(f->stage)];
    if (f->backward)
        payload += f->stage == m_settings.stageCount - 1 ? encodeTargets(f->batch.targets) : f->gradient;
    f->peer = QString::fromStdString(*peer);
    f->sentAt = now;
    const std::chrono::milliseconds timeout = chooser.timeout(*peer);
    if (Result<void> sent = m_transport.send(f->peer, stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, work, payload.size()), payload);
        !sent)
        return failHop(id, toQString(sent.error().message), false);
    f->timer->start(timeout);
}

void PipelineDriver::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    if (!header.has_stage()
        || (header.type() != wire::FRAME_TYPE_STAGE_REPLY && header.type() != wire::FRAME_TYPE_STAGE_REFUSED))
        return;
    const wire::StageWork &work = header.stage();
    Flight *f = flight(work.microbatch());
    const bool current = f && f->peer == peerKeyId && work.attempt() == f->attempt
                         && work.stage() == std::uint32_t(f->stage)
                         && (work.pass() == wire::StageWork::PASS_BACKWARD) == f->backward;
    if (!current) {
        // A late answer to a hop already given to another peer: its gradient must not count.
        if (header.type() == wire::FRAME_TYPE_STAGE_REPLY && work.pass() == wire::StageWork::PASS_BACKWARD) {
            wire::StageWork cancel;
            cancel.set_microbatch(work.microbatch());
            cancel.set_stage(work.stage());
            cancel.set_count(false);
            (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_VERDICT, cancel), {});
        }
        return;
    }
    if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
        return failHop(work.microbatch(), QStringLiteral("refused: %1").arg(toQString(work.refusal()).left(200)), false);
    onReply(*f, peerKeyId, work, payload);
}

void PipelineDriver::onReply(Flight &f, const QString &peerKeyId, const wire::StageWork &work, const QByteArray &payload)
{
    const std::uint64_t id = f.batch.id;
    const std::size_t count = f.batch.shape.tokenCount() * std::size_t(m_config.nEmbd);
    // The answer is checked like any stranger's bytes before it is used or passed on.
    if (Result<std::vector<float>> decoded = decodeWire(payload, count, m_settings.precision); !decoded)
        return failHop(id, QStringLiteral("a bad answer: %1").arg(toQString(decoded.error().message)), true);
    const bool last = f.stage == m_settings.stageCount - 1;
    if (f.backward && last && (!std::isfinite(work.loss()) || work.loss() < 0))
        return failHop(id, QStringLiteral("a bad answer: a loss that is not a finite non-negative number"), true);

    f.timer->stop();
    m_choosers[std::size_t(f.stage)].succeeded(peerKeyId.toStdString(), Clock::now() - f.sentAt);
    ++m_served[peerKeyId];
    f.peer.clear();
    f.tried.clear();
    if (!f.backward) {
        f.inputs[std::size_t(++f.stage)] = payload;
        f.backward = f.stage == m_settings.stageCount - 1;
        return sendHop(id);
    }
    sendVerdict(peerKeyId, f, true);
    if (last)
        f.loss = work.loss();
    f.gradient = payload;
    if (--f.stage > 0)
        return sendHop(id);
    finishLocally(id);
}

void PipelineDriver::failHop(std::uint64_t id, const QString &reason, bool offence)
{
    Flight *f = flight(id);
    if (!f || f->peer.isEmpty())
        return;
    const QString peer = f->peer;
    f->timer->stop();
    f->peer.clear();
    f->tried.append(peer);
    m_choosers[std::size_t(f->stage)].failed(peer.toStdString(), Clock::now());
    if (f->backward && m_transport.isConnected(peer))
        sendVerdict(peer, *f, false);
    ++m_retries;
    Q_EMIT hopRetried(id, f->stage, peer, reason);
    if (offence && ++m_offences[peer] >= m_settings.offencesBeforeBan && !m_banned.contains(peer)) {
        m_banned.insert(peer);
        m_transport.disconnectPeer(peer, QStringLiteral("banned after %1 bad answers").arg(m_offences[peer]));
        for (int s = 1; s < m_settings.stageCount; ++s)
            refreshPeers(s);
    }
    // Not from inside the frame or timer handler that failed it: the next try starts afresh.
    QTimer::singleShot(0, this, [this, id] { sendHop(id); });
}

void PipelineDriver::sendVerdict(const QString &peerKeyId, const Flight &flight, bool count)
{
    wire::StageWork verdict;
    verdict.set_microbatch(flight.batch.id);
    verdict.set_stage(std::uint32_t(flight.stage));
    verdict.set_pass(wire::StageWork::PASS_BACKWARD);
    verdict.set_attempt(flight.attempt);
    verdict.set_count(count);
    (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_VERDICT, verdict), {});
}

void PipelineDriver::finishLocally(std::uint64_t id)
{
    Flight &f = *flight(id);
    const std::size_t count = f.batch.shape.tokenCount() * std::size_t(m_config.nEmbd);
    // Decoded once more here rather than kept: the answer was checked when it came.
    const auto gradient = std::make_shared<const std::vector<float>>(decodeWire(f.gradient, count, m_settings.precision).value());
    const auto tokens = std::make_shared<const std::vector<std::int32_t>>(f.batch.tokens);
    const MicrobatchShape shape = f.batch.shape;
    const std::string key = microbatchKey(m_selfKeyId, id);
    m_firstStage.post(
        this,
        [gradient, tokens, shape, key](PipelineStage &stage) -> Result<void> {
            Result<StageBackward> back = stage.backward(key, {shape, *tokens, {}}, *gradient);
            if (!back)
                return back.error();
            stage.confirm(key);
            return {};
        },
        [this, id](const Result<void> &done) {
            Flight *f = flight(id);
            if (!f)
                return;
            const double loss = f->loss;
            delete f->timer;
            m_flights.erase(id);
            if (!done)
                return Q_EMIT microbatchFailed(id, QStringLiteral("stage 0: %1").arg(toQString(done.error().message)));
            Q_EMIT microbatchDone(id, loss);
        });
}

} // namespace swarmtrain
