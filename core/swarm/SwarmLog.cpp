#include "SwarmLog.h"

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcWorker, "swarmtrain.worker", QtInfoMsg)

} // namespace swarmtrain
