// GpuSampler against the fake NVML library (tests/fakes/FakeNvml.cpp), found by the real probe
// child first, as on a PC with an NVIDIA GPU.
#include "GpuSampler.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

// An hour between samples: each test also checks that destroying the sampler stops its thread
// without waiting that out.
GpuSampler::Options sampling(const char *nvmlMode, bool trainsOnGpu, std::string nvmlLibrary = FAKE_NVML)
{
    ::setenv("FAKE_NVML_MODE", nvmlMode, 1);
    GpuSampler::Options options;
    options.probeCommand = {GPU_PROBE_CHILD};
    options.probe.nvmlLibrary = std::move(nvmlLibrary);
    options.probe.rocmSmiLibrary = "/nonexistent/librocm_smi64.so.1";
    options.probe.drmRoot = "/nonexistent/drm";
    options.trainsOnGpu = trainsOnGpu;
    options.interval = 1h;
    return options;
}

TEST(GpuSamplerTest, TrainingOnTheCpuAllOfTheGpusUtilizationIsOtherProgramsUse)
{
    GpuSampler sampler(sampling("ok", false));
    ASSERT_TRUE(sampler.waitForFirstSample(30s));
    const GpuSample sample = sampler.latest();
    EXPECT_EQ(sample.temperature, 64.0);
    EXPECT_EQ(sample.otherUtilization, 37.0);
}

TEST(GpuSamplerTest, TrainingOnTheGpuItsUtilizationIsPartlyOursSoOnlyTheTemperatureCounts)
{
    GpuSampler sampler(sampling("ok", true));
    ASSERT_TRUE(sampler.waitForFirstSample(30s));
    const GpuSample sample = sampler.latest();
    EXPECT_EQ(sample.temperature, 64.0);
    EXPECT_EQ(sample.otherUtilization, std::nullopt);
}

TEST(GpuSamplerTest, WithoutAnNvidiaGpuEverythingStaysUnknown)
{
    GpuSampler sampler(sampling("ok", false, "/nonexistent/libnvidia-ml.so.1"));
    ASSERT_TRUE(sampler.waitForFirstSample(30s));
    EXPECT_EQ(sampler.latest().temperature, std::nullopt);
    EXPECT_EQ(sampler.latest().otherUtilization, std::nullopt);
}

// The fake crashes in nvmlInit_v2: loaded here, it would take the test process down.
TEST(GpuSamplerTest, ADriverThatCrashedTheProbeChildIsNeverLoadedInThisProcess)
{
    GpuSampler sampler(sampling("crash", false));
    ASSERT_TRUE(sampler.waitForFirstSample(30s));
    EXPECT_EQ(sampler.latest().temperature, std::nullopt);
}

} // namespace
