#pragma once

#include "HttpConnection.h"
#include "HttpLimits.h"
#include "HttpListener.h"
#include "Result.h"

#include <QHash>
#include <QHostAddress>
#include <QSslConfiguration>

#include <optional>

namespace swarmtrain {

// A small HTTP/1.1 server on QTcpServer whose every cost is bounded before it is paid (issue 16):
// connections in total (making room by evicting one that waits for a request) and per address,
// the head's size and time, bodies by their route's limit before they are read (spooled to disk
// when large), one request at a time per connection, and downloads streamed from their file.
// What to accept and how to answer are the owner's: admit() sees each head, handle() each
// complete request.
class BoundedHttpServer : public QObject {
    Q_OBJECT

public:
    BoundedHttpServer(HttpLimits limits, HttpConnection::Admit admit, HttpConnection::Handle handle,
                      QObject *parent = nullptr);
    ~BoundedHttpServer() override;

    // Listens (TLS when a configuration with a certificate and key is given); returns the port.
    Result<quint16> listen(const QHostAddress &address, quint16 port, std::optional<QSslConfiguration> tls);
    int connectionCount() const { return m_connections; }
    const HttpBudget &budget() const { return m_budget; }

private:
    void accept(QTcpSocket *socket);
    void forget(HttpConnection *connection);
    // At the connection limit: closes the connection that has waited longest for a request,
    // among those of the address holding the most such connections. A flood of connections
    // that never send a request (half-open, from many addresses) thus loses its own oldest
    // connections, not a newcomer; false when every connection is busy with a request.
    bool evictWaiting();

    HttpLimits m_limits;
    HttpConnection::Admit m_admit;
    HttpConnection::Handle m_handle;
    HttpListener m_listener;
    HttpBudget m_budget;
    int m_connections = 0;
    QHash<QHostAddress, int> m_perAddress;
};

} // namespace swarmtrain
