#include "PeerTransport.h"

#include "Identity.h"
#include "PeerTransportConnection.h"

#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcTransport, "swarmtrain.transport")

namespace {

struct Endpoint {
    QString host;
    quint16 port = 0;
};

Result<Endpoint> parseEndpoint(const QString &endpoint)
{
    const qsizetype colon = endpoint.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return makeError("endpoint '" + endpoint.left(100).toStdString() + "' is not host:port");
    QString host = endpoint.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    else if (host.contains(QLatin1Char(':')))
        return makeError("endpoint '" + endpoint.left(100).toStdString() + "': write an IPv6 host as [address]:port");
    bool ok = false;
    const uint port = endpoint.mid(colon + 1).toUInt(&ok);
    if (host.isEmpty() || !ok || port == 0 || port > 65535)
        return makeError("endpoint '" + endpoint.left(100).toStdString() + "' is not host:port");
    return Endpoint{host, quint16(port)};
}

bool isAnyAddress(const QHostAddress &address)
{
    return address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv4)
           || address == QHostAddress(QHostAddress::AnyIPv6);
}

} // namespace

PeerTransport::PeerTransport(const Identity &identity, PeerKeyRegistry registry, PeerTransportOptions options,
                             QObject *parent)
    : QObject(parent), m_identity(identity), m_registry(std::move(registry)), m_options(options)
{
}

PeerTransport::~PeerTransport()
{
    // Connections are children; they must not call back into a transport being destroyed.
    for (QObject *child : children())
        QObject::disconnect(child, nullptr, this, nullptr);
}

Result<quint16> PeerTransport::listen(const QHostAddress &address, quint16 port)
{
    if (!m_server) {
        m_server = new QTcpServer(this);
        connect(m_server, &QTcpServer::newConnection, this, &PeerTransport::onNewConnection);
    }
    if (m_server->isListening())
        m_server->close();
    if (!m_server->listen(address, port))
        return makeError("cannot listen on " + address.toString().toStdString() + ":" + std::to_string(port) + ": "
                         + m_server->errorString().toStdString());
    qCInfo(lcTransport).noquote() << "listening on" << address.toString() << m_server->serverPort();
    return m_server->serverPort();
}

Result<void> PeerTransport::connectToPeer(const QString &endpoint, const QString &expectedKeyId)
{
    Result<Endpoint> parsed = parseEndpoint(endpoint);
    if (!parsed)
        return parsed.error();
    if (expectedKeyId.isEmpty())
        return makeError("connectToPeer needs the key id of the peer at " + endpoint.left(100).toStdString());
    auto *socket = new QTcpSocket;
    // Listening on one address of a multi-homed host: leave from it too, so peers (and link
    // emulators) see the address this peer is reached at.
    if (m_server && m_server->isListening() && !isAnyAddress(m_server->serverAddress()))
        socket->bind(m_server->serverAddress());
    auto *connection = new PeerTransportConnection(socket, PeerTransportConnection::Direction::Outbound, m_identity,
                                                   m_registry, expectedKeyId, m_options, this);
    adopt(connection);
    socket->connectToHost(parsed->host, parsed->port);
    return {};
}

void PeerTransport::onNewConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        if (m_handshaking.size() >= m_options.maxPendingHandshakes) {
            qCWarning(lcTransport).noquote() << "refusing" << socket->peerAddress().toString()
                                   << ": too many connections in their handshake";
            socket->abort();
            socket->deleteLater();
            continue;
        }
        adopt(new PeerTransportConnection(socket, PeerTransportConnection::Direction::Inbound, m_identity, m_registry,
                                          QString(), m_options, this));
    }
}

