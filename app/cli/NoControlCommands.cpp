// The engine-only build: no Qt, so no local control socket to talk to.
#include "ControlCommands.h"

namespace swarmtrain {

std::optional<int> runControlCommand(const std::string &, const std::vector<std::string> &) { return std::nullopt; }

std::vector<std::pair<std::string, std::string>> controlCommands() { return {}; }

Result<void> downloadSwarmState(const std::string &, const std::filesystem::path &)
{
    return makeError("this engine-only build has no network client: download the state and give --state FILE");
}

} // namespace swarmtrain
