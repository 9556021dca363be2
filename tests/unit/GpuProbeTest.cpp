#include "GpuProbe.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace swarmtrain;

class GpuProbeTest : public ::testing::Test {
protected:
    GpuReport probe(const char *mode, std::string nvml = FAKE_NVML)
    {
        ::setenv("FAKE_NVML_MODE", mode, 1);
        GpuProbeOptions options;
        options.nvmlLibrary = std::move(nvml);
        options.drmRoot = (dir.path() / "drm").string();
        options.timeout = std::chrono::milliseconds(1500);
        Result<GpuReport> report = probeGpus({GPU_PROBE_CHILD}, options);
        EXPECT_TRUE(report) << report.error().message;
        return report ? *report : GpuReport{};
    }

    static bool mentions(const GpuReport &report, const std::string &text)
    {
        for (const std::string &w : report.warnings) {
            if (w.find(text) != std::string::npos)
                return true;
        }
        return false;
    }

    test::TempDir dir;
};

TEST_F(GpuProbeTest, NoDriverLibraryMeansNoGpusAndNoWarning)
{
    const GpuReport report = probe("ok", "/nonexistent/libnvidia-ml.so.1");
    EXPECT_TRUE(report.gpus.empty());
    EXPECT_TRUE(report.warnings.empty());
}

TEST_F(GpuProbeTest, ListsNvidiaGpusWithTheirFigures)
{
    const GpuReport report = probe("ok");
    ASSERT_EQ(report.gpus.size(), 2u);
    const GpuInfo &first = report.gpus[0];
    EXPECT_EQ(first.vendor, "nvidia");
    EXPECT_EQ(first.name, "NVIDIA GeForce RTX 3080");
    EXPECT_EQ(first.uuid, "GPU-fake-0");
    EXPECT_EQ(first.driverVersion, "550.54.14");
    EXPECT_EQ(first.memoryTotalBytes, 10ull << 30);
    EXPECT_EQ(first.memoryFreeBytes, 9ull << 30);
    EXPECT_EQ(first.utilizationPercent, 37);
    EXPECT_EQ(first.temperatureC, 64);
    EXPECT_EQ(first.computeCapabilityMajor, 8);
    EXPECT_EQ(first.computeCapabilityMinor, 6);
    ASSERT_EQ(first.processes.size(), 1u);
    EXPECT_EQ(first.processes[0].pid, 4242u);
    EXPECT_EQ(report.gpus[1].name, "NVIDIA GeForce RTX 4090");
    EXPECT_TRUE(report.warnings.empty());
}

TEST_F(GpuProbeTest, InitFailureIsAWarning)
{
    const GpuReport report = probe("init_fail");
    EXPECT_TRUE(report.gpus.empty());
    EXPECT_TRUE(mentions(report, "Driver Not Loaded"));
}

TEST_F(GpuProbeTest, ADeviceThatReportsAnErrorIsLeftOutWithAWarning)
{
    const GpuReport report = probe("device_error");
    ASSERT_EQ(report.gpus.size(), 1u);
    EXPECT_EQ(report.gpus[0].name, "NVIDIA GeForce RTX 3080");
    EXPECT_TRUE(mentions(report, "GPU 1 reports an error"));
}

TEST_F(GpuProbeTest, AHangingDriverIsCutOffAtTheTimeLimit)
{
    const GpuReport report = probe("hang");
    EXPECT_TRUE(report.gpus.empty());
    EXPECT_TRUE(mentions(report, "no answer within 1.5 s"));
}

TEST_F(GpuProbeTest, ACrashingDriverDoesNotTakeTheClientDown)
{
    const GpuReport report = probe("crash");
    EXPECT_TRUE(report.gpus.empty());
    EXPECT_TRUE(mentions(report, "crashed"));
}

TEST_F(GpuProbeTest, FindsAmdGpusInSysfs)
{
    const std::filesystem::path device = dir.path() / "drm" / "card0" / "device";
    std::filesystem::create_directories(device / "hwmon" / "hwmon3");
    std::filesystem::create_directories(dir.path() / "drm" / "card0-DP-1");
    dir.write("drm/card0/device/vendor", "0x1002\n");
    dir.write("drm/card0/device/device", "0x73bf\n");
    dir.write("drm/card0/device/mem_info_vram_total", "17163091968\n");
    dir.write("drm/card0/device/mem_info_vram_used", "1163091968\n");
    dir.write("drm/card0/device/gpu_busy_percent", "5\n");
    dir.write("drm/card0/device/hwmon/hwmon3/temp1_input", "48000\n");
    const GpuReport report = probe("ok", "/nonexistent/libnvidia-ml.so.1");
    ASSERT_EQ(report.gpus.size(), 1u);
    EXPECT_EQ(report.gpus[0].vendor, "amd");
    EXPECT_EQ(report.gpus[0].name, "AMD GPU (device 0x73bf)");
    EXPECT_EQ(report.gpus[0].memoryTotalBytes, 17163091968ull);
    EXPECT_EQ(report.gpus[0].memoryFreeBytes, 16000000000ull);
    EXPECT_EQ(report.gpus[0].utilizationPercent, 5);
    EXPECT_EQ(report.gpus[0].temperatureC, 48);
}

TEST_F(GpuProbeTest, MalformedReportIsAnError)
{
    EXPECT_FALSE(gpuReportFromJson("{\"gpus\": [{\"vendor\": 3}], \"warnings\": []}"));
    EXPECT_FALSE(gpuReportFromJson("not json"));
    EXPECT_TRUE(gpuReportFromJson(gpuReportToJson(GpuReport{})));
}
