#pragma once

#include "CostModel.h"
#include "SchedulerProblem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace swarmtrain::scheduler {

// The scheduler's answer: which devices serve which stage, who feeds whom, what it costs and why.
struct Schedule {
    Grid grid;                            // the grid used (chosen or given)
    std::vector<std::vector<int>> stages; // device indices of each stage, first stage first
    std::vector<int> spares;              // devices left out of the grid
    std::vector<StageLink> links;         // stage s -> s + 1, matched only along edges <= its bottleneck
    CostBreakdown cost;
    bool feasible = true; // no device is short of memory
    std::string why;      // one line per finding, for people

    // How the search went.
    std::uint64_t seed = 0;
    long long evaluations = 0; // costs priced (moves and full evaluations)
    int trials = 0;            // offspring produced by crossover
    double seconds = 0.0;      // on the search's clock
    std::string origin;        // which starting point the best assignment grew from

    // Incremental rescheduling only.
    int movedPeers = 0;  // peers that were in a stage (or spare) and now are elsewhere
    int placedPeers = 0; // newcomers put into a stage
};

// Builds the schedule of `groups` (stage order from `order`) with its explanation.
Schedule describeSchedule(const CostModel &model, const std::vector<std::vector<int>> &groups,
                          const std::vector<int> &spares, StageOrder order);

// "1.25 Gbit/s", "12.0 ms", "3.016 s": the units people read links in.
std::string formatSeconds(double seconds);

} // namespace swarmtrain::scheduler
