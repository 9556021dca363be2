#include "GpuChoice.h"

#include <QCoreApplication>

namespace swarmtrain {

Result<std::vector<std::string>> devicesForGpuChoice(GpuUse use, const QStringList &uuids,
                                                     const std::vector<GpuInfo> &gpus,
                                                     const std::vector<std::string> &automatic,
                                                     const QString &cudaDeviceSpec)
{
    switch (use) {
    case GpuUse::Automatic:
        return automatic;
    case GpuUse::None:
        return std::vector<std::string>{"cpu"};
    case GpuUse::Chosen:
        break;
    }
    std::vector<std::string> devices;
    int cudaIndex = 0;
    for (const GpuInfo &gpu : gpus) {
        if (gpu.vendor != "nvidia")
            continue;
        if (gpu.usable && uuids.contains(QString::fromStdString(gpu.uuid)))
            devices.push_back((cudaDeviceSpec.contains(QLatin1StringView("%1")) ? cudaDeviceSpec.arg(cudaIndex)
                                                                                : cudaDeviceSpec)
                                  .toStdString());
        ++cudaIndex;
    }
    if (devices.empty())
        return makeError(QCoreApplication::translate("swarmtrain::GpuChoice",
                                                     "none of the GPUs chosen in Settings is here and usable")
                             .toStdString());
    return devices;
}

} // namespace swarmtrain
