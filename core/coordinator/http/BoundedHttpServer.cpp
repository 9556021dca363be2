#include "BoundedHttpServer.h"

#include "CoordinatorLog.h"

namespace swarmtrain {

BoundedHttpServer::BoundedHttpServer(HttpLimits limits, HttpConnection::Admit admit, HttpConnection::Handle handle,
                                     QObject *parent)
    : QObject(parent), m_limits(limits), m_admit(std::move(admit)), m_handle(std::move(handle))
{
    connect(&m_listener, &HttpListener::accepted, this, &BoundedHttpServer::accept);
}

// The connections first: they give their share of the budget back as they go.
BoundedHttpServer::~BoundedHttpServer() { qDeleteAll(findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly)); }

Result<quint16> BoundedHttpServer::listen(const QHostAddress &address, quint16 port,
                                          std::optional<QSslConfiguration> tls)
{
    m_listener.setTls(std::move(tls));
    if (!m_listener.listen(address, port))
        return makeError("cannot listen on " + address.toString().toStdString() + ":" + std::to_string(port) + ": "
                         + m_listener.errorString().toStdString());
    return m_listener.serverPort();
}

void BoundedHttpServer::accept(QTcpSocket *socket)
{
    const QHostAddress address = socket->peerAddress();
    int &fromAddress = m_perAddress[address];
    const bool overAddressLimit = fromAddress >= m_limits.maxConnectionsPerAddress && !m_limits.isTrustedProxy(address);
    if (m_connections >= m_limits.maxConnections || overAddressLimit) {
        if (fromAddress == 0)
            m_perAddress.remove(address);
        qCDebug(lcCoordinator) << "refused a connection from" << address.toString() << ":" << m_connections
                               << "connections in all," << fromAddress << "from that address";
        socket->abort();
        socket->deleteLater();
        return;
    }
    ++fromAddress;
    ++m_connections;
    auto *connection = new HttpConnection(socket, m_limits, m_budget, m_admit, m_handle, this);
    connect(connection, &HttpConnection::closed, this, [this, connection] { forget(connection); });
}

void BoundedHttpServer::forget(HttpConnection *connection)
{
    --m_connections;
    const auto found = m_perAddress.find(connection->peerAddress());
    if (found != m_perAddress.end() && --found.value() <= 0)
        m_perAddress.erase(found);
    connection->deleteLater();
}

} // namespace swarmtrain
