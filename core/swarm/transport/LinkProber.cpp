#include "LinkProber.h"

#include "PeerTransport.h"

#include <QLoggingCategory>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace swarmtrain {

namespace {

Q_LOGGING_CATEGORY(lcProbe, "swarmtrain.transport.probe")

constexpr int kTimingBytes = 64;
constexpr double kMaxBytesPerSecond = 1e12;

FrameHeader probeHeader(wire::FrameType type, quint32 tag, int fillerBytes)
{
    FrameHeader header;
    header.set_type(type);
    header.set_tag(tag);
    if (fillerBytes > 0) {
        header.set_dtype("U8");
        header.add_shape(fillerBytes);
    }
    return header;
}

} // namespace

LinkProber::LinkProber(PeerTransport &transport, LinkProberOptions options,
                       std::function<bool(const QString &)> keepConnection, QObject *parent)
    : QObject(parent), m_transport(transport), m_options(options), m_keepConnection(std::move(keepConnection))
{
    if (!m_options.clockMs) {
        auto uptime = std::make_shared<QElapsedTimer>();
        uptime->start();
        m_options.clockMs = [uptime] { return uptime->elapsed(); };
    }
    connect(&transport, &PeerTransport::peerConnected, this, &LinkProber::onConnected);
    connect(&transport, &PeerTransport::frameReceived, this, &LinkProber::onFrame);
    connect(&transport, &PeerTransport::connectionFailed, this, [this](const QString &peerKeyId, const QString &why) {
        if (m_probes.contains(peerKeyId))
            finish(peerKeyId, QStringLiteral("cannot connect: %1").arg(why));
    });
    connect(&transport, &PeerTransport::peerDisconnected, this, [this](const QString &peerKeyId, const QString &why) {
        if (m_probes.contains(peerKeyId))
            finish(peerKeyId, QStringLiteral("disconnected: %1").arg(why));
    });
    auto *expiry = new QTimer(this);
    connect(expiry, &QTimer::timeout, this, [this] {
        expire();
        hangUpIdle();
    });
    expiry->start(250);
}

void LinkProber::probe(const QList<ProbeTarget> &targets)
{
    for (const ProbeTarget &target : targets) {
        if (m_probes.contains(target.keyId))
            continue;
        Probe &probe = m_probes[target.keyId];
        probe.age.start();
        if (m_transport.isConnected(target.keyId)) {
            sendProbe(target.keyId, probe, Stage::Timing);
            continue;
        }
        m_dialed[target.keyId].start();
        if (Result<void> dialed = m_transport.connectToPeer(target.endpoint, target.keyId); !dialed)
            finish(target.keyId, QString::fromStdString(dialed.error().message));
    }
}

void LinkProber::onConnected(const QString &peerKeyId)
{
    const auto found = m_probes.find(peerKeyId);
    if (found != m_probes.end() && found->stage == Stage::Dialing)
        sendProbe(peerKeyId, *found, Stage::Timing);
}

void LinkProber::sendProbe(const QString &peerKeyId, Probe &probe, Stage stage)
{
    probe.attempts = probe.stage == stage ? probe.attempts : 0;
    probe.stage = stage;
    probe.tag = m_nextTag++;
    ++probe.attempts;
    if (const auto dialed = m_dialed.find(peerKeyId); dialed != m_dialed.end())
        dialed->restart();
    const int bytes = stage == Stage::Filling ? m_options.fillerBytes : kTimingBytes;
    probe.clock.start();
    const QByteArray filler(bytes, '\0');
    if (Result<void> sent = m_transport.send(peerKeyId, probeHeader(wire::FRAME_TYPE_PROBE, probe.tag, bytes), filler);
        !sent)
        finish(peerKeyId, QString::fromStdString(sent.error().message));
}

