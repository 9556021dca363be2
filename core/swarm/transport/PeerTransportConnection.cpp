#include "PeerTransportConnection.h"

#include "FrameCodec.h"
#include "Identity.h"
#include "QtText.h"

#include <QTcpSocket>
#include <QtEndian>

namespace swarmtrain {

namespace {

constexpr qint64 kReadChunkBytes = 1 << 20;
// A clear frame (HELLO, HELLO_PROOF, ERROR) is a few hundred bytes; nothing larger is read
// before the peer has proven who it is.
constexpr quint32 kMaxClearHeaderBytes = 4096;

} // namespace

PeerTransportConnection::PeerTransportConnection(QTcpSocket *socket, Direction direction, const Identity &identity,
                                                 const PeerKeyRegistry &registry, QString expectedKeyId,
                                                 const PeerTransportOptions &options, QObject *parent)
    : QObject(parent),
      m_socket(socket),
      m_direction(direction),
      m_identity(identity),
      m_registry(registry),
      m_options(options),
      m_decoder(options.limits),
      m_peerKeyId(std::move(expectedKeyId)),
      m_ownNonce(makeHelloNonce())
{
    if (Result<EphemeralKeyPair> key = EphemeralKeyPair::generate())
        m_ephemeral = std::move(key).value();
    m_socket->setParent(this);
    m_socket->setReadBufferSize(m_options.socketReadBufferBytes);
    m_handshakeTimer.setSingleShot(true);
    m_closeTimer.setSingleShot(true);

    connect(m_socket, &QTcpSocket::connected, this, &PeerTransportConnection::onConnected);
    connect(m_socket, &QTcpSocket::readyRead, this, &PeerTransportConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &PeerTransportConnection::onBytesWritten);
    connect(m_socket, &QTcpSocket::disconnected, this,
            [this] { onSocketGone(QStringLiteral("the peer closed the connection")); });
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        onSocketGone(error == QAbstractSocket::RemoteHostClosedError ? QStringLiteral("the peer closed the connection")
                                                                     : m_socket->errorString());
    });
    connect(&m_handshakeTimer, &QTimer::timeout, this,
            [this] { reject(QStringLiteral("handshake timed out"), /*rejectedFrame=*/false); });
    connect(&m_closeTimer, &QTimer::timeout, this, [this] {
        m_socket->abort();
        deleteLater();
    });
}

PeerTransportConnection::~PeerTransportConnection()
{
    // The socket is a child and outlives this body; keep its last signals away from us.
    QObject::disconnect(m_socket, nullptr, this, nullptr);
}

void PeerTransportConnection::start()
{
    m_handshakeTimer.start(m_options.handshakeTimeoutMs);
    if (m_socket->state() == QAbstractSocket::ConnectedState)
        onConnected();
}

QString PeerTransportConnection::peerAddress() const
{
    // A dial that never connected has no peer address yet, only the name it was given.
    const QString host = m_socket->peerAddress().isNull() ? m_socket->peerName() : m_socket->peerAddress().toString();
    return host + QLatin1Char(':') + QString::number(m_socket->peerPort());
}

qint64 PeerTransportConnection::pendingWriteBytes() const { return m_socket->bytesToWrite(); }

void PeerTransportConnection::onConnected()
{
    if (m_stage != Stage::Connecting)
        return;
    m_stage = Stage::AwaitingHello;
    if (!m_ephemeral)
        return reject(QStringLiteral("cannot make an ephemeral key (OpenSSL)"), false);
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_HELLO);
    wire::Hello *hello = header.mutable_hello();
    hello->set_key_id(m_identity.keyId().toStdString());
    hello->set_public_key(m_identity.publicKey().toStdString());
    hello->set_nonce(m_ownNonce.toStdString());
    hello->set_protocol_version(kPeerProtocolVersion);
    hello->set_ephemeral_key(m_ephemeral->publicKey().toStdString());
    writeFrame(header);
    // The peer may have spoken first; its bytes waited for our HELLO.
    onReadyRead();
}

