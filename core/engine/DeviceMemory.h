#pragma once

#include <cstdint>

// Device memory as the client and the benchmarks see it, without LibTorch's headers (the swarm
// worker is Qt code). Defined in Device.cpp.
namespace swarmtrain {

// Gives the device memory LibTorch keeps cached for later tensors back to the driver, so another
// program (a game) can have it. Call after destroying every replica; nothing to do on a CPU.
void releaseCachedDeviceMemory();

// What LibTorch's CUDA caching allocator holds on CUDA device `index`: bytes in live tensors,
// and bytes reserved from the driver (live plus cached; torch.cuda.memory_reserved). Zeros
// without a CUDA LibTorch. The CUDA context's own memory is in neither.
struct DeviceMemoryUse {
    std::int64_t allocatedBytes = 0;
    std::int64_t reservedBytes = 0;
};
DeviceMemoryUse deviceMemoryUse(int index = 0);

} // namespace swarmtrain
