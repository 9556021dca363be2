#pragma once

#include <QLoggingCategory>

namespace swarmtrain {

// The swarm worker's messages ("swarmtrain.worker"): what the client is doing, round by round.
Q_DECLARE_LOGGING_CATEGORY(lcWorker)

} // namespace swarmtrain
