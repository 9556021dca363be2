#pragma once

#include <QHostAddress>
#include <QString>

namespace swarmtrain {

// The address as the coordinator stores and compares it: IPv4 for IPv4-mapped IPv6.
QHostAddress normalizedAddress(const QHostAddress &address);
// "a.b.c.0/24" or "x:x:x:x::/64": the subnet whose identities are counted together; "" for
// no address.
QString subnetOf(const QHostAddress &address);

} // namespace swarmtrain