Result<void> PeerTransportConnection::send(const FrameHeader &header, QByteArrayView payload)
{
    if (m_stage != Stage::Established)
        return makeError("connection to " + m_peerKeyId.toStdString() + " is not established");
    const qint64 queued = m_socket->bytesToWrite();
    Result<QByteArray> head = encodeFrameHeader(header, quint64(payload.size()), m_options.limits);
    if (!head)
        return head.error();
    const qint64 frameBytes = RecordSealer::sealedSize(head->size() + payload.size());
    if (queued > 0 && queued + frameBytes > m_options.maxWriteBufferBytes) {
        m_drainWanted = true;
        return makeError("write buffer to " + m_peerKeyId.toStdString() + " is full (" + std::to_string(queued)
                         + " bytes queued); wait for writeBufferDrained");
    }
    Result<QByteArray> sealed = m_sealer->seal(*head, payload);
    if (!sealed)
        return sealed.error();
    if (m_socket->write(*sealed) != sealed->size())
        return makeError("cannot write to " + m_peerKeyId.toStdString() + ": " + m_socket->errorString().toStdString());
    return {};
}

void PeerTransportConnection::writeFrame(const FrameHeader &header)
{
    // Our own control frames always encode; a failed write surfaces as the socket's error.
    Result<QByteArray> bytes = encodeFrame(header, {}, m_options.limits);
    if (bytes && m_sealer)
        bytes = m_sealer->seal(*bytes);
    if (bytes)
        m_socket->write(*bytes);
}

void PeerTransportConnection::onBytesWritten(qint64 bytes)
{
    Q_EMIT bytesSent(bytes);
    if (m_drainWanted && m_stage == Stage::Established && m_socket->bytesToWrite() == 0) {
        m_drainWanted = false;
        Q_EMIT writeBufferDrained();
    }
}

void PeerTransportConnection::onReadyRead()
{
    // Before our HELLO is out (an outbound socket still connecting) bytes wait in the socket.
    while (m_stage != Stage::Closed && m_stage != Stage::Connecting) {
        if (m_opener)
            return readSealed();
        if (!readClearFrame())
            return;
    }
}

bool PeerTransportConnection::readClearFrame()
{
    char prefix[kFrameLengthPrefixBytes];
    if (m_socket->peek(prefix, kFrameLengthPrefixBytes) < kFrameLengthPrefixBytes)
        return false;
    const quint32 headerBytes = qFromBigEndian<quint32>(prefix);
    if (headerBytes > kMaxClearHeaderBytes) {
        reject(QStringLiteral("rejected frame: a clear frame header of %1 bytes exceeds the limit of %2")
                   .arg(headerBytes)
                   .arg(kMaxClearHeaderBytes),
               true);
        return false;
    }
    const qint64 frameBytes = kFrameLengthPrefixBytes + qint64(headerBytes);
    if (m_socket->bytesAvailable() < frameBytes)
        return false;
    const QByteArray bytes = m_socket->read(frameBytes);
    Q_EMIT bytesReceived(bytes.size());
    if (!m_decoder.feed(bytes)) {
        reject(QStringLiteral("rejected frame: ") + toQString(m_decoder.error()->message), true);
        return false;
    }
    std::optional<Frame> frame = m_decoder.takeFrame();
    if (!frame) {
        // A valid header that announces a payload: no handshake frame carries one.
        FrameHeader header;
        header.ParseFromArray(bytes.constData() + kFrameLengthPrefixBytes, int(headerBytes));
        reject(QStringLiteral("rejected frame: %1 before the handshake completed")
                   .arg(QLatin1StringView(frameTypeName(header.type()))),
               true);
        return false;
    }
    handleFrame(*frame);
    return m_stage != Stage::Closed;
}

