#pragma once

#include "Frame.h"
#include "PeerTransportHandshake.h"
#include "PeerTransportOptions.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <utility>

class QTcpServer;

namespace swarmtrain {

class Identity;
class PeerTransportConnection;

// The peer-to-peer data plane (DESIGN.md, "Swarm protocol"): TCP connections to other peers,
// each opened with a mutual signed handshake against the keys the coordinator registered, then
// carrying frames sealed with that connection's session keys (PeerTransportConnection.h). Lives on the thread that owns it (the network thread); talk to it from
// elsewhere through queued signals or QMetaObject::invokeMethod. Signals are emitted while a
// connection is reading: a slot may send or disconnect, but must not delete the transport
// (use deleteLater).
//
// A connection that breaks the protocol (a frame over the limits, inconsistent sizes, a frame
// before the handshake, a bad proof, a sealed record that fails authentication) is closed, with the reason logged ("swarmtrain.transport")
// and signalled. One connection per peer: when two connections with a peer complete their
// handshake (both dialed at once, or one dialed twice), both ends keep the same one, the one
// whose dialer has the smaller key id, then the smaller HELLO nonce, and close the other
// without a peerDisconnected; frames in flight on the closed one are lost.
class PeerTransport : public QObject {
    Q_OBJECT

public:
    // `identity` must outlive the transport.
    PeerTransport(const Identity &identity, PeerKeyRegistry registry, PeerTransportOptions options = {},
                  QObject *parent = nullptr);
    ~PeerTransport() override;

    // Accepts peers on `address`; port 0 asks the OS for a free port. Returns the port.
    Result<quint16> listen(const QHostAddress &address, quint16 port = 0);

    // Dials "host:port" (IPv6 as "[::1]:port") and expects the peer there to be `expectedKeyId`.
    // Only a malformed endpoint fails here; the outcome comes as peerConnected or
    // connectionFailed.
    Result<void> connectToPeer(const QString &endpoint, const QString &expectedKeyId);

    // Queues a frame to a connected peer. Fails for an unknown peer, an invalid header, or a full
    // write buffer (then writeBufferDrained(peerKeyId) says when to try again).
    Result<void> send(const QString &peerKeyId, const FrameHeader &header, QByteArrayView payload);

    void disconnectPeer(const QString &peerKeyId, const QString &reason);

    bool isConnected(const QString &peerKeyId) const { return m_peers.contains(peerKeyId); }
    QStringList connectedPeers() const { return m_peers.keys(); }
    // Frames of this peer's that broke the protocol, kept after it disconnects so callers can
    // count them against the sender.
    int rejectedFrames(const QString &peerKeyId) const { return m_rejectedFrames.value(peerKeyId); }
    qint64 pendingWriteBytes(const QString &peerKeyId) const;
    qint64 bytesSent() const { return m_bytesSent; }
    qint64 bytesReceived() const { return m_bytesReceived; }

Q_SIGNALS:
    void peerConnected(const QString &peerKeyId);
    void peerDisconnected(const QString &peerKeyId, const QString &reason);
    // A connection that never completed its handshake; `peerKeyId` is the one dialed or the
    // one claimed, empty if unknown.
    void connectionFailed(const QString &peerKeyId, const QString &reason);
    void frameReceived(const QString &peerKeyId, const swarmtrain::FrameHeader &header, const QByteArray &payload);
    // A peer's frame broke the protocol; its connection is closed (peerDisconnected follows).
    void frameRejected(const QString &peerKeyId, const QString &reason);
    void writeBufferDrained(const QString &peerKeyId);

private:
    void onNewConnection();
    void adopt(PeerTransportConnection *connection);
    void onEstablished(PeerTransportConnection *connection);
    void onClosed(PeerTransportConnection *connection, const QString &reason, bool rejectedFrame);
    // Orders connections with one peer the same way at both ends.
    std::pair<QString, QByteArray> rankOf(const PeerTransportConnection *connection) const;

    const Identity &m_identity;
    PeerKeyRegistry m_registry;
    PeerTransportOptions m_options;
    QTcpServer *m_server = nullptr;
    QSet<PeerTransportConnection *> m_handshaking;
    QHash<QString, PeerTransportConnection *> m_peers;
    QHash<QString, int> m_rejectedFrames;
    qint64 m_bytesSent = 0;
    qint64 m_bytesReceived = 0;
};

} // namespace swarmtrain
