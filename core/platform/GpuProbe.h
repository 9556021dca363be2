#pragma once

#include "Result.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace swarmtrain {

struct GpuProcess {
    std::uint32_t pid = 0;
    std::uint64_t usedMemoryBytes = 0;
};

struct GpuInfo {
    std::string vendor; // "nvidia", "amd", "apple", "intel"
    std::string name;
    std::string uuid;
    std::string driverVersion;
    std::uint64_t memoryTotalBytes = 0;
    std::uint64_t memoryFreeBytes = 0;
    int utilizationPercent = -1; // -1: unknown
    int temperatureC = -1;
    int computeCapabilityMajor = -1; // NVIDIA only
    int computeCapabilityMinor = -1;
    std::vector<GpuProcess> processes; // other programs using it, where the driver says
    bool usable = false;       // by this build's LibTorch: markGpusUsable(), by a caller that knows it
    enum class Unusable { Unknown, NotNvidia, NoCuda, NotVisible, No } unusable = Unusable::Unknown;
    std::string unusableReason; // in English, e.g. "NVIDIA RTX 3080 found, but this build's LibTorch has no CUDA"
};

struct GpuReport {
    std::vector<GpuInfo> gpus;
    std::vector<std::string> warnings; // a vendor library that failed, timed out or crashed
};

struct GpuProbeOptions {
    std::string nvmlLibrary = "libnvidia-ml.so.1";
    std::string drmRoot = "/sys/class/drm";
    std::string rocmSmiLibrary = "librocm_smi64.so.1"; // used instead of sysfs for AMD when it loads
    std::chrono::milliseconds timeout{5000};
};

// What the GPUs of this machine are. Vendor libraries can crash or hang (BOINC probes them in a
// child for that reason), so the probing runs in a child process, `childCommand` (an executable
// whose main calls runGpuProbeChild), killed after the time limit. No GPUs is an empty list;
// a failing vendor library is a warning, not an error. Errors are only for a child that
// cannot be started.
Result<GpuReport> probeGpus(const std::vector<std::string> &childCommand, const GpuProbeOptions &options);

// The child's side: probes in this process and writes the report as JSON to stdout.
// Arguments: --nvml PATH --drm PATH --rocm-smi PATH. Returns the exit status.
int runGpuProbeChild(int argc, char **argv);

// In-process probing (what the child runs).
GpuReport probeGpusInProcess(const GpuProbeOptions &options);

// macOS: the GPUs `system_profiler SPDisplaysDataType -json` lists (Apple silicon reports the
// machine's unified memory as its own). Parsed on every OS, so tests run anywhere.
std::vector<GpuInfo> parseSystemProfilerDisplays(const std::string &json, std::uint64_t unifiedMemoryBytes);

// Which GPUs a LibTorch that sees `cudaDevices` CUDA devices can train on (NVIDIA ones only, in
// the order CUDA numbers them), and why not.
void markGpusUsable(std::vector<GpuInfo> &gpus, int cudaDevices);

std::string gpuReportToJson(const GpuReport &report);
Result<GpuReport> gpuReportFromJson(const std::string &json);

} // namespace swarmtrain
