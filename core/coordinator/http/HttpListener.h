#pragma once

#include <QSslConfiguration>
#include <QTcpServer>

#include <optional>

class QTcpSocket;

namespace swarmtrain {

// The listening socket of BoundedHttpServer: hands each accepted connection over at once, as a
// QTcpSocket or, with TLS, a QSslSocket whose handshake has just begun, so the server's limits
// and timeouts cover the handshake too (QSslServer would hold it until the handshake ends).
class HttpListener : public QTcpServer {
    Q_OBJECT

public:
    explicit HttpListener(QObject *parent = nullptr) : QTcpServer(parent) {}

    void setTls(std::optional<QSslConfiguration> tls) { m_tls = std::move(tls); }

Q_SIGNALS:
    void accepted(QTcpSocket *socket);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    std::optional<QSslConfiguration> m_tls;
};

} // namespace swarmtrain
