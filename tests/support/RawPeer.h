#pragma once

#include "EphemeralKeyPair.h"
#include "FrameCodec.h"
#include "FrameDecoder.h"
#include "Identity.h"
#include "PeerTransportHandshake.h"
#include "RecordOpener.h"
#include "RecordSealer.h"

#include <QSignalSpy>
#include <QTcpSocket>
#include <QtEndian>

#include <optional>

namespace swarmtrain::test {

// A hand-driven dialing peer on a bare socket, to say what a real PeerTransport never would:
// forged HELLOs and proofs, tampered, replayed or reordered sealed records. It speaks the
// handshake of PeerTransportHandshake.h step by step; once its proof is out it seals what it
// sends, and once the other side's proof is in it opens what it reads.
class RawPeer {
public:
    static constexpr int kWaitMs = 30000;

    explicit RawPeer(quint16 port, QByteArray nonce = makeHelloNonce())
        : m_nonce(std::move(nonce)), m_ephemeral(EphemeralKeyPair::generate().value())
    {
        QSignalSpy connected(&m_socket, &QTcpSocket::connected);
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        m_connected = connected.wait(kWaitMs) || m_socket.state() == QAbstractSocket::ConnectedState;
    }

    bool connected() const { return m_connected; }
    void write(const QByteArray &bytes) { m_socket.write(bytes); }

    // The bytes of a frame as this peer would send it now: sealed once its proof is out.
    QByteArray encode(const FrameHeader &header, const QByteArray &payload = {})
    {
        const QByteArray clear = *encodeFrame(header, payload);
        return m_sealer ? *m_sealer->seal(clear) : clear;
    }
    void send(const FrameHeader &header, const QByteArray &payload = {}) { write(encode(header, payload)); }
    // `clear` stream bytes sealed as this peer would (no check that they are a valid frame).
    QByteArray seal(const QByteArray &clear) { return m_sealer ? *m_sealer->seal(clear) : clear; }

    std::optional<Frame> readFrame()
    {
        for (;;) {
            if (std::optional<Frame> frame = m_decoder.takeFrame())
                return frame;
            if (m_decoder.failed() || (m_opener && m_opener->failed()))
                return std::nullopt;
            if (!m_opener && readClearFrame())
                continue;
            if (m_opener && m_socket.bytesAvailable() > 0) {
                QByteArray plaintext;
                m_opener->feed(m_socket.readAll(), plaintext);
                m_decoder.feed(plaintext);
                continue;
            }
            if (m_socket.state() != QAbstractSocket::ConnectedState)
                return std::nullopt;
            QSignalSpy readyRead(&m_socket, &QTcpSocket::readyRead);
            if (!readyRead.wait(kWaitMs))
                return std::nullopt;
        }
    }

    // True once the other side has closed; frames it sent before that are read first.
    bool waitForClose()
    {
        QSignalSpy disconnected(&m_socket, &QTcpSocket::disconnected);
        while (m_socket.state() == QAbstractSocket::ConnectedState) {
            if (!disconnected.wait(kWaitMs))
                return false;
        }
        return true;
    }

    // `ephemeralKey` empty: this peer's own.
    void sendHello(const Identity &identity, const QString &claimedKeyId, QByteArray ephemeralKey = {})
    {
        FrameHeader header;
        header.set_type(wire::FRAME_TYPE_HELLO);
        header.mutable_hello()->set_key_id(claimedKeyId.toStdString());
        header.mutable_hello()->set_public_key(identity.publicKey().toStdString());
        header.mutable_hello()->set_nonce(m_nonce.toStdString());
        header.mutable_hello()->set_protocol_version(kPeerProtocolVersion);
        const QByteArray key = ephemeralKey.isEmpty() ? m_ephemeral.publicKey() : ephemeralKey;
        header.mutable_hello()->set_ephemeral_key(key.toStdString());
        send(header);
    }