void PeerTransport::adopt(PeerTransportConnection *connection)
{
    m_handshaking.insert(connection);
    connect(connection, &PeerTransportConnection::established, this, [this, connection] { onEstablished(connection); });
    connect(connection, &PeerTransportConnection::closed, this,
            [this, connection](const QString &reason, bool rejectedFrame) { onClosed(connection, reason, rejectedFrame); });
    connect(connection, &PeerTransportConnection::frameReceived, this, [this, connection](const Frame &frame) {
        Q_EMIT frameReceived(connection->peerKeyId(), frame.header, frame.payload);
    });
    connect(connection, &PeerTransportConnection::bytesReceived, this, [this](qint64 bytes) { m_bytesReceived += bytes; });
    connect(connection, &PeerTransportConnection::bytesSent, this, [this](qint64 bytes) { m_bytesSent += bytes; });
    connect(connection, &PeerTransportConnection::writeBufferDrained, this,
            [this, connection] { Q_EMIT writeBufferDrained(connection->peerKeyId()); });
    connection->start();
}

std::pair<QString, QByteArray> PeerTransport::rankOf(const PeerTransportConnection *connection) const
{
    const bool outbound = connection->direction() == PeerTransportConnection::Direction::Outbound;
    return {outbound ? m_identity.keyId() : connection->peerKeyId(), connection->dialerNonce()};
}

void PeerTransport::onEstablished(PeerTransportConnection *connection)
{
    m_handshaking.remove(connection);
    const QString keyId = connection->peerKeyId();
    if (keyId == m_identity.keyId()) {
        connection->close(QStringLiteral("connection to self"), /*quietly=*/true);
        return;
    }
    if (PeerTransportConnection *existing = m_peers.value(keyId)) {
        // Both ends make the same choice, so a simultaneous dial leaves exactly one connection.
        const bool keepNew = rankOf(connection) < rankOf(existing);
        PeerTransportConnection *dropped = keepNew ? existing : connection;
        qCInfo(lcTransport).noquote() << "two connections with" << keyId << "- closing the one dialed by"
                                      << rankOf(dropped).first;
        dropped->close(QStringLiteral("duplicate connection"), /*quietly=*/true);
        if (!keepNew)
            return;
        m_peers.insert(keyId, connection);
        return;
    }
    m_peers.insert(keyId, connection);
    qCInfo(lcTransport).noquote() << "connected to" << keyId << "at" << connection->peerAddress();
    Q_EMIT peerConnected(keyId);
}

void PeerTransport::onClosed(PeerTransportConnection *connection, const QString &reason, bool rejectedFrame)
{
    const QString keyId = connection->peerKeyId();
    if (m_handshaking.remove(connection)) {
        // Someone connected and left without a word: the coordinator's reachability probe, or
        // a port scan. Not worth a warning.
        if (keyId.isEmpty() && !rejectedFrame)
            qCDebug(lcTransport).noquote() << "an unnamed connection closed:" << reason;
        else
            qCWarning(lcTransport).noquote() << "connection with" << (keyId.isEmpty() ? QStringLiteral("?") : keyId)
                                             << "at" << connection->peerAddress() << "failed:" << reason;
        Q_EMIT connectionFailed(keyId, reason);
        return;
    }
    if (m_peers.value(keyId) != connection)
        return;
    m_peers.remove(keyId);
    if (rejectedFrame) {
        ++m_rejectedFrames[keyId];
        qCWarning(lcTransport).noquote() << "closing connection with" << keyId << ":" << reason;
        Q_EMIT frameRejected(keyId, reason);
    } else {
        qCInfo(lcTransport).noquote() << "disconnected from" << keyId << ":" << reason;
    }
    Q_EMIT peerDisconnected(keyId, reason);
}

Result<void> PeerTransport::send(const QString &peerKeyId, const FrameHeader &header, QByteArrayView payload)
{
    PeerTransportConnection *connection = m_peers.value(peerKeyId);
    if (!connection)
        return makeError("not connected to " + peerKeyId.left(64).toStdString());
    return connection->send(header, payload);
}

void PeerTransport::disconnectPeer(const QString &peerKeyId, const QString &reason)
{
    if (PeerTransportConnection *connection = m_peers.value(peerKeyId))
        connection->close(reason);
}

qint64 PeerTransport::pendingWriteBytes(const QString &peerKeyId) const
{
    const PeerTransportConnection *connection = m_peers.value(peerKeyId);
    return connection ? connection->pendingWriteBytes() : 0;
}

} // namespace swarmtrain
