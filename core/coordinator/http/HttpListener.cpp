#include "HttpListener.h"

#include <QSslSocket>

namespace swarmtrain {

void HttpListener::incomingConnection(qintptr descriptor)
{
    if (!m_tls) {
        auto *socket = new QTcpSocket;
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        Q_EMIT accepted(socket);
        return;
    }
    auto *socket = new QSslSocket;
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    socket->setSslConfiguration(*m_tls);
    socket->startServerEncryption();
    Q_EMIT accepted(socket);
}

} // namespace swarmtrain
