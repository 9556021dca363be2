#include "BoundedHttpServer.h"

#include "CoordinatorLog.h"

#include <sys/resource.h>

#include <algorithm>

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
    // Every connection is a file descriptor, besides the database's, the state files' and the
    // peers' data plane: the soft limit (1,024 on many systems) is raised toward the hard one,
    // and the connection limit kept under what it allows.
    constexpr rlim_t kOtherDescriptors = 256;
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
        const rlim_t wanted = rlim_t(m_limits.maxConnections) + kOtherDescriptors;
        if (files.rlim_cur < wanted && files.rlim_cur != RLIM_INFINITY) {
            files.rlim_cur = files.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, files.rlim_max);
            (void)::setrlimit(RLIMIT_NOFILE, &files);
            (void)::getrlimit(RLIMIT_NOFILE, &files);
        }
        if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur < wanted) {
            m_limits.maxConnections = int(std::max<rlim_t>(files.rlim_cur, 2 * kOtherDescriptors) - kOtherDescriptors);
            qCWarning(lcCoordinator) << "at most" << m_limits.maxConnections << "HTTP connections: the open-file limit is"
                                     << qulonglong(files.rlim_cur);
        }
    }
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
    const bool full = m_connections >= m_limits.maxConnections;
    if (overAddressLimit || (full && !evictWaiting())) {
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

bool BoundedHttpServer::evictWaiting()
{
    struct Waiting {
        int count = 0;
        HttpConnection *oldest = nullptr;
    };
    QHash<QHostAddress, Waiting> byAddress;
    for (HttpConnection *connection : findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly)) {
        if (!connection->waitingForRequest())
            continue;
        Waiting &waiting = byAddress[connection->peerAddress()];
        ++waiting.count;
        if (!waiting.oldest || connection->waitingSince() < waiting.oldest->waitingSince())
            waiting.oldest = connection;
    }
    const Waiting *most = nullptr;
    for (const Waiting &waiting : std::as_const(byAddress)) {
        if (!most || waiting.count > most->count)
            most = &waiting;
    }
    if (!most)
        return false;
    most->oldest->evict();
    return true;
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
