#include "DataPlane.h"

#include "CryptoLifetime.h"
#include "Identity.h"
#include "NetworkThread.h"
#include "PeerTransport.h"

#include <QLoggingCategory>

#include <chrono>
#include <condition_variable>
#include <exception>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcDataPlane, "swarmtrain.dataplane")

namespace {
constexpr qsizetype kMaxProbeKeys = 256;
}

DataPlane::DataPlane(const Identity &identity)
    : m_thread(std::make_unique<NetworkThread>(QStringLiteral("swarmtrain network")))
{
    PeerKeyRegistry registry = [this](const QString &keyId) -> std::optional<QByteArray> {
        std::lock_guard lock(m_keysMutex);
        if (const auto found = m_keys.constFind(keyId); found != m_keys.constEnd())
            return *found;
        if (const auto found = m_probeKeys.constFind(keyId); found != m_probeKeys.constEnd())
            return *found;
        return std::nullopt;
    };
    const QString self = identity.keyId();
    onNetworkThread([&] {
        m_transport = new PeerTransport(identity, std::move(registry));
        m_allReduce = new ButterflyAllReduce(*m_transport, self, m_transport);
        // A connection to a member of the round stays open once its link is measured.
        m_prober = new LinkProber(*m_transport, LinkProberOptions{}, [this](const QString &keyId) {
            std::lock_guard lock(m_keysMutex);
            return m_keys.contains(keyId);
        }, m_transport);
    });
}

DataPlane::~DataPlane()
{
    // In dependency order, on their thread: the all-reduce and the prober use the transport
    // and its signals, so they go before it, with nothing left in flight.
    try {
        onNetworkThread([this] {
            m_allReduce->abort();
            delete m_allReduce;
            delete m_prober;
            delete m_transport;
            releaseThreadCrypto(); // the sealed streams' (CryptoLifetime.h)
        });
    } catch (const std::exception &e) {
        qCWarning(lcDataPlane) << "closing the data plane:" << e.what();
    }
    m_thread->stop();
}

void DataPlane::onNetworkThread(const std::function<void()> &work) const { m_thread->run(work); }

Result<quint16> DataPlane::listen(const QHostAddress &address, quint16 port)
{
    Result<quint16> result = makeError("not started");
    onNetworkThread([&] { result = m_transport->listen(address, port); });
    return result;
}

void DataPlane::setKnownPeers(const QHash<QString, QByteArray> &publicKeys)
{
    std::lock_guard lock(m_keysMutex);
    m_keys = publicKeys;
}

void DataPlane::exchangeProbes(const std::vector<ProbePeerInfo> &peers)
{
    QList<ProbeTarget> targets;
    {
        std::lock_guard lock(m_keysMutex);
        for (const ProbePeerInfo &peer : peers) {
            if (!m_probeKeys.contains(peer.peerId))
                m_probeOrder.append(peer.peerId);
            m_probeKeys.insert(peer.peerId, peer.publicKey);
            if (!peer.endpoint.isEmpty())
                targets.append({peer.peerId, peer.endpoint});
        }
        while (m_probeOrder.size() > kMaxProbeKeys)
            m_probeKeys.remove(m_probeOrder.takeFirst());
    }
    if (!targets.isEmpty())
        m_thread->post([this, targets] {
            try {
                m_prober->probe(targets);
            } catch (const std::exception &e) {
                qCWarning(lcDataPlane) << "cannot probe links:" << e.what();
            }
        });
}

QList<LinkMeasurement> DataPlane::takeLinkMeasurements()
{
    QList<LinkMeasurement> measurements;
    onNetworkThread([&] { measurements = m_prober->takeMeasurements(); });
    return measurements;
}

Result<QHash<QString, QByteArray>> DataPlane::preparePieces(quint64 round, QList<AllReduceMember> members,
                                                          std::vector<float> pseudoGradient,
                                                          const Misbehaviour &misbehaviour)
{
    Result<QHash<QString, QByteArray>> hashes = makeError("not started");
    onNetworkThread([&] { hashes = m_allReduce->prepare(round, std::move(members), std::move(pseudoGradient), misbehaviour); });
    return hashes;
}

Result<AllReduceOutcome> DataPlane::allReduce(quint64 round, QList<AllReduceMember> members,
                                              std::vector<float> pseudoGradient, double tokens,
                                              AllReduceOptions options, const std::function<bool()> &whileWaiting,
                                              int tickMs)
{
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;
    AllReduceOutcome outcome;
    Result<void> started;
    QMetaObject::Connection connection;
    onNetworkThread([&] {
        // Runs on the network thread, before start() can finish.
        connection = QObject::connect(m_allReduce, &ButterflyAllReduce::finished, m_allReduce, [&](quint64 finished) {
            if (finished != round)
                return;
            std::lock_guard lock(mutex);
            outcome = m_allReduce->outcome();
            done = true;
            wake.notify_all();
        });
        started = m_allReduce->start(round, std::move(members), std::move(pseudoGradient), tokens, options);
    });
    auto disconnect = [&] { onNetworkThread([&] { QObject::disconnect(connection); }); };
    if (!started) {
        disconnect();
        return started.error();
    }
    for (;;) {
        {
            std::unique_lock lock(mutex);
            if (wake.wait_for(lock, std::chrono::milliseconds(tickMs), [&] { return done; }))
                break;
        }
        if (whileWaiting && !whileWaiting()) {
            // The caller leaves: the round goes on without us, and nothing of it stays running.
            onNetworkThread([&] {
                QObject::disconnect(connection);
                m_allReduce->abort();
            });
            return makeError("stopped during the all-reduce");
        }
    }
    disconnect();
    return outcome;
}

void DataPlane::resetErrorFeedback()
{
    onNetworkThread([this] { m_allReduce->resetErrorFeedback(); });
}

void DataPlane::expectRound(quint64 round)
{
    onNetworkThread([this, round] { m_allReduce->expectRound(round); });
}

qint64 DataPlane::bytesSent() const
{
    qint64 bytes = 0;
    onNetworkThread([&] { bytes = m_transport->bytesSent(); });
    return bytes;
}

qint64 DataPlane::bytesReceived() const
{
    qint64 bytes = 0;
    onNetworkThread([&] { bytes = m_transport->bytesReceived(); });
    return bytes;
}

} // namespace swarmtrain
