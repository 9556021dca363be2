// A stand-in for libnvidia-ml.so.1 exporting the NVML functions GpuProbe uses. FAKE_NVML_MODE
// picks the behaviour: ok (two GPUs), init_fail, device_error (the second GPU fails), hang, crash.
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {
std::string mode()
{
    const char *m = std::getenv("FAKE_NVML_MODE");
    return m ? m : "ok";
}
int copy(char *out, unsigned int size, const char *text)
{
    std::strncpy(out, text, size);
    out[size - 1] = 0;
    return 0;
}
struct Memory { unsigned long long total, free, used; };
struct Utilization { unsigned int gpu, memory; };
struct Process { unsigned int pid; unsigned long long usedGpuMemory; };
} // namespace

extern "C" {
int nvmlInit_v2()
{
    const std::string m = mode();
    if (m == "hang")
        for (;;)
            pause();
    if (m == "crash")
        std::raise(SIGSEGV);
    return m == "init_fail" ? 9 : 0; // NVML_ERROR_DRIVER_NOT_LOADED
}
int nvmlShutdown() { return 0; }
const char *nvmlErrorString(int code) { return code == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device)
{
    *device = reinterpret_cast<void *>(std::uintptr_t(index + 1));
    return 0;
}
int nvmlDeviceGetName(void *device, char *name, unsigned int size)
{
    if (device == reinterpret_cast<void *>(2) && mode() == "device_error")
        return 999;
    return copy(name, size, device == reinterpret_cast<void *>(1) ? "NVIDIA GeForce RTX 3080" : "NVIDIA GeForce RTX 4090");
}
int nvmlDeviceGetUUID(void *device, char *uuid, unsigned int size)
{
    return copy(uuid, size, device == reinterpret_cast<void *>(1) ? "GPU-fake-0" : "GPU-fake-1");
}
int nvmlDeviceGetMemoryInfo(void *device, Memory *memory)
{
    const unsigned long long gib = 1ull << 30;
    *memory = device == reinterpret_cast<void *>(1) ? Memory{10 * gib, 9 * gib, gib} : Memory{24 * gib, 20 * gib, 4 * gib};
    return 0;
}
int nvmlSystemGetDriverVersion(char *version, unsigned int size) { return copy(version, size, "550.54.14"); }
int nvmlDeviceGetUtilizationRates(void *, Utilization *u) { *u = {37, 12}; return 0; }
int nvmlDeviceGetTemperature(void *, int, unsigned int *t) { *t = 64; return 0; }
int nvmlDeviceGetCudaComputeCapability(void *device, int *major, int *minor)
{
    *major = 8;
    *minor = device == reinterpret_cast<void *>(1) ? 6 : 9;
    return 0;
}
int nvmlDeviceGetComputeRunningProcesses(void *, unsigned int *count, Process *processes)
{
    processes[0] = {4242, 512ull << 20};
    *count = 1;
    return 0;
}
}
