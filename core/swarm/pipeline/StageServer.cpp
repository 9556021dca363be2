#include "StageServer.h"

#include "PeerTransport.h"
#include "StageFrames.h"
#include "StagePartition.h"
#include "StageWorker.h"

#include <QTimer>

#include <chrono>

#include <algorithm>
#include <limits>
#include <memory>

namespace swarmtrain {

namespace {

QString toQString(const std::string &text) { return QString::fromStdString(text); }

} // namespace

StageServer::StageServer(PeerTransport &transport, std::unique_ptr<PipelineStage> stage, StageServerSettings settings,
                         QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_settings(settings)
    , m_config(stage->config())
    , m_worker(std::make_unique<StageWorker>(std::move(stage)))
{
    connect(&transport, &PeerTransport::frameReceived, this, &StageServer::onFrame);
    m_resyncDeadline = new QTimer(this);
    m_resyncDeadline->setSingleShot(true);
    connect(m_resyncDeadline, &QTimer::timeout, this, [this] {
        if (!m_resyncFrom.isEmpty())
            endResync(false, QStringLiteral("the neighbour sent %1 bytes of the state, then stalled").arg(m_resyncState.size()));
    });
    connect(&transport, &PeerTransport::writeBufferDrained, this, &StageServer::sendStatePieces);
    connect(&transport, &PeerTransport::peerDisconnected, this, [this](const QString &peerKeyId) {
        m_stateSends.remove(peerKeyId);
        if (peerKeyId == m_resyncFrom)
            endResync(false, QStringLiteral("the neighbour went away while it sent the state"));
    });
}

StageServer::~StageServer() = default;

void StageServer::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    if (!header.has_stage())
        return;
    if (header.type() == wire::FRAME_TYPE_STAGE_REQUEST && header.stage().pass() == wire::StageWork::PASS_STATE)
        onStateRequest(peerKeyId, header.stage());
    else if (header.type() == wire::FRAME_TYPE_STAGE_REQUEST)
        onRequest(peerKeyId, header.stage(), payload);
    else if (header.type() == wire::FRAME_TYPE_STAGE_REPLY || header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
        onStateAnswer(peerKeyId, header, payload);
    else if (header.type() == wire::FRAME_TYPE_STAGE_VERDICT)
        onVerdict(peerKeyId, header.stage());
}

void StageServer::onRequest(const QString &peerKeyId, const wire::StageWork &work, const QByteArray &payload)
{
    if (m_banned.contains(peerKeyId))
        return refuse(peerKeyId, work, QStringLiteral("banned from this stage"));
    if (work.stage() != std::uint32_t(m_settings.stage))
        return refuse(peerKeyId, work, QStringLiteral("this peer serves stage %1").arg(m_settings.stage));
    if (m_settings.stage == 0)
        return refuse(peerKeyId, work, QStringLiteral("trainers run stage 0 themselves"));
    const bool backward = work.pass() == wire::StageWork::PASS_BACKWARD;
    const bool evaluate = work.pass() == wire::StageWork::PASS_EVALUATE;
    if (!backward && !evaluate && work.pass() != wire::StageWork::PASS_FORWARD)
        return countOffence(peerKeyId, work, QStringLiteral("a request with no pass"));
    if (!backward && !evaluate && lastStage())
        return countOffence(peerKeyId, work, QStringLiteral("a forward request to the last stage"));
    if (evaluate && !lastStage())
        return countOffence(peerKeyId, work, QStringLiteral("an evaluation request to a stage before the last"));
    if (work.batch() < 1 || work.batch() > std::uint32_t(m_settings.maxBatch) || work.tokens() < 1
        || work.tokens() > std::uint32_t(m_config.blockSize))
        return countOffence(peerKeyId, work, QStringLiteral("a microbatch of %1 x %2 tokens (at most %3 x %4)")
                                                 .arg(work.batch()).arg(work.tokens())
                                                 .arg(m_settings.maxBatch).arg(m_config.blockSize));
    if (work.precision() != std::uint32_t(m_settings.precision))
        return countOffence(peerKeyId, work, QStringLiteral("activations in precision %1, not the swarm's %2")
                                                 .arg(work.precision()).arg(int(m_settings.precision)));
    if (m_worker->queued() >= m_settings.maxQueued)
        return refuse(peerKeyId, work, QStringLiteral("busy"), true);
    Result<StageRequestPayload> decoded = decodeStageRequest(payload, work, m_config.nEmbd, lastStage());
    if (!decoded)
        return countOffence(peerKeyId, work, toQString(decoded.error().message));

    const auto request = std::make_shared<const StageRequestPayload>(std::move(*decoded));
    const MicrobatchShape shape{int(work.batch()), int(work.tokens())};
    const std::string key = microbatchKey(peerKeyId, work.step(), work.microbatch());
    m_worker->post(
        this,
        [request, shape, key, backward, evaluate](PipelineStage &stage) -> Result<StageBackward> {
            const StageInput input{shape, {}, request->input};
            if (evaluate) {
                Result<double> loss = stage.evaluate(input, request->targets);
                if (!loss)
                    return loss.error();
                return StageBackward{{}, *loss};
            }
            if (backward) {
                // A backward asked again (the trainer gave up waiting, then came back here)
                // replaces the unconfirmed one: one gradient per microbatch.
                if (!stage.isConfirmed(key))
                    stage.cancel(key);
                return stage.backward(key, input, request->gradOutput, request->targets);
            }
            Result<std::vector<float>> output = stage.forward(input);
            if (!output)
                return output.error();
            return StageBackward{std::move(*output), 0.0};
        },
        [this, peerKeyId, work](const Result<StageBackward> &result) {
            if (!result)
                return countOffence(peerKeyId, work, toQString(result.error().message));
            reply(peerKeyId, work, result->inputGradient, result->loss);
        });
}

void StageServer::reply(const QString &peerKeyId, wire::StageWork work, const std::vector<float> &values, double loss)
{
    std::vector<float> changed;
    if (m_settings.misbehaviour.stageAnswer && !values.empty()) {
        changed = values;
        m_settings.misbehaviour.stageAnswer(changed, work.pass() == wire::StageWork::PASS_BACKWARD);
    }
    Result<QByteArray> bytes = encodeWire(changed.empty() ? values : changed, m_settings.precision);
    if (!bytes) // the stage's own output overflowed the wire's range: the trainer tries elsewhere
        return refuse(peerKeyId, work, QStringLiteral("the stage's answer does not fit the wire: %1").arg(toQString(bytes.error().message)));
    work.set_loss(loss);
    ++m_served;
    (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_REPLY, work, bytes->size()), *bytes);
    Q_EMIT requestServed(peerKeyId, work.pass() == wire::StageWork::PASS_BACKWARD);
}

void StageServer::onVerdict(const QString &peerKeyId, const wire::StageWork &work)
{
    if (m_banned.contains(peerKeyId))
        return;
    if (work.close())
        return onClose(peerKeyId, work);
    const std::string key = microbatchKey(peerKeyId, work.step(), work.microbatch());
    const bool count = work.count();
    m_worker->post(this, [key, count](PipelineStage &stage) { return count ? stage.confirm(key) : stage.cancel(key); },
                   [this, count](bool applied) {
                       m_confirmed += count && applied;
                       m_takenBack += !count && applied;
                   });
}

void StageServer::onClose(const QString &peerKeyId, const wire::StageWork &work)
{
    const quint64 step = work.step();
    const std::string prefix = stepKeyPrefix(peerKeyId, step);
    const qint64 claimed = work.confirmed();
    m_worker->post(
        this,
        [prefix](PipelineStage &stage) {
            const auto &keys = stage.confirmedKeys();
            return qint64(std::count_if(keys.begin(), keys.end(), [&](const std::string &k) { return k.starts_with(prefix); }));
        },
        [this, peerKeyId, step, claimed](qint64 held) {
            m_lastClose.insert(peerKeyId, {step, held == claimed ? held : -1});
            Q_EMIT trainerClosed(step, peerKeyId, held == claimed);
        });
}

std::optional<int> StageServer::readyForStep(quint64 step, const QStringList &trainers) const
{
    qint64 held = 0;
    for (const QString &trainer : trainers) {
        const auto close = m_lastClose.constFind(trainer);
        if (close == m_lastClose.constEnd() || close->first != step || close->second < 0)
            return std::nullopt;
        held += close->second;
    }
    return int(std::min<qint64>(held, std::numeric_limits<int>::max()));
}

void StageServer::onStateRequest(const QString &peerKeyId, const wire::StageWork &work)
{
    if (m_banned.contains(peerKeyId))
        return refuse(peerKeyId, work, QStringLiteral("banned from this stage"));
    if (work.stage() != std::uint32_t(m_settings.stage))
        return refuse(peerKeyId, work, QStringLiteral("this peer serves stage %1").arg(m_settings.stage));
    const qint64 now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (const auto last = m_lastStateSent.constFind(peerKeyId);
        last != m_lastStateSent.constEnd() && now - *last < m_settings.stateIntervalMs)
        return refuse(peerKeyId, work, QStringLiteral("busy: the state was sent %1 ms ago").arg(now - *last), true);
    if (m_stateSends.size() >= m_settings.maxStateSends && !m_stateSends.contains(peerKeyId))
        return refuse(peerKeyId, work, QStringLiteral("busy: the state is on its way to %1 peers").arg(m_stateSends.size()), true);
    m_lastStateSent.insert(peerKeyId, now);
    m_worker->post(
        this, [](PipelineStage &stage) { return std::make_shared<const std::vector<std::byte>>(stage.exportState()); },
        [this, peerKeyId, work](const std::shared_ptr<const std::vector<std::byte>> &state) {
            m_stateSends.insert(peerKeyId, {work, state, 0});
            sendStatePieces(peerKeyId);
        });
}

void StageServer::sendStatePieces(const QString &peerKeyId)
{
    const auto it = m_stateSends.find(peerKeyId);
    if (it == m_stateSends.end())
        return;
    StateSend &send = *it;
    const qsizetype total = qsizetype(send.state->size());
    while (send.sent < total) {
        const qsizetype length = std::min(m_settings.statePieceBytes, total - send.sent);
        wire::StageWork piece = send.work;
        piece.set_state_offset(std::uint64_t(send.sent));
        piece.set_state_size(std::uint64_t(total));
        const QByteArrayView bytes(reinterpret_cast<const char *>(send.state->data()) + send.sent, length);
        if (Result<void> sent = m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_REPLY, piece, length), bytes); !sent) {
            // A full write buffer: the rest goes when it drains. Anything else ends the send.
            if (!m_transport.isConnected(peerKeyId) || m_transport.pendingWriteBytes(peerKeyId) == 0) {
                refuse(peerKeyId, send.work, QStringLiteral("the state cannot be sent: %1").arg(toQString(sent.error().message)));
                m_stateSends.erase(it);
            }
            return;
        }
        send.sent += length;
    }
    m_stateSends.erase(it);
}

