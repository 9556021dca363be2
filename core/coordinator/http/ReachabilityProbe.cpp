#include "ReachabilityProbe.h"

#include <QTcpSocket>
#include <QTimer>

#include <memory>

namespace swarmtrain {

bool splitEndpoint(const QString &endpoint, QString &host, quint16 &port)
{
    const qsizetype colon = endpoint.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    host = endpoint.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint value = endpoint.mid(colon + 1).toUInt(&ok);
    if (!ok || value == 0 || value > 65535 || host.isEmpty() || host.size() > 253)
        return false;
    port = quint16(value);
    return true;
}

void probeTcpEndpoint(const QString &host, quint16 port, int timeoutMs, QObject *context,
                      std::function<void(bool)> done)
{
    auto *socket = new QTcpSocket(context);
    auto finish = std::make_shared<std::function<void(bool)>>(std::move(done));
    auto once = [socket, finish](bool reachable) {
        if (!*finish)
            return;
        const std::function<void(bool)> callback = std::exchange(*finish, nullptr);
        socket->abort();
        socket->deleteLater();
        callback(reachable);
    };
    QObject::connect(socket, &QTcpSocket::connected, socket, [once]() { once(true); });
    QObject::connect(socket, &QTcpSocket::errorOccurred, socket, [once]() { once(false); });
    QTimer::singleShot(timeoutMs, socket, [once]() { once(false); });
    socket->connectToHost(host, port);
}

} // namespace swarmtrain
