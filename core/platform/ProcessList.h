#pragma once

#include <memory>
#include <string>
#include <vector>

namespace swarmtrain {

// The names of the programs running now, to find the person's exclusive apps (games). One
// implementation per OS (/proc on Linux, Toolhelp32 on Windows, libproc on macOS), each in a
// header of its own; makeProcessList() picks it.
class ProcessList {
public:
    virtual ~ProcessList() = default;
    virtual std::vector<std::string> runningNames() const = 0;
};

std::unique_ptr<ProcessList> makeProcessList();

} // namespace swarmtrain