void PeerTransportConnection::readSealed()
{
    while (m_stage != Stage::Closed && m_socket->bytesAvailable() > 0) {
        const QByteArray chunk = m_socket->read(std::min(m_socket->bytesAvailable(), kReadChunkBytes));
        Q_EMIT bytesReceived(chunk.size());
        m_plaintext.resize(0); // keeps its buffer from chunk to chunk
        const bool authentic = m_opener->feed(chunk, m_plaintext);
        const bool intact = m_decoder.feed(m_plaintext);
        // Frames from records that authenticated before a bad one are the peer's own.
        takeFrames();
        if (m_stage == Stage::Closed)
            return;
        if (!authentic)
            return reject(QStringLiteral("rejected frame: ") + toQString(m_opener->error()->message), true);
        if (!intact)
            return reject(QStringLiteral("rejected frame: ") + toQString(m_decoder.error()->message), true);
    }
}

void PeerTransportConnection::takeFrames()
{
    while (m_stage != Stage::Closed) {
        std::optional<Frame> frame = m_decoder.takeFrame();
        if (!frame)
            return;
        handleFrame(*frame);
    }
}

void PeerTransportConnection::handleFrame(const Frame &frame)
{
    const wire::FrameType type = frame.header.type();
    if (type == wire::FRAME_TYPE_ERROR) {
        const QString message = toQString(frame.header.error_message()).left(200);
        return finish(QStringLiteral("the peer closed the connection: ") + message, false, false);
    }
    switch (m_stage) {
    case Stage::AwaitingHello:
        if (type == wire::FRAME_TYPE_HELLO)
            return handleHello(frame.header.hello());
        break;
    case Stage::AwaitingProof:
        if (type == wire::FRAME_TYPE_HELLO_PROOF)
            return handleProof(frame.header.proof());
        break;
    case Stage::Established:
        if (type == wire::FRAME_TYPE_TENSOR || type == wire::FRAME_TYPE_PROBE || type == wire::FRAME_TYPE_PROBE_REPLY
            || (type >= wire::FRAME_TYPE_STAGE_REQUEST && type <= wire::FRAME_TYPE_STAGE_REFUSED)) {
            Q_EMIT frameReceived(frame);
            return;
        }
        return reject(QStringLiteral("rejected frame: %1 after the handshake").arg(QLatin1StringView(frameTypeName(type))),
                      true);
    case Stage::Connecting:
    case Stage::Closed:
        return;
    }
    reject(QStringLiteral("rejected frame: %1 before the handshake completed").arg(QLatin1StringView(frameTypeName(type))),
           true);
}

void PeerTransportConnection::handleHello(const wire::Hello &hello)
{
    const QString expected = m_direction == Direction::Outbound ? m_peerKeyId : QString();
    if (m_direction == Direction::Inbound)
        m_peerKeyId = toQString(hello.key_id()).left(64);
    if (Result<void> valid = checkHello(hello, m_registry, expected); !valid)
        return reject(QStringLiteral("handshake refused: ") + toQString(valid.error().message), false);

    m_peerKeyId = toQString(hello.key_id());
    m_peerPublicKey = QByteArray::fromStdString(hello.public_key());
    m_peerNonce = QByteArray::fromStdString(hello.nonce());
    Result<RecordSealer> sealer = startSession(hello);
    if (!sealer)
        return reject(QStringLiteral("handshake refused: ") + toQString(sealer.error().message), false);
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_HELLO_PROOF);
    const QByteArray message = helloProofMessage(m_transcriptDigest, m_direction == Direction::Outbound);
    header.mutable_proof()->set_signature(m_identity.sign(message).toStdString());
    writeFrame(header);
    // Everything we send after our proof is sealed.
    m_sealer = std::move(sealer).value();
    m_stage = Stage::AwaitingProof;
}

Result<RecordSealer> PeerTransportConnection::startSession(const wire::Hello &hello)
{
    Result<QByteArray> secret = m_ephemeral->sharedSecret(QByteArray::fromStdString(hello.ephemeral_key()));
    if (!secret)
        return secret.error();
    m_transcriptDigest = transcript(hello).digest();
    Result<SessionKeys> keys = deriveSessionKeys(*secret, m_transcriptDigest);
    if (!keys)
        return keys.error();
    m_ephemeral.reset(); // its work is done; forget the private half
    const bool dialed = m_direction == Direction::Outbound;
    m_receiveKey = dialed ? keys->acceptorToDialer : keys->dialerToAcceptor;
    return RecordSealer::create(dialed ? keys->dialerToAcceptor : keys->acceptorToDialer);
}

