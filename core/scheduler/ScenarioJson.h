#pragma once

#include "Rescheduler.h"
#include "Schedule.h"
#include "SchedulerProblem.h"

#include <cstddef>
#include <optional>
#include <string>

namespace swarmtrain::scheduler {

// Larger inputs are refused before parsing.
inline constexpr std::size_t kMaxScenarioBytes = std::size_t(512) << 20;

// A scheduling input: the problem and, to repair rather than start over, the current assignment.
struct Scenario {
    Problem problem;
    std::optional<CurrentAssignment> current;
};

// SwarmTrain's scenario format (JSON; units in the field names):
// {
//   "devices": [{"id": "peer-a", "site": "fra-1", "flops": 9.1e13, "memory_bytes": 2.4e10}, ...],
//                    id: optional, unique (default: the index); site: optional label;
//                    flops: measured FLOP/s (needed with the compute term); memory_bytes: optional
//   "delay_ms": [[...], ...]             or "delay_seconds": N x N one-way delays
//   "bandwidth_gbps": [[...], ...]       or "bandwidth_bytes_per_second": N x N
//                    a null entry is a missing link (the diagonal is never used)
//   "model": {"layers": 24, "parameter_bytes_per_layer": 2.2e8, "activation_bytes_per_microbatch": 4.7e8,
//             "flops_per_layer_per_microbatch": 1e13, "microbatches": 8, "memory_bytes_per_parameter_byte": 4},
//   "grid": {"pipeline_stages": 8, "data_parallel": 8},   optional; 0 or absent: the scheduler chooses
//   "terms": {"compute": true, "memory": true},           optional; both false: the paper's model exactly
//   "current": {"stages": [["peer-a", ...], ...], "spares": [...]}   optional: repair this assignment
// }
// Everything is bounded before it is allocated (at most kMaxDevices devices, matrices exactly
// N x N, finite non-negative numbers); an error names the field, e.g. "bandwidth_gbps[3][7]".
Result<Scenario> parseScenario(const std::string &text);

// The schedule as JSON (device ids, not indices), one object; see ScenarioJson.cpp for the fields.
std::string scheduleResultToJson(const Problem &problem, const Schedule &schedule);
// The schedule for people: grid and cost, one line per stage, then why.
std::string formatSchedule(const Problem &problem, const Schedule &schedule);

} // namespace swarmtrain::scheduler
