#pragma once

#include "ProcessList.h"

namespace swarmtrain {

// Windows: the executable file names ("Cyberpunk2077.exe") of a Toolhelp32 snapshot.
class WinProcessList : public ProcessList {
public:
    std::vector<std::string> runningNames() const override;
};

} // namespace swarmtrain
