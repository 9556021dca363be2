// NVIDIA GPUs through NVML, loaded at run time: a machine without the NVIDIA driver has no
// libnvidia-ml, and the client must still start.
#include "DynamicLibrary.h"
#include "GpuProbe.h"

#include <dlfcn.h>

namespace swarmtrain {

namespace {

using NvmlReturn = int;
using NvmlDevice = void *;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;

struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
struct NvmlUtilization {
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlProcessInfoV1 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
};

// The NVML functions used, looked up by name.
struct Nvml {
    NvmlReturn (*init)();
    NvmlReturn (*shutdown)();
    const char *(*errorString)(NvmlReturn);
    NvmlReturn (*deviceCount)(unsigned int *);
    NvmlReturn (*deviceByIndex)(unsigned int, NvmlDevice *);
    NvmlReturn (*name)(NvmlDevice, char *, unsigned int);
    NvmlReturn (*uuid)(NvmlDevice, char *, unsigned int);
    NvmlReturn (*memory)(NvmlDevice, NvmlMemory *);
    NvmlReturn (*driverVersion)(char *, unsigned int);
    NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization *);
    NvmlReturn (*temperature)(NvmlDevice, int, unsigned int *);
    NvmlReturn (*computeCapability)(NvmlDevice, int *, int *);
    NvmlReturn (*processes)(NvmlDevice, unsigned int *, NvmlProcessInfoV1 *);
};

std::string describe(const Nvml &nvml, NvmlReturn code)
{
    const char *text = nvml.errorString ? nvml.errorString(code) : nullptr;
    return text ? std::string(text) : "error " + std::to_string(code);
}

} // namespace

void probeNvidia(const GpuProbeOptions &options, GpuReport &report)
{
    void *library = dlopen(options.nvmlLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
        return; // no NVIDIA driver: not a warning, most machines have none

    Nvml nvml{};
    bindSymbol(library, "nvmlErrorString", nvml.errorString);
    const bool complete = bindSymbol(library, "nvmlInit_v2", nvml.init)
                          && bindSymbol(library, "nvmlShutdown", nvml.shutdown)
                          && bindSymbol(library, "nvmlDeviceGetCount_v2", nvml.deviceCount)
                          && bindSymbol(library, "nvmlDeviceGetHandleByIndex_v2", nvml.deviceByIndex)
                          && bindSymbol(library, "nvmlDeviceGetName", nvml.name)
                          && bindSymbol(library, "nvmlDeviceGetMemoryInfo", nvml.memory);
    if (!complete) {
        report.warnings.push_back(options.nvmlLibrary + " lacks NVML functions this client needs (driver too old?)");
        dlclose(library);
        return;
    }
    bindSymbol(library, "nvmlDeviceGetUUID", nvml.uuid);
    bindSymbol(library, "nvmlSystemGetDriverVersion", nvml.driverVersion);
    bindSymbol(library, "nvmlDeviceGetUtilizationRates", nvml.utilization);
    bindSymbol(library, "nvmlDeviceGetTemperature", nvml.temperature);
    bindSymbol(library, "nvmlDeviceGetCudaComputeCapability", nvml.computeCapability);
    bindSymbol(library, "nvmlDeviceGetComputeRunningProcesses", nvml.processes);

    if (const NvmlReturn r = nvml.init(); r != kNvmlSuccess) {
        report.warnings.push_back("NVIDIA driver found, but NVML did not start: " + describe(nvml, r));
        dlclose(library);
        return;
    }
    char text[256] = {};
    std::string driver;
    if (nvml.driverVersion && nvml.driverVersion(text, sizeof text) == kNvmlSuccess)
        driver = text;
    unsigned int count = 0;
    if (const NvmlReturn r = nvml.deviceCount(&count); r != kNvmlSuccess)
        report.warnings.push_back("NVML cannot count the GPUs: " + describe(nvml, r));
    for (unsigned int i = 0; i < count; ++i) {
        NvmlDevice device = nullptr;
        GpuInfo gpu;
        gpu.vendor = "nvidia";
        gpu.driverVersion = driver;
        NvmlMemory memory{};
        NvmlReturn r = nvml.deviceByIndex(i, &device);
        if (r == kNvmlSuccess)
            r = nvml.name(device, text, sizeof text);
        if (r == kNvmlSuccess)
            gpu.name = text;
        if (r == kNvmlSuccess)
            r = nvml.memory(device, &memory);
        if (r != kNvmlSuccess) {
            report.warnings.push_back("NVIDIA GPU " + std::to_string(i) + " reports an error: " + describe(nvml, r));
            continue;
        }
        gpu.memoryTotalBytes = memory.total;
        gpu.memoryFreeBytes = memory.free;
        if (nvml.uuid && nvml.uuid(device, text, sizeof text) == kNvmlSuccess)
            gpu.uuid = text;
        NvmlUtilization utilization{};
        if (nvml.utilization && nvml.utilization(device, &utilization) == kNvmlSuccess)
            gpu.utilizationPercent = int(utilization.gpu);
        unsigned int temperature = 0;
        if (nvml.temperature && nvml.temperature(device, kNvmlTemperatureGpu, &temperature) == kNvmlSuccess)
            gpu.temperatureC = int(temperature);
        if (nvml.computeCapability)
            nvml.computeCapability(device, &gpu.computeCapabilityMajor, &gpu.computeCapabilityMinor);
        if (nvml.processes) {
            NvmlProcessInfoV1 processes[64];
            unsigned int n = 64;
            if (nvml.processes(device, &n, processes) == kNvmlSuccess) {
                for (unsigned int p = 0; p < n && p < 64; ++p)
                    gpu.processes.push_back({processes[p].pid, processes[p].usedGpuMemory});
            }
        }
        report.gpus.push_back(std::move(gpu));
    }
    nvml.shutdown();
    dlclose(library);
}

} // namespace swarmtrain
