#include "HttpLimits.h"

#include "PeerAddress.h"

#include <algorithm>

namespace swarmtrain {

bool HttpLimits::isTrustedProxy(const QHostAddress &address) const
{
    const QHostAddress from = normalizedAddress(address);
    return std::any_of(trustedProxies.begin(), trustedProxies.end(),
                       [&](const QHostAddress &proxy) { return normalizedAddress(proxy) == from; });
}

QHostAddress HttpLimits::clientAddress(const QHostAddress &connectedFrom, QByteArrayView forwardedFor) const
{
    if (forwardedFor.isEmpty() || !isTrustedProxy(connectedFrom))
        return connectedFrom;
    // The proxy appends the address it saw; entries before it are whatever the client claimed.
    const QByteArray all = forwardedFor.toByteArray();
    const QByteArray last = all.mid(all.lastIndexOf(',') + 1).trimmed();
    const QHostAddress client(QString::fromLatin1(last));
    return client.isNull() ? connectedFrom : client;
}

} // namespace swarmtrain
