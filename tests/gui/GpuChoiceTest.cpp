// The devices the person's GPU choice in Settings trains on (GpuChoice.h).
#include "GpuChoice.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

using Devices = std::vector<std::string>;

GpuInfo gpu(const char *vendor, const char *uuid, bool usable)
{
    GpuInfo info;
    info.vendor = vendor;
    info.name = std::string(vendor) + " GPU";
    info.uuid = uuid;
    info.usable = usable;
    return info;
}

// As the probe lists them: CUDA numbers the NVIDIA ones 0, 1, 2; the AMD one has no number.
const std::vector<GpuInfo> kGpus{gpu("nvidia", "GPU-a", true), gpu("amd", "GPU-b", false), gpu("nvidia", "GPU-c", true),
                                 gpu("nvidia", "GPU-d", false)};

TEST(GpuChoiceTest, AutomaticIsTheDevicesTheClientStartedWith)
{
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Automatic, {}, kGpus, {"auto"}), Devices{"auto"});
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Automatic, {QStringLiteral("GPU-c")}, kGpus, {"cuda:0", "cuda:1"}),
              (Devices{"cuda:0", "cuda:1"}));
}

TEST(GpuChoiceTest, NoneTrainsOnTheProcessor)
{
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::None, {QStringLiteral("GPU-a")}, kGpus, {"auto"}), Devices{"cpu"});
}

TEST(GpuChoiceTest, ChosenGpusTrainAsTheirCudaNumberInTheProbesOrder)
{
    const QStringList both{QStringLiteral("GPU-c"), QStringLiteral("GPU-a")};
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Chosen, both, kGpus, {"auto"}), (Devices{"cuda:0", "cuda:1"}));
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Chosen, {QStringLiteral("GPU-c")}, kGpus, {"auto"}), Devices{"cuda:1"});
}

TEST(GpuChoiceTest, ChosenGpusThatAreGoneOrUnusableAreLeftOut)
{
    const QStringList chosen{QStringLiteral("GPU-a"), QStringLiteral("GPU-b"), QStringLiteral("GPU-d"),
                             QStringLiteral("GPU-unplugged")};
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Chosen, chosen, kGpus, {"auto"}), Devices{"cuda:0"});
}

TEST(GpuChoiceTest, NoneOfTheChosenHereIsAnErrorNotTheProcessor)
{
    for (const QStringList &chosen : {QStringList{}, QStringList{QStringLiteral("GPU-d"), QStringLiteral("GPU-b")}}) {
        Result<Devices> devices = devicesForGpuChoice(GpuUse::Chosen, chosen, kGpus, {"auto"});
        ASSERT_FALSE(devices.ok());
        EXPECT_EQ(devices.error().message, "none of the GPUs chosen in Settings is here and usable");
    }
    EXPECT_FALSE(devicesForGpuChoice(GpuUse::Chosen, {QStringLiteral("GPU-a")}, {}, {"auto"}).ok());
}

TEST(GpuChoiceTest, ADeviceSpecWithoutANumberStandsForEveryGpu)
{
    // What the tests' stand-in for CUDA GPUs gives: each chosen GPU trains on the processor.
    EXPECT_EQ(*devicesForGpuChoice(GpuUse::Chosen, {QStringLiteral("GPU-a"), QStringLiteral("GPU-c")}, kGpus, {"auto"},
                                   QStringLiteral("cpu")),
              (Devices{"cpu", "cpu"}));
}

} // namespace
