#pragma once

#include "Result.h"

class QCoreApplication;

namespace swarmtrain {

// Makes SIGINT and SIGTERM end the application's event loop, so the coordinator closes its
// database and sockets cleanly. A signal handler may not touch Qt, so it writes to a pipe
// that a QSocketNotifier watches.
Result<void> quitOnTerminationSignals(QCoreApplication &app);

} // namespace swarmtrain
