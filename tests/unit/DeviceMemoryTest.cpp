#include "DeviceMemory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace swarmtrain;

TEST(DeviceMemoryTest, NothingHeldWithoutAGpu)
{
    if (torch::cuda::is_available())
        GTEST_SKIP() << "a CUDA device is usable: CudaTensorsShowAndReleaseEmptiesTheCache covers it";
    const DeviceMemoryUse use = deviceMemoryUse(0);
    EXPECT_EQ(use.allocatedBytes, 0);
    EXPECT_EQ(use.reservedBytes, 0);
    releaseCachedDeviceMemory(); // nothing to give back, and no CUDA call to fail
    EXPECT_EQ(deviceMemoryUse(0).reservedBytes, 0);
}

TEST(DeviceMemoryTest, CudaTensorsShowAndReleaseEmptiesTheCache)
{
    if (!torch::cuda::is_available())
        GTEST_SKIP() << "no CUDA device: this build's LibTorch has no CUDA or the machine has no GPU";
    releaseCachedDeviceMemory();
    const DeviceMemoryUse before = deviceMemoryUse(0);
    constexpr std::int64_t kBytes = std::int64_t(64) << 20;
    {
        const auto options = torch::TensorOptions().dtype(torch::kUInt8).device(torch::kCUDA, 0);
        const torch::Tensor tensor = torch::empty({kBytes}, options);
        const DeviceMemoryUse holding = deviceMemoryUse(0);
        EXPECT_GE(holding.allocatedBytes - before.allocatedBytes, kBytes);
        EXPECT_GE(holding.reservedBytes, holding.allocatedBytes);
    }
    // A freed tensor's memory stays with the allocator for the next one until it is released.
    const DeviceMemoryUse cached = deviceMemoryUse(0);
    EXPECT_EQ(cached.allocatedBytes, before.allocatedBytes);
    EXPECT_GE(cached.reservedBytes - before.reservedBytes, kBytes);
    releaseCachedDeviceMemory();
    EXPECT_LE(deviceMemoryUse(0).reservedBytes, before.reservedBytes);
}
