#include "CoordinatorLog.h"

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcCoordinator, "swarmtrain.coordinator")

} // namespace swarmtrain