void StageServer::resyncFrom(const QString &neighbourKeyId)
{
    wire::StageWork work;
    work.set_stage(std::uint32_t(m_settings.stage));
    work.set_pass(wire::StageWork::PASS_STATE);
    work.set_attempt(++m_resyncAttempt);
    m_resyncFrom = neighbourKeyId;
    m_resyncState = QByteArray();
    const double stateBytes = double(PipelineStage::stateSize(spanParameterCount(m_config, m_worker->span())));
    m_resyncDeadline->start(m_settings.resyncBaseMs + int(std::min(1e9, 1000.0 * stateBytes / m_settings.resyncMinBytesPerSecond)));
    if (Result<void> sent = m_transport.send(neighbourKeyId, stageHeader(wire::FRAME_TYPE_STAGE_REQUEST, work, 0), {}); !sent)
        endResync(false, toQString(sent.error().message));
}

void StageServer::onStateAnswer(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload)
{
    const wire::StageWork &work = header.stage();
    if (peerKeyId != m_resyncFrom || work.pass() != wire::StageWork::PASS_STATE || work.attempt() != m_resyncAttempt)
        return; // not the answer this peer waits for
    if (header.type() == wire::FRAME_TYPE_STAGE_REFUSED)
        return endResync(false, QStringLiteral("refused: %1").arg(toQString(work.refusal()).left(200)));
    // The size is this peer's own figure, known before anything is kept; the pieces come in order
    // and fill it exactly.
    const std::size_t expected = PipelineStage::stateSize(spanParameterCount(m_config, m_worker->span()));
    if (work.state_size() != expected)
        return endResync(false, QStringLiteral("a state of %1 bytes, not %2").arg(work.state_size()).arg(expected));
    if (work.state_offset() != std::uint64_t(m_resyncState.size()) || payload.isEmpty()
        || std::uint64_t(payload.size()) > expected - work.state_offset())
        return endResync(false, QStringLiteral("a piece of %1 bytes at %2, after %3 of the %4 bytes")
                                    .arg(payload.size()).arg(work.state_offset()).arg(m_resyncState.size()).arg(expected));
    if (m_resyncState.isEmpty())
        m_resyncState.reserve(qsizetype(expected));
    m_resyncState.append(payload);
    if (std::size_t(m_resyncState.size()) < expected)
        return;
    const QByteArray state = std::exchange(m_resyncState, QByteArray());
    m_resyncFrom.clear();
    m_resyncDeadline->stop();
    m_worker->post(
        this,
        [state](PipelineStage &stage) -> Result<std::string> {
            const std::span bytes(reinterpret_cast<const std::byte *>(state.constData()), std::size_t(state.size()));
            if (Result<void> taken = stage.importState(bytes); !taken)
                return taken.error();
            return stage.hash();
        },
        [this](const Result<std::string> &hash) {
            Q_EMIT resynced(hash.ok(), hash ? toQString(*hash) : toQString(hash.error().message));
        });
}

