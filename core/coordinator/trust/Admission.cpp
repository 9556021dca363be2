#include "Admission.h"

#include <openssl/crypto.h>

namespace swarmtrain::admission {

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
    if (normalizedAddress(named) != normalizedAddress(from))
        return makeError("the endpoint's host " + endpointHost.toStdString()
                         + " is not the address the request comes from (" + normalizedAddress(from).toString().toStdString()
                         + "); use \"*:PORT\"");
    return {};
}

Result<void> checkAddressLimits(const TrustSettings &settings, const QHostAddress &from, const NearbyPeers &online)
{
    const QHostAddress address = normalizedAddress(from);
    if (settings.maxPeersPerAddress > 0 && online.sameAddress >= settings.maxPeersPerAddress)
        return makeError(std::to_string(online.sameAddress) + " identities from " + address.toString().toStdString()
                         + " are online already, the most this swarm allows from one address");
    if (settings.maxPeersPerSubnet > 0 && online.sameSubnet >= settings.maxPeersPerSubnet)
        return makeError(std::to_string(online.sameSubnet) + " identities from " + subnetOf(address).toStdString()
                         + " are online already, the most this swarm allows from one subnet");
    return {};
}

} // namespace swarmtrain::admission
