#include "Autostart.h"

#include <cstdlib>
#include <fstream>

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
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    if (ec)
        return makeError("cannot create " + m_dir.string() + ": " + ec.message());
    // Written beside and renamed, so launchd never reads half a file.
    const std::filesystem::path temporary = file().string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << launchAgentPlist(label, executable, arguments);
        out.close();
        if (!out)
            return makeError("cannot write " + temporary.string());
    }
    std::filesystem::rename(temporary, file(), ec);
    if (ec)
        return makeError("cannot write " + file().string() + ": " + ec.message());
    return {};
}

Result<void> MacAutostart::disable()
{
    std::error_code ec;
    std::filesystem::remove(file(), ec);
    if (ec)
        return makeError("cannot remove " + file().string() + ": " + ec.message());
    return {};
}

} // namespace swarmtrain