void LinkProber::onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &)
{
    if (header.type() == wire::FRAME_TYPE_PROBE) {
        if (const auto dialed = m_dialed.find(peerKeyId); dialed != m_dialed.end())
            dialed->restart();
        answer(peerKeyId, header);
        return;
    }
    if (header.type() != wire::FRAME_TYPE_PROBE_REPLY)
        return;
    const auto found = m_probes.find(peerKeyId);
    if (found == m_probes.end() || found->tag != header.tag())
        return; // a late reply to a probe given up on
    Probe &probe = *found;
    const double elapsedMs = double(probe.clock.nsecsElapsed()) / 1e6;
    if (probe.stage == Stage::Timing) {
        probe.rttMs = elapsedMs;
        sendProbe(peerKeyId, probe, Stage::Filling);
        return;
    }
    if (probe.stage == Stage::Filling) {
        probe.fillMs = elapsedMs;
        sendProbe(peerKeyId, probe, Stage::Retiming);
        return;
    }
    // The filler's reply left once all of it had arrived: the time beyond one round trip moved
    // the bytes. On a fast link that is next to nothing, hence the floor at a tenth.
    const double rttMs = std::min(probe.rttMs, elapsedMs);
    const double transferMs = std::max(probe.fillMs - rttMs, std::max(probe.fillMs / 10.0, 0.01));
    const LinkMeasurement measurement{peerKeyId, rttMs,
                                      std::min(double(m_options.fillerBytes) / (transferMs / 1000.0), kMaxBytesPerSecond)};
    m_measurements.append(measurement);
    Q_EMIT measured(measurement);
    finish(peerKeyId, {});
}

void LinkProber::answer(const QString &peerKeyId, const FrameHeader &header)
{
    const qint64 second = m_options.clockMs() / 1000;
    auto &[window, count] = m_replies[peerKeyId];
    if (window != second) {
        window = second;
        count = 0;
    }
    if (++count > m_options.maxRepliesPerSecond) {
        if (count == m_options.maxRepliesPerSecond + 1)
            qCWarning(lcProbe).noquote() << peerKeyId << "probes more than" << m_options.maxRepliesPerSecond
                                         << "times a second; the rest go unanswered";
        return;
    }
    if (m_replies.size() > 4096)
        m_replies.clear(); // forget old askers rather than grow with every peer ever seen
    (void)m_transport.send(peerKeyId, probeHeader(wire::FRAME_TYPE_PROBE_REPLY, header.tag(), 0), {});
}

void LinkProber::finish(const QString &peerKeyId, const QString &failure)
{
    const auto found = m_probes.find(peerKeyId);
    if (found == m_probes.end())
        return;
    m_probes.erase(found);
    if (!failure.isEmpty()) {
        qCInfo(lcProbe).noquote() << "no measurement of the link to" << peerKeyId << ":" << failure;
        Q_EMIT failed(peerKeyId, failure);
    }
}

void LinkProber::expire()
{
    QStringList late;
    QStringList resend;
    for (auto it = m_probes.cbegin(); it != m_probes.cend(); ++it) {
        const bool small = it->stage == Stage::Timing || it->stage == Stage::Retiming;
        if (small && it->clock.elapsed() > m_options.resendMs)
            (it->attempts < m_options.attempts ? resend : late).append(it.key());
        else if (it->age.elapsed() > m_options.timeoutMs)
            late.append(it.key());
    }
    for (const QString &peerKeyId : resend)
        sendProbe(peerKeyId, m_probes[peerKeyId], m_probes[peerKeyId].stage);
    for (const QString &peerKeyId : late)
        finish(peerKeyId, QStringLiteral("no answer within %1 ms").arg(m_options.timeoutMs));
}

void LinkProber::hangUpIdle()
{
    for (auto it = m_dialed.begin(); it != m_dialed.end();) {
        const QString peerKeyId = it.key();
        if (m_probes.contains(peerKeyId) || it->elapsed() < m_options.idleHangUpMs) {
            ++it;
            continue;
        }
        it = m_dialed.erase(it);
        if (m_transport.isConnected(peerKeyId) && !(m_keepConnection && m_keepConnection(peerKeyId)))
            m_transport.disconnectPeer(peerKeyId, QStringLiteral("the link is measured"));
    }
}

} // namespace swarmtrain
