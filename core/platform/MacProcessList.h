#pragma once

#include "ProcessList.h"

namespace swarmtrain {

// macOS: libproc's list of processes, each named by its executable's file name (proc_pidpath),
// or by proc_name where the path may not be read.
class MacProcessList : public ProcessList {
public:
    std::vector<std::string> runningNames() const override;
};

} // namespace swarmtrain
