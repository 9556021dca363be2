#pragma once

#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// swarmtrain-cli's commands for a running client (status, pause, resume, release, stats, log,
// swarm join/leave): its exit code, or nullopt when `command` is not one of them (and always in
// the engine-only build, which has no Qt).
std::optional<int> runControlCommand(const std::string &command, const std::vector<std::string> &args);

// For swarmtrain-cli --help: the commands above, one line each.
std::vector<std::pair<std::string, std::string>> controlCommands();

} // namespace swarmtrain
