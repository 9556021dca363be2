#pragma once

#include <fstream>
#include <string>
#include <sys/types.h>

namespace swarmtrain::test {

// The resident set of process `pid` in bytes (VmRSS of /proc/PID/status); 0 when it cannot be read.
inline long long residentBytes(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024; // "VmRSS:   123456 kB"
    }
    return 0;
}

} // namespace swarmtrain::test
