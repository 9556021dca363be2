#include "WorkStatus.h"

#include <QCoreApplication>

namespace swarmtrain {

QString describeMode(const WorkStatus &status)
{
    if (status.workers > 1) {
        WorkStatus one = status;
        one.workers = 1;
        // Only ever several: no plural forms needed.
        return QCoreApplication::translate("swarmtrain::WorkStatus", "%1, on %2 GPUs")
            .arg(describeMode(one))
            .arg(status.workers);
    }
    if (status.pipelineStages == 0)
        return QCoreApplication::translate("swarmtrain::WorkStatus", "Full model");
    if (status.pipelineStage < 0)
        return QCoreApplication::translate("swarmtrain::WorkStatus", "Pipeline stage: not placed yet");
    return QCoreApplication::translate("swarmtrain::WorkStatus", "Pipeline stage %1 of %2")
        .arg(status.pipelineStage + 1)
        .arg(status.pipelineStages);
}

} // namespace swarmtrain
