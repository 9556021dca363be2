#include "GpuProbe.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace swarmtrain;

class GpuProbeTest : public ::testing::Test {
protected:
    GpuReport probe(const char *mode, std::string nvml = FAKE_NVML,
                    std::string rocmSmi = "/nonexistent/librocm_smi64.so.1")
    {
        ::setenv("FAKE_NVML_MODE", mode, 1);
        ::setenv("FAKE_ROCM_SMI_MODE", mode, 1);
        GpuProbeOptions options;
        options.nvmlLibrary = std::move(nvml);
        options.rocmSmiLibrary = std::move(rocmSmi);
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

TEST_F(GpuProbeTest, RocmSmiAnswersForAmdGpusWhenInstalled)
{
    std::filesystem::create_directories(dir.path() / "drm" / "card0" / "device");
    dir.write("drm/card0/device/vendor", "0x1002\n"); // sysfs must not add it a second time
    const GpuReport report = probe("ok", "/nonexistent/libnvidia-ml.so.1", FAKE_ROCM_SMI);
    ASSERT_EQ(report.gpus.size(), 1u);
    const GpuInfo &gpu = report.gpus[0];
    EXPECT_EQ(gpu.vendor, "amd");
    EXPECT_EQ(gpu.name, "Radeon RX 7900 XTX");
    EXPECT_EQ(gpu.driverVersion, "6.7.0");
    EXPECT_EQ(gpu.memoryTotalBytes, 25753026560ull);
    EXPECT_EQ(gpu.memoryFreeBytes, 25753026560ull - 1073741824ull);
    EXPECT_EQ(gpu.utilizationPercent, 12);
    EXPECT_EQ(gpu.temperatureC, 51);
    EXPECT_EQ(gpu.uuid, "0x00000000deadbeef");
    EXPECT_TRUE(report.warnings.empty());
}

TEST_F(GpuProbeTest, RocmSmiThatFailsToStartFallsBackToSysfs)
{
    std::filesystem::create_directories(dir.path() / "drm" / "card0" / "device");
    dir.write("drm/card0/device/vendor", "0x1002\n");
    dir.write("drm/card0/device/device", "0x744c\n");
    const GpuReport report = probe("init_fail", "/nonexistent/libnvidia-ml.so.1", FAKE_ROCM_SMI);
    ASSERT_EQ(report.gpus.size(), 1u);
    EXPECT_EQ(report.gpus[0].name, "AMD GPU (device 0x744c)");
    EXPECT_TRUE(mentions(report, "ROCm SMI did not start")) << testing::PrintToString(report.warnings);
}

TEST_F(GpuProbeTest, MalformedReportIsAnError)
{
    EXPECT_FALSE(gpuReportFromJson("{\"gpus\": [{\"vendor\": 3}], \"warnings\": []}"));
    EXPECT_FALSE(gpuReportFromJson("not json"));
    EXPECT_TRUE(gpuReportFromJson(gpuReportToJson(GpuReport{})));
}

// What macOS's system_profiler says on an Apple silicon laptop and on an Intel Mac with a
// discrete AMD GPU (recorded output, trimmed to the keys the probe reads).
TEST(SystemProfilerTest, ReadsTheDisplaysOfAMac)
{
    const std::string appleSilicon = R"({"SPDisplaysDataType":[{"_name":"Apple M2 Pro","sppci_model":"Apple M2 Pro",
        "sppci_cores":"19","sppci_vendor":"sppci_vendor_Apple","spdisplays_mtlgpufamilysupport":"spdisplays_metal3"}]})";
    std::vector<GpuInfo> gpus = parseSystemProfilerDisplays(appleSilicon, 32ull << 30);
    ASSERT_EQ(gpus.size(), 1u);
    EXPECT_EQ(gpus[0].vendor, "apple");
    EXPECT_EQ(gpus[0].name, "Apple M2 Pro");
    EXPECT_EQ(gpus[0].memoryTotalBytes, 32ull << 30);

    const std::string intelMac = R"({"SPDisplaysDataType":[
        {"_name":"Intel UHD Graphics 630","sppci_model":"Intel UHD Graphics 630","spdisplays_vendor":"Intel",
         "spdisplays_vram_shared":"1536 MB"},
        {"_name":"AMD Radeon Pro 5500M","sppci_model":"AMD Radeon Pro 5500M","spdisplays_vendor":"sppci_vendor_amd",
         "spdisplays_vram":"8 GB"}]})";
    gpus = parseSystemProfilerDisplays(intelMac, 16ull << 30);
    ASSERT_EQ(gpus.size(), 2u);
    EXPECT_EQ(gpus[0].vendor, "intel");
    EXPECT_EQ(gpus[0].memoryTotalBytes, 1536ull << 20);
    EXPECT_EQ(gpus[1].name, "AMD Radeon Pro 5500M");
    EXPECT_EQ(gpus[1].memoryTotalBytes, 8ull << 30);
}

TEST(SystemProfilerTest, GarbledOutputMeansNoGpusNotACrash)
{
    for (const std::string &garbled : {std::string(), std::string("{"), std::string(R"({"SPDisplaysDataType":7})"),
                                       std::string(R"({"SPDisplaysDataType":[3, "x"]})")})
        EXPECT_TRUE(parseSystemProfilerDisplays(garbled, 1).empty()) << garbled;
}

TEST(MarkGpusUsableTest, NvidiaOnlyWhenCudaSeesIt)
{
    std::vector<swarmtrain::GpuInfo> gpus(3);
    gpus[0].vendor = "nvidia";
    gpus[0].name = "RTX 3080";
    gpus[1].vendor = "amd";
    gpus[1].name = "RX 7900";
    gpus[2].vendor = "nvidia";
    gpus[2].name = "RTX 4090";
    swarmtrain::markGpusUsable(gpus, 0);
    EXPECT_FALSE(gpus[0].usable);
    EXPECT_EQ(gpus[0].unusable, swarmtrain::GpuInfo::Unusable::NoCuda);
    EXPECT_EQ(gpus[0].unusableReason, "RTX 3080 found, but this build's LibTorch has no CUDA");
    EXPECT_EQ(gpus[1].unusable, swarmtrain::GpuInfo::Unusable::NotNvidia);

    swarmtrain::markGpusUsable(gpus, 1); // CUDA_VISIBLE_DEVICES=0
    EXPECT_TRUE(gpus[0].usable);
    EXPECT_TRUE(gpus[0].unusableReason.empty());
    EXPECT_FALSE(gpus[1].usable);
    EXPECT_FALSE(gpus[2].usable);
    EXPECT_EQ(gpus[2].unusable, swarmtrain::GpuInfo::Unusable::NotVisible);
}
