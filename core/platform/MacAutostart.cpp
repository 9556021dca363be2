#include "MacAutostart.h"
#include "AutostartFile.h"
#include "MacLaunchAgentPlist.h"

#include <cstdlib>

namespace swarmtrain {

MacAutostart::MacAutostart(std::filesystem::path launchAgentsDir) : m_dir(std::move(launchAgentsDir)) {}

std::filesystem::path MacAutostart::defaultLaunchAgentsDir()
{
    const char *home = std::getenv("HOME");
    return std::filesystem::path(home ? home : ".") / "Library" / "LaunchAgents";
}

bool MacAutostart::isEnabled() const
{
    std::error_code ec;
    return std::filesystem::is_regular_file(file(), ec);
}

// Only the file: launchd reads it at the next login. Loading it now (launchctl bootstrap) would
// start a second SwarmTrain beside the one the person is using.
Result<void> MacAutostart::enable(const std::filesystem::path &executable, const std::string &arguments)
{
    return writeAutostartFile(file(), launchAgentPlist(label, executable, arguments));
}

Result<void> MacAutostart::disable() { return removeAutostartFile(file()); }

} // namespace swarmtrain
