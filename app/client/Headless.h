#pragma once

#include "ClientOptions.h"

class QCoreApplication;

namespace swarmtrain {

// `swarmtrain --headless`: runs the swarm worker without a window, a line per round on stdout,
// until Ctrl-C (SIGINT or SIGTERM) has it leave the swarm. Returns the exit code.
int runHeadless(QCoreApplication &app, const ClientCommandLine &command);

} // namespace swarmtrain
