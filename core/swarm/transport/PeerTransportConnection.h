#pragma once

#include "EphemeralKeyPair.h"
#include "Frame.h"
#include "FrameDecoder.h"
#include "PeerTransportHandshake.h"
#include "PeerTransportOptions.h"
#include "RecordOpener.h"
#include "RecordSealer.h"
#include "Result.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <optional>

class QTcpSocket;

namespace swarmtrain {

class Identity;

// One TCP connection to a peer, inside PeerTransport: runs the handshake, then turns the byte
// stream into frames. The HELLOs and proofs travel in clear; everything each side sends after
// its proof is sealed with that direction's session key (RecordSealer.h), so a frame that was
// altered, replayed or reordered on the way fails authentication. Any protocol violation closes
// the connection, after telling the peer why in an ERROR frame. It reports everything through
// signals and deletes itself once closed.
class PeerTransportConnection : public QObject {
    Q_OBJECT

public:
    enum class Direction { Inbound, Outbound };

    // Takes ownership of `socket`. `expectedKeyId` is the peer we dial (empty when inbound).
    PeerTransportConnection(QTcpSocket *socket, Direction direction, const Identity &identity,
                            const PeerKeyRegistry &registry, QString expectedKeyId, const PeerTransportOptions &options,
                            QObject *parent);
    ~PeerTransportConnection() override;

    // Sends our HELLO now (inbound) or once the socket connects (outbound).
    void start();

    bool isEstablished() const { return m_stage == Stage::Established; }
    bool isClosed() const { return m_stage == Stage::Closed; }
    Direction direction() const { return m_direction; }
    // The verified peer once established; before that the expected or claimed one (may be empty).
    QString peerKeyId() const { return m_peerKeyId; }
    QString peerAddress() const;
    // The nonce of the side that dialed: with the dialer's key id it names this connection
    // identically at both ends, which lets both ends agree on which of two duplicates to keep.
    QByteArray dialerNonce() const { return m_direction == Direction::Outbound ? m_ownNonce : m_peerNonce; }
    qint64 pendingWriteBytes() const;

    Result<void> send(const FrameHeader &header, QByteArrayView payload);

    // Closes from our side: the peer is sent `reason` in an ERROR frame when the socket still
    // works. Emits closed() unless `quietly`.
    void close(const QString &reason, bool quietly = false);

Q_SIGNALS:
    void established();
    void frameReceived(const swarmtrain::Frame &frame);
    // `rejectedFrame`: the peer broke the protocol (as opposed to leaving or saying why).
    void closed(const QString &reason, bool rejectedFrame);
    void bytesReceived(qint64 bytes);
    void bytesSent(qint64 bytes);
    void writeBufferDrained();

private:
    enum class Stage { Connecting, AwaitingHello, AwaitingProof, Established, Closed };

    void onConnected();
    void onReadyRead();
    // Until the peer's frames are sealed: one whole clear frame at a time, so the sealed records
    // that may follow the peer's proof in the same segment stay in the socket. False when no
    // whole frame is there yet.
    bool readClearFrame();
    void readSealed();
    void takeFrames();
    // Derives the session keys from the peer's HELLO; returns our direction's sealer.
    Result<RecordSealer> startSession(const wire::Hello &hello);
    void onSocketGone(const QString &why);
    void onBytesWritten(qint64 bytes);
    void handleFrame(const Frame &frame);
    void handleHello(const wire::Hello &hello);
    void handleProof(const wire::HelloProof &proof);
    void writeFrame(const FrameHeader &header);
    void reject(const QString &reason, bool rejectedFrame, bool quietly = false);
    void finish(const QString &reason, bool rejectedFrame, bool quietly);
    HandshakeTranscript transcript(const wire::Hello &peerHello) const;

    QTcpSocket *m_socket;
    Direction m_direction;
    const Identity &m_identity;
    const PeerKeyRegistry &m_registry;
    PeerTransportOptions m_options;
    FrameDecoder m_decoder;
    QTimer m_handshakeTimer;
    QTimer m_closeTimer;
    Stage m_stage = Stage::Connecting;
    QString m_peerKeyId;
    QByteArray m_peerPublicKey;
    QByteArray m_ownNonce;
    QByteArray m_peerNonce;
    std::optional<EphemeralKeyPair> m_ephemeral;
    QByteArray m_transcriptDigest;
    QByteArray m_receiveKey; // until the peer's proof, after which its frames come sealed
    std::optional<RecordSealer> m_sealer; // set once our proof is out
    std::optional<RecordOpener> m_opener; // set once the peer's proof is in
    QByteArray m_plaintext; // what the last chunk's records held
    bool m_drainWanted = false;
};

} // namespace swarmtrain
