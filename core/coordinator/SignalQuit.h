#pragma once

#include "Result.h"

#include <functional>

class QCoreApplication;

namespace swarmtrain {

// Runs `handler` on the application's thread for every SIGINT and SIGTERM. A signal handler
// may not touch Qt, so it writes to a pipe that a QSocketNotifier watches.
Result<void> onTerminationSignals(QCoreApplication &app, std::function<void()> handler);

// Makes SIGINT and SIGTERM end the application's event loop, so the coordinator closes its
// database and sockets cleanly.
Result<void> quitOnTerminationSignals(QCoreApplication &app);

} // namespace swarmtrain
