#include "GpuProbe.h"

#include <cstdio>
#include <sys/sysctl.h>

namespace swarmtrain {

// The GPUs system_profiler lists, with Apple silicon's unified memory (NoMacGpuProbe.cpp elsewhere).
void probeApple(GpuReport &report)
{
    FILE *pipe = popen("/usr/sbin/system_profiler SPDisplaysDataType -json 2>/dev/null", "r");
    if (!pipe) {
        report.warnings.push_back("system_profiler could not be started");
        return;
    }
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
        output.append(buffer, n);
    pclose(pipe);
    std::uint64_t memory = 0;
    std::size_t size = sizeof memory;
    sysctlbyname("hw.memsize", &memory, &size, nullptr, 0);
    for (GpuInfo &gpu : parseSystemProfilerDisplays(output, memory))
        report.gpus.push_back(std::move(gpu));
}

} // namespace swarmtrain
