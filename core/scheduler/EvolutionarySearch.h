#pragma once

#include "CostModel.h"
#include "IncrementalCost.h"
#include "Partition.h"
#include "Schedule.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace swarmtrain::scheduler {

// Seconds on some monotonic clock. Injected so tests drive the budget with a fake clock.
using SecondsClock = std::function<double()>;
SecondsClock steadyClock();

struct SearchOptions {
    int population = 100;
    int trials = 4900; // offspring at most (the paper's defaults: 100 and 4900)
    int crossoverPoints = 5;
    double seconds = 10.0; // budget on `clock`, for the whole search (all grids when schedule() chooses)
    std::uint64_t seed = 1;
    SecondsClock clock;    // empty: the steady clock
    bool siteSeeds = true; // start from site-aware assignments besides random ones
    // Swaps priced per offspring by its local search; 0: 4 x the number of devices.
    int offspringMoves = 0;
};

// The paper's evolutionary search over balanced partitions (Yuan et al. 2022, section 4): a
// steady-state genetic algorithm (tournament selection, group-wise crossover with repair, a few
// random swaps), every offspring improved by a short local search of swaps; then the best is
// improved until no swap or cyclic move of three devices helps. The first population holds,
// besides random partitions, assignments built from sites found in the link matrix (see
// SiteClustering.h): one device of each site per group along the pipelines, or sites packed into
// groups. Deterministic per seed as long as the clock is (with a real clock the budget may end it
// at a different trial). The budget covers everything run() does (site clustering included; the
// CostModel's edge costs are computed before): the genetic phase stops at 95% of it, and the clock
// is read every 16 priced moves, so a run ends at most that much work past its budget.
class EvolutionarySearch {
public:
    EvolutionarySearch(const CostModel &model, SearchOptions options, StageOrder order = StageOrder::Optimal);

    // Partitions in `initial` join the first population (seeds, a previous assignment).
    Schedule run(const std::vector<Partition> &initial = {});
    // Starts the clock for localSearch() used on its own (run() does it itself).
    void startClock();

    // First-improvement local search on `state`: swaps between buckets, then random cyclic moves
    // of three devices in three buckets, until none helps, `maxMoves` moves were priced (< 0: no
    // limit) or the clock passes the deadline. With `tieBreaks`, moves that keep the cost but
    // lower IncrementalCost's tie-break score count as improvements (plateaus of bottlenecks).
    // Returns the number of moves priced.
    long long localSearch(IncrementalCost &state, long long maxMoves, bool tieBreaks = true);

private:
    struct Individual {
        Partition partition;
        double cost = 0.0;
        std::vector<int> key; // Partition::canonical(), to keep duplicates out
        std::string origin;   // the starting point its first parents' line began from
        bool evolved = false; // an offspring, not a starting point
    };

    bool timeLeft() const;
    Individual improve(Partition partition, long long maxMoves, bool tieBreaks, std::string origin);
    int tournament();
    void mutate(Partition &partition);

    const CostModel &m_model;
    SearchOptions m_options;
    StageOrder m_order;
    IncrementalCost m_state;
    std::mt19937_64 m_rng;
    std::vector<Individual> m_population;
    double m_start = 0.0;
    double m_deadline = 0.0;
    long long m_evaluations = 0;
};

// Validates the problem, picks the grid when it is not given (each (stages, devices per stage)
// with stages x devices = N, stages <= layers, gets an equal share of the budget; the cheapest
// feasible one wins) and searches. An assignment that leaves a device short of memory is an
// error naming it, unless spares could take it out (then the search does).
Result<Schedule> schedule(const Problem &problem, const SearchOptions &options);

} // namespace swarmtrain::scheduler
