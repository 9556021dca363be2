// AMD GPUs through ROCm SMI (librocm_smi64), loaded at run time when ROCm is installed. It
// gives the same figures as amdgpu's sysfs files plus the driver's own version; without it
// the sysfs probe answers.
#include "DynamicLibrary.h"
#include "GpuProbe.h"

#include <cstdint>
#include <cstdio>
#include <dlfcn.h>

namespace swarmtrain {

namespace {

struct RocmSmi {
    int (*init)(std::uint64_t) = nullptr;
    int (*shutDown)() = nullptr;
    int (*deviceCount)(std::uint32_t *) = nullptr;
    int (*name)(std::uint32_t, char *, std::size_t) = nullptr;
    int (*memoryTotal)(std::uint32_t, int, std::uint64_t *) = nullptr;
    int (*memoryUsed)(std::uint32_t, int, std::uint64_t *) = nullptr;
    int (*busyPercent)(std::uint32_t, std::uint32_t *) = nullptr;
    int (*temperature)(std::uint32_t, std::uint32_t, int, std::int64_t *) = nullptr;
    int (*uniqueId)(std::uint32_t, std::uint64_t *) = nullptr;
    int (*version)(int, char *, std::uint32_t) = nullptr;
};

constexpr int kSuccess = 0, kVram = 0, kEdgeSensor = 0, kCurrent = 0, kDriver = 0;

} // namespace

// True when ROCm SMI answered (its GPUs, possibly none, are in `report`).
bool probeRocmSmi(const GpuProbeOptions &options, GpuReport &report)
{
    void *library = dlopen(options.rocmSmiLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
        return false; // no ROCm: the sysfs probe answers
    RocmSmi smi;
    bindSymbol(library, "rsmi_init", smi.init);
    bindSymbol(library, "rsmi_shut_down", smi.shutDown);
    bindSymbol(library, "rsmi_num_monitor_devices", smi.deviceCount);
    bindSymbol(library, "rsmi_dev_name_get", smi.name);
    bindSymbol(library, "rsmi_dev_memory_total_get", smi.memoryTotal);
    bindSymbol(library, "rsmi_dev_memory_usage_get", smi.memoryUsed);
    bindSymbol(library, "rsmi_dev_busy_percent_get", smi.busyPercent);
    bindSymbol(library, "rsmi_dev_temp_metric_get", smi.temperature);
    bindSymbol(library, "rsmi_dev_unique_id_get", smi.uniqueId);
    bindSymbol(library, "rsmi_version_str_get", smi.version);
    if (!smi.init || !smi.deviceCount || !smi.name) {
        report.warnings.push_back(options.rocmSmiLibrary + " lacks the ROCm SMI functions; using sysfs");
        dlclose(library);
        return false;
    }
    if (const int code = smi.init(0); code != kSuccess) {
        report.warnings.push_back("ROCm SMI did not start (status " + std::to_string(code) + "); using sysfs");
        dlclose(library);
        return false;
    }
    std::uint32_t count = 0;
    smi.deviceCount(&count);
    char driver[128] = {};
    if (smi.version && smi.version(kDriver, driver, sizeof driver) != kSuccess)
        driver[0] = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        GpuInfo gpu;
        gpu.vendor = "amd";
        char name[256] = {};
        if (smi.name(i, name, sizeof name) != kSuccess) {
            report.warnings.push_back("ROCm SMI: AMD GPU " + std::to_string(i) + " did not answer");
            continue;
        }
        gpu.name = name;
        gpu.driverVersion = driver;
        std::uint64_t total = 0, used = 0, id = 0;
        if (smi.memoryTotal && smi.memoryTotal(i, kVram, &total) == kSuccess)
            gpu.memoryTotalBytes = total;
        if (smi.memoryUsed && smi.memoryUsed(i, kVram, &used) == kSuccess && used <= total)
            gpu.memoryFreeBytes = total - used;
        std::uint32_t busy = 0;
        if (smi.busyPercent && smi.busyPercent(i, &busy) == kSuccess)
            gpu.utilizationPercent = int(busy);
        std::int64_t milli = 0;
        if (smi.temperature && smi.temperature(i, kEdgeSensor, kCurrent, &milli) == kSuccess)
            gpu.temperatureC = int(milli / 1000);
        if (smi.uniqueId && smi.uniqueId(i, &id) == kSuccess) {
            char hex[32];
            std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(id));
            gpu.uuid = hex;
        }
        report.gpus.push_back(std::move(gpu));
    }
    if (smi.shutDown)
        smi.shutDown();
    dlclose(library);
    return true;
}

} // namespace swarmtrain
