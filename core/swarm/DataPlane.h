#pragma once

#include "ButterflyAllReduce.h"
#include "ControlMessages.h"
#include "LinkProber.h"
#include "Result.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <mutex>


namespace swarmtrain {

class Identity;
class NetworkThread;
class PeerTransport;

// The swarm worker's side of the peer-to-peer data plane: PeerTransport and ButterflyAllReduce
// on a network thread of their own (they need an event loop; the worker's thread runs the
// engine), driven from the worker's thread by blocking calls.
class DataPlane {
public:
    // `identity` must outlive the data plane.
    explicit DataPlane(const Identity &identity);
    ~DataPlane();
    DataPlane(const DataPlane &) = delete;
    DataPlane &operator=(const DataPlane &) = delete;

    // Accepts peers on `address:port` (port 0: any free port); returns the port.
    Result<quint16> listen(const QHostAddress &address, quint16 port);

    // The round's members' public keys, by key id: with the probe peers below, the only peers a
    // handshake accepts.
    void setKnownPeers(const QHash<QString, QByteArray> &publicKeys);

    // The coordinator's peers to exchange link probes with: their keys are accepted from now on
    // (the most recent few hundred), and each one with an endpoint is measured in the background.
    void exchangeProbes(const std::vector<ProbePeerInfo> &peers);
    // The links measured since the last call.
    QList<LinkMeasurement> takeLinkMeasurements();

    // Makes this peer's pieces of a round and returns their SHA-256 (hex) by owner, to commit
    // to before allReduce() with no pseudo-gradient sends them (ButterflyAllReduce::prepare).
    Result<QHash<QString, QByteArray>> preparePieces(quint64 round, QList<AllReduceMember> members,
                                                     std::vector<float> pseudoGradient, const Misbehaviour &misbehaviour);
    // Runs one butterfly all-reduce and waits for it; `whileWaiting` runs on the calling thread
    // about every `tickMs` (heartbeats) and may return false to give up (stop).
    Result<AllReduceOutcome> allReduce(quint64 round, QList<AllReduceMember> members, std::vector<float> pseudoGradient,
                                       double tokens, AllReduceOptions options,
                                       const std::function<bool()> &whileWaiting, int tickMs);

    // Forgets what quantization dropped (the replica was replaced by a downloaded state).
    void resetErrorFeedback();
    // The round this peer trains for now (ButterflyAllReduce::expectRound).
    void expectRound(quint64 round);

    qint64 bytesSent() const;
    qint64 bytesReceived() const;

private:
    // Runs `work` on the network thread and waits for it.
    void onNetworkThread(const std::function<void()> &work) const;

    std::unique_ptr<NetworkThread> m_thread;
    PeerTransport *m_transport = nullptr;     // lives on m_thread
    ButterflyAllReduce *m_allReduce = nullptr; // lives on m_thread
    LinkProber *m_prober = nullptr;            // lives on m_thread
    mutable std::mutex m_keysMutex;
    QHash<QString, QByteArray> m_keys;      // the round's members
    QHash<QString, QByteArray> m_probeKeys; // peers to exchange probes with
    QStringList m_probeOrder;               // oldest first, to forget the oldest
};

} // namespace swarmtrain