void StageServer::endResync(bool ok, const QString &hashOrWhy)
{
    m_resyncFrom.clear();
    m_resyncState = QByteArray();
    m_resyncDeadline->stop();
    Q_EMIT resynced(ok, hashOrWhy);
}

void StageServer::refuse(const QString &peerKeyId, const wire::StageWork &work, const QString &reason, bool busy)
{
    wire::StageWork answer;
    answer.set_microbatch(work.microbatch());
    answer.set_stage(work.stage());
    answer.set_step(work.step());
    answer.set_pass(work.pass());
    answer.set_attempt(work.attempt());
    answer.set_refusal(reason.left(200).toStdString());
    answer.set_busy(busy);
    (void)m_transport.send(peerKeyId, stageHeader(wire::FRAME_TYPE_STAGE_REFUSED, answer), {});
}

void StageServer::countOffence(const QString &peerKeyId, const wire::StageWork &work, const QString &reason)
{
    refuse(peerKeyId, work, reason);
    Q_EMIT offence(peerKeyId, reason);
    if (++m_offences[peerKeyId] < m_settings.offencesBeforeBan || m_banned.contains(peerKeyId))
        return;
    m_banned.insert(peerKeyId);
    m_transport.disconnectPeer(peerKeyId, QStringLiteral("banned from stage %1 after %2 refused requests")
                                              .arg(m_settings.stage).arg(m_offences[peerKeyId]));
    Q_EMIT peerBanned(peerKeyId);
}

} // namespace swarmtrain
