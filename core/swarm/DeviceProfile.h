#pragma once

#include "ControlMessages.h"
#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

struct DeviceProfileOptions {
    std::string device = "auto"; // the --device the worker trains on
    int threads = 0;
    std::int64_t deviceMemoryBudget = 0; // 0: the device's free memory
    // How to run the GPU probe's child (GpuProbe.h); empty: no GPUs are listed.
    std::vector<std::string> gpuProbeCommand;
};

// This PC's device report for the swarm's scheduler: the GPUs the probe finds and a short
// benchmark of the device the worker trains on (FLOP/s, copy bandwidth, memory). The benchmark
// runs once and is kept in STATE/device-profile.json until the GPUs, their driver, the core
// count or the device choice change; a damaged file is measured again.
Result<DeviceReport> loadOrMeasureDeviceProfile(const std::filesystem::path &stateDir, const DeviceProfileOptions &options);

} // namespace swarmtrain
