#pragma once

#include "Result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// swarmtrain-cli's commands for a running client (status, pause, resume, release, stats, log,
// swarm join/leave): its exit code, or nullopt when `command` is not one of them (and always in
// the engine-only build, which has no Qt).
std::optional<int> runControlCommand(const std::string &command, const std::vector<std::string> &args);

// The swarm's current state, from the coordinator at `url` (GET /v1/checkpoint, its SHA-256
// checked), into `file`; an error in the engine-only build, which has no network client.
Result<void> downloadSwarmState(const std::string &url, const std::filesystem::path &file);

// For swarmtrain-cli --help: the commands above, one line each.
std::vector<std::pair<std::string, std::string>> controlCommands();

} // namespace swarmtrain
