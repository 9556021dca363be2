#pragma once

#include "Result.h"

#include <filesystem>
#include <memory>
#include <string>

namespace swarmtrain {

// Starting SwarmTrain when the person logs in. One implementation per OS (an XDG autostart
// file on Linux, the Run key on Windows, a LaunchAgent on macOS), each in a header of its own;
// makeAutostart() picks it.
class Autostart {
public:
    virtual ~Autostart() = default;
    virtual bool isEnabled() const = 0;
    // `executable` is started with `arguments` (already quoted for the OS's command line).
    virtual Result<void> enable(const std::filesystem::path &executable, const std::string &arguments) = 0;
    virtual Result<void> disable() = 0;
};

std::unique_ptr<Autostart> makeAutostart();

} // namespace swarmtrain
