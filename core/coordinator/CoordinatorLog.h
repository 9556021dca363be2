#pragma once

#include <QLoggingCategory>

namespace swarmtrain {

Q_DECLARE_LOGGING_CATEGORY(lcCoordinator)

} // namespace swarmtrain
