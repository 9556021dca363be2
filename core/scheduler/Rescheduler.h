#pragma once

#include "EvolutionarySearch.h"
#include "Schedule.h"
#include "SchedulerProblem.h"

#include <string>
#include <vector>

namespace swarmtrain::scheduler {

// A running swarm's assignment, by device id (ids survive peers coming and going; indices do not).
struct CurrentAssignment {
    std::vector<std::vector<std::string>> stages; // first stage first, each of the same size
    std::vector<std::string> spares;
};

struct RescheduleOptions {
    // What moving one peer to another stage (it must download that stage's state) costs in
    // seconds per step; < 0: 1% of the repaired assignment's cost. A move happens only when it
    // saves more than this.
    double secondsPerMove = -1.0;
    SearchOptions search; // seconds, seed and clock of the local search
};

// Repairs `current` for the devices of `problem` instead of starting over: stages keep their
// place in the pipeline; holes left by departed peers are filled from the spares and newcomers;
// when too few devices remain for the grid, every stage shrinks to the same size (the worst-
// connected members step down to spares); then a local search in which every moved peer costs
// `secondsPerMove`. Newcomers beyond the holes stay spares: the cost model prices one step, not
// throughput, so a bigger grid is schedule()'s call. Reports moved and placed peers. The grid
// in `problem` is ignored (the current one is kept, or shrunk).
Result<Schedule> reschedule(const Problem &problem, const CurrentAssignment &current, const RescheduleOptions &options);

} // namespace swarmtrain::scheduler
