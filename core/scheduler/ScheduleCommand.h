#pragma once

#include "Result.h"

#include <cstdint>
#include <string>

namespace swarmtrain::scheduler {

// `swarmtrain-cli schedule --input FILE.json [--seconds S] [--seed N] [--json]` in one call:
// parses a scenario (ScenarioJson.h), schedules it (or repairs its "current" assignment) within
// `seconds` of search, and returns the result as JSON or as text for people.
Result<std::string> runScheduleCommand(const std::string &scenarioJson, double seconds, std::uint64_t seed, bool json);

} // namespace swarmtrain::scheduler
