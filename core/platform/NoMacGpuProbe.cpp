#include "GpuProbe.h"

namespace swarmtrain {

// Only macOS has system_profiler; elsewhere NVML, ROCm SMI and sysfs find the GPUs (GpuProbe.cpp).
void probeApple(GpuReport &) {}

} // namespace swarmtrain
