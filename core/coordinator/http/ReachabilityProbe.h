#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace swarmtrain {

// Splits "host:port" ("[v6]:port" too); false for anything else.
bool splitEndpoint(const QString &endpoint, QString &host, quint16 &port);

// Tries a TCP connection to a peer's data-plane endpoint without blocking the event loop and
// calls `done` once, on `context`'s thread, with whether it opened within `timeoutMs`. Sends
// nothing: it only tells whether other peers will be able to connect.
void probeTcpEndpoint(const QString &host, quint16 port, int timeoutMs, QObject *context,
                      std::function<void(bool)> done);

} // namespace swarmtrain