HandshakeTranscript PeerTransportConnection::transcript(const wire::Hello &peerHello) const
{
    const bool dialed = m_direction == Direction::Outbound;
    const QString ownKeyId = m_identity.keyId();
    const QString peerKeyId = toQString(peerHello.key_id());
    const QByteArray ownKey = m_ephemeral->publicKey();
    const QByteArray peerKey = QByteArray::fromStdString(peerHello.ephemeral_key());
    return {dialed ? ownKeyId : peerKeyId, dialed ? peerKeyId : ownKeyId, dialed ? m_ownNonce : m_peerNonce,
            dialed ? m_peerNonce : m_ownNonce, dialed ? ownKey : peerKey, dialed ? peerKey : ownKey};
}

void PeerTransportConnection::handleProof(const wire::HelloProof &proof)
{
    // The peer seals everything after its proof, whether or not this one verifies (an ERROR).
    Result<RecordOpener> opener = RecordOpener::create(m_receiveKey);
    m_receiveKey.clear();
    if (!opener)
        return reject(QStringLiteral("handshake refused: ") + toQString(opener.error().message), false);
    m_opener = std::move(opener).value();
    const QByteArray message = helloProofMessage(m_transcriptDigest, m_direction == Direction::Inbound);
    if (!Identity::verify(m_peerPublicKey, message, QByteArray::fromStdString(proof.signature())))
        return reject(QStringLiteral("handshake refused: the peer's proof does not verify (forged, replayed, or a "
                                     "key swapped on the way)"),
                      false);
    m_handshakeTimer.stop();
    m_stage = Stage::Established;
    Q_EMIT established();
}

void PeerTransportConnection::onSocketGone(const QString &why)
{
    if (m_stage == Stage::Closed)
        return;
    // Whatever arrived with the close (an ERROR frame saying why, the last frames) comes first.
    onReadyRead();
    if (m_stage == Stage::Closed)
        return;
    const quint64 unread = m_opener ? m_opener->partialRecordBytes() : quint64(m_socket->bytesAvailable());
    if (const quint64 partial = m_decoder.partialFrameBytes() + unread; partial > 0)
        return finish(QStringLiteral("rejected frame: truncated, the connection ended %1 bytes into a frame").arg(partial),
                      true, false);
    finish(why, false, false);
}

void PeerTransportConnection::close(const QString &reason, bool quietly)
{
    reject(reason, /*rejectedFrame=*/false, quietly);
}

void PeerTransportConnection::reject(const QString &reason, bool rejectedFrame, bool quietly)
{
    if (m_stage == Stage::Closed)
        return;
    // Tell the peer why: a refused handshake is otherwise hard to diagnose on the other side.
    if (m_socket->state() == QAbstractSocket::ConnectedState) {
        FrameHeader header;
        header.set_type(wire::FRAME_TYPE_ERROR);
        header.set_error_message(reason.left(200).toStdString());
        writeFrame(header);
    }
    finish(reason, rejectedFrame, quietly);
}

void PeerTransportConnection::finish(const QString &reason, bool rejectedFrame, bool quietly)
{
    m_stage = Stage::Closed;
    m_handshakeTimer.stop();
    if (m_socket->state() == QAbstractSocket::UnconnectedState) {
        deleteLater();
    } else {
        // Flush what is queued (the ERROR frame), then go; a peer that does not read gets aborted.
        connect(m_socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
        m_socket->disconnectFromHost();
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            deleteLater();
        else
            m_closeTimer.start(m_options.closeGraceMs);
    }
    if (!quietly)
        Q_EMIT closed(reason, rejectedFrame);
}

} // namespace swarmtrain
