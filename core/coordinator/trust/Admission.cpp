#include "Admission.h"

#include <openssl/crypto.h>

namespace swarmtrain::admission {

QHostAddress normalized(const QHostAddress &address)
{
    bool mapped = false;
    const quint32 v4 = address.toIPv4Address(&mapped);
    return mapped ? QHostAddress(v4) : address;
}

QString subnetOf(const QHostAddress &address)
{
    const QHostAddress plain = normalized(address);
    if (plain.protocol() == QAbstractSocket::IPv4Protocol)
        return QHostAddress(plain.toIPv4Address() & 0xffffff00u).toString() + QStringLiteral("/24");
    Q_IPV6ADDR bytes = plain.toIPv6Address();
    for (int i = 8; i < 16; ++i)
        bytes[i] = 0;
    return QHostAddress(bytes).toString() + QStringLiteral("/64");
}

Result<void> checkAdmission(const TrustSettings &settings, const QString &keyId, const QString &inviteToken)
{
    switch (settings.admission) {
    case Admission::Open:
        return {};
    case Admission::Invite: {
        const QByteArray given = inviteToken.toUtf8();
        const QByteArray wanted = settings.inviteToken.toUtf8();
        // Constant time, so the token cannot be guessed a byte at a time from answer times.
        if (wanted.isEmpty() || given.size() != wanted.size()
            || CRYPTO_memcmp(given.constData(), wanted.constData(), std::size_t(wanted.size())) != 0)
            return makeError("this swarm is invite-only: join with its invite link");
        return {};
    }
    case Admission::Allowlist:
        if (!settings.allowedKeys.contains(keyId))
            return makeError("this swarm admits only the keys on its host's list; key " + keyId.toStdString()
                             + " is not on it");
        return {};
    }
    return makeError("unknown admission mode");
}

Result<void> checkEndpointHost(const QString &endpointHost, const QHostAddress &from)
{
    const QHostAddress named(endpointHost);
    if (named.isNull())
        return makeError("the endpoint's host must be an IP address (or \"*\" for the address the request comes from),"
                         " not a name: " + endpointHost.toStdString());
    if (normalized(named) != normalized(from))
        return makeError("the endpoint's host " + endpointHost.toStdString()
                         + " is not the address the request comes from (" + normalized(from).toString().toStdString()
                         + "); use \"*:PORT\"");
    return {};
}

Result<void> checkAddressLimits(const TrustSettings &settings, const QHostAddress &from,
                                const std::vector<PeerRecord> &online)
{
    const QHostAddress address = normalized(from);
    const QString subnet = subnetOf(address);
    int sameAddress = 0;
    int sameSubnet = 0;
    for (const PeerRecord &peer : online) {
        const QHostAddress theirs(peer.address);
        if (theirs.isNull())
            continue;
        sameAddress += normalized(theirs) == address ? 1 : 0;
        sameSubnet += subnetOf(theirs) == subnet ? 1 : 0;
    }
    if (settings.maxPeersPerAddress > 0 && sameAddress >= settings.maxPeersPerAddress)
        return makeError(std::to_string(sameAddress) + " identities from " + address.toString().toStdString()
                         + " are online already, the most this swarm allows from one address");
    if (settings.maxPeersPerSubnet > 0 && sameSubnet >= settings.maxPeersPerSubnet)
        return makeError(std::to_string(sameSubnet) + " identities from " + subnet.toStdString()
                         + " are online already, the most this swarm allows from one subnet");
    return {};
}

} // namespace swarmtrain::admission
