#pragma once

#include "GpuProbe.h"
#include "Preferences.h"
#include "Result.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace swarmtrain {

// The devices the client trains on for the person's GPU choice (Settings), one worker each
// (WorkerGroup):
// - Automatic: `automatic`, the --device list the client started with;
// - None: the processor;
// - Chosen: each GPU of `uuids` that `gpus` reports usable, in the probe's order, as
//   `cudaDeviceSpec` with its CUDA number ("cuda:%1"; without %1, as it is). CUDA numbers the NVIDIA GPUs in the order
//   the probe lists them: the client sets CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's order.
// An error, in words for the person, when none of the chosen GPUs is here and usable.
Result<std::vector<std::string>> devicesForGpuChoice(GpuUse use, const QStringList &uuids,
                                                     const std::vector<GpuInfo> &gpus,
                                                     const std::vector<std::string> &automatic,
                                                     const QString &cudaDeviceSpec = QStringLiteral("cuda:%1"));

} // namespace swarmtrain
