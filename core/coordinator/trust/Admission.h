#pragma once

#include "CoordinatorRecords.h"
#include "Result.h"
#include "TrustSettings.h"

#include <QHostAddress>
#include <QString>

#include <vector>

// The checks a join passes before the coordinator stores the peer or dials anyone: admission,
// bans, the data-plane endpoint's host, and identities per address. Pure functions of what the
// request says and what the store holds.
namespace swarmtrain::admission {

// The address as the coordinator stores and compares it: IPv4 for IPv4-mapped IPv6.
QHostAddress normalized(const QHostAddress &address);
// "a.b.c.0/24" or "x:x:x:x::/64": the subnet whose identities are counted together.
QString subnetOf(const QHostAddress &address);

// Whether `keyId` (with `inviteToken` from its join) may join under `settings`.
Result<void> checkAdmission(const TrustSettings &settings, const QString &keyId, const QString &inviteToken);

// The endpoint a peer names for its data plane must be on the address its request came from,
// so the coordinator's reachability probe never dials a third party (no port scanning by proxy).
Result<void> checkEndpointHost(const QString &endpointHost, const QHostAddress &from);

// A new identity from `from` is refused when `online` (the other peers online now) already hold
// the per-address or per-subnet limit.
Result<void> checkAddressLimits(const TrustSettings &settings, const QHostAddress &from,
                                const std::vector<PeerRecord> &online);

} // namespace swarmtrain::admission