    // The other side's HELLO.
    std::optional<wire::Hello> readHello()
    {
        std::optional<Frame> frame = readFrame();
        if (!frame || frame->header.type() != wire::FRAME_TYPE_HELLO)
            return std::nullopt;
        return frame->header.hello();
    }

    // What this peer (the dialer, as `keyId`) and the other side said, with `ownEphemeralKey`
    // as ours (empty: the one we have).
    HandshakeTranscript transcript(const QString &keyId, const wire::Hello &theirs, QByteArray ownEphemeralKey = {}) const
    {
        return {keyId,
                QString::fromStdString(theirs.key_id()),
                m_nonce,
                QByteArray::fromStdString(theirs.nonce()),
                ownEphemeralKey.isEmpty() ? m_ephemeral.publicKey() : ownEphemeralKey,
                QByteArray::fromStdString(theirs.ephemeral_key())};
    }

    // Our proof, signed by `signer` over `signed`; then the session keys of the real exchange
    // (our ephemeral key and theirs) seal what we send.
    void sendProof(const Identity &signer, const HandshakeTranscript &signedTranscript, const QString &keyId,
                   const wire::Hello &theirs)
    {
        FrameHeader proof;
        proof.set_type(wire::FRAME_TYPE_HELLO_PROOF);
        proof.mutable_proof()->set_signature(
            signer.sign(helloProofMessage(signedTranscript.digest(), /*signerDialed=*/true)).toStdString());
        send(proof);
        m_transcriptDigest = transcript(keyId, theirs).digest();
        const QByteArray secret = *m_ephemeral.sharedSecret(QByteArray::fromStdString(theirs.ephemeral_key()));
        m_keys = *deriveSessionKeys(secret, m_transcriptDigest);
        m_sealer = RecordSealer::create(m_keys.dialerToAcceptor).value();
    }

    // Reads the other side's proof and checks it; from then on its frames are opened.
    bool readProof(const wire::Hello &theirs)
    {
        const std::optional<Frame> frame = readFrame();
        if (!frame || frame->header.type() != wire::FRAME_TYPE_HELLO_PROOF)
            return false;
        m_opener = RecordOpener::create(m_keys.acceptorToDialer).value();
        return Identity::verify(QByteArray::fromStdString(theirs.public_key()),
                                helloProofMessage(m_transcriptDigest, /*signerDialed=*/false),
                                QByteArray::fromStdString(frame->header.proof().signature()));
    }

    // A full, honest handshake as `identity`.
    bool handshake(const Identity &identity)
    {
        sendHello(identity, identity.keyId());
        const std::optional<wire::Hello> hello = readHello();
        if (!hello)
            return false;
        sendProof(identity, transcript(identity.keyId(), *hello), identity.keyId(), *hello);
        return readProof(*hello);
    }

    QTcpSocket &socket() { return m_socket; }
    const QByteArray &nonce() const { return m_nonce; }
    const EphemeralKeyPair &ephemeral() const { return m_ephemeral; }

private:
    // One whole clear frame, leaving sealed records behind it in the socket.
    bool readClearFrame()
    {
        char prefix[kFrameLengthPrefixBytes];
        if (m_socket.peek(prefix, kFrameLengthPrefixBytes) < kFrameLengthPrefixBytes)
            return false;
        const qint64 frameBytes = kFrameLengthPrefixBytes + qint64(qFromBigEndian<quint32>(prefix));
        if (m_socket.bytesAvailable() < frameBytes)
            return false;
        m_decoder.feed(m_socket.read(frameBytes));
        return true;
    }

    QTcpSocket m_socket;
    bool m_connected = false;
    FrameDecoder m_decoder;
    QByteArray m_nonce;
    EphemeralKeyPair m_ephemeral;
    QByteArray m_transcriptDigest;
    SessionKeys m_keys;
    std::optional<RecordSealer> m_sealer;
    std::optional<RecordOpener> m_opener;
};

} // namespace swarmtrain::test
