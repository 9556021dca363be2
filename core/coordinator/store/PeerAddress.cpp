#include "PeerAddress.h"

namespace swarmtrain {

QHostAddress normalizedAddress(const QHostAddress &address)
{
    bool mapped = false;
    const quint32 v4 = address.toIPv4Address(&mapped);
    return mapped ? QHostAddress(v4) : address;
}

QString subnetOf(const QHostAddress &address)
{
    const QHostAddress plain = normalizedAddress(address);
    if (plain.isNull())
        return {};
    if (plain.protocol() == QAbstractSocket::IPv4Protocol)
        return QHostAddress(plain.toIPv4Address() & 0xffffff00u).toString() + QStringLiteral("/24");
    Q_IPV6ADDR bytes = plain.toIPv6Address();
    for (int i = 8; i < 16; ++i)
        bytes[i] = 0;
    return QHostAddress(bytes).toString() + QStringLiteral("/64");
}

} // namespace swarmtrain
