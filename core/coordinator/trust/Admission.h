#pragma once

#include "CoordinatorStore.h"
#include "PeerAddress.h"
#include "Result.h"
#include "TrustSettings.h"

#include <QHostAddress>
#include <QString>

// The checks a join passes before the coordinator stores the peer or dials anyone: admission,
// bans, the data-plane endpoint's host, and identities per address. Pure functions of what the
// request says and what the store holds.
namespace swarmtrain::admission {

// Whether `keyId` (with `inviteToken` from its join) may join under `settings`.
Result<void> checkAdmission(const TrustSettings &settings, const QString &keyId, const QString &inviteToken);

// The endpoint a peer names for its data plane must be on the address its request came from,
// so the coordinator's reachability probe never dials a third party (no port scanning by proxy).
Result<void> checkEndpointHost(const QString &endpointHost, const QHostAddress &from);

// A new identity from `from` is refused when the other peers online now from its address or its
// subnet (CoordinatorStore::onlinePeersNear) already hold the per-address or per-subnet limit.
Result<void> checkAddressLimits(const TrustSettings &settings, const QHostAddress &from, const NearbyPeers &online);

} // namespace swarmtrain::admission
