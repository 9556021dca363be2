#pragma once

#include <filesystem>
#include <string>

namespace swarmtrain {

// The text of a launchd LaunchAgent (an XML property list) that starts `executable` with
// `arguments` at login. `arguments` is split as a POSIX shell would (blanks separate words,
// quotes and backslashes keep them together), since launchd takes an array, not a command line.
// Plain text on every OS, so its tests run anywhere.
std::string launchAgentPlist(const std::string &label, const std::filesystem::path &executable,
                             const std::string &arguments);

} // namespace swarmtrain
