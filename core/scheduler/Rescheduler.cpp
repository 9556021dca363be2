#include "Rescheduler.h"

#include "CostModel.h"
#include "IncrementalCost.h"

#include <algorithm>
#include <map>
#include <set>

namespace swarmtrain::scheduler {

Result<Schedule> reschedule(const Problem &problem, const CurrentAssignment &current, const RescheduleOptions &options)
{
    if (Result<void> valid = validateProblem(problem); !valid)
        return valid.error();
    const int n = problem.deviceCount();
    const int stages = int(current.stages.size());
    if (stages < 1)
        return makeError("the current assignment has no stages");
    const int size = int(current.stages[0].size());
    std::map<std::string, int> indexOf;
    for (int d = 0; d < n; ++d)
        indexOf[problem.deviceId(d)] = d;

    // Survivors stay where they were; everything else is free to fill holes.
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
    std::vector<int> anchor(static_cast<std::size_t>(n), -1);
    std::set<std::string> seen;
    for (int s = 0; s < stages; ++s) {
        if (int(current.stages[std::size_t(s)].size()) != size)
            return makeError("current.stages[" + std::to_string(s) + "] has "
                             + std::to_string(current.stages[std::size_t(s)].size()) + " devices, stage 0 has "
                             + std::to_string(size));
        for (const std::string &id : current.stages[std::size_t(s)]) {
            if (!seen.insert(id).second)
                return makeError("current assignment: device \"" + id + "\" appears twice");
            const auto found = indexOf.find(id);
            if (found == indexOf.end())
                continue; // departed
            groups[std::size_t(s)].push_back(found->second);
            anchor[std::size_t(found->second)] = s;
        }
    }
    if (size < 1 || stages > problem.model.layers)
        return makeError("the current assignment has empty stages or more stages than the model has layers");
    const int dataParallel = std::min(size, n / stages);
    if (dataParallel < 1)
        return makeError(std::to_string(n) + " devices cannot fill " + std::to_string(stages)
                         + " stages; schedule afresh with fewer stages");

    const CostModel model(problem, stages, dataParallel);
    // Shrinking: a stage with too many survivors lets go of its worst-connected members.
    for (std::vector<int> &group : groups) {
        while (int(group.size()) > dataParallel) {
            const auto worst = std::max_element(group.begin(), group.end(), [&](int a, int b) {
                double sumA = 0.0, sumB = 0.0;
                for (const int e : group) {
                    sumA += model.dataParallelEdge(a, e);
                    sumB += model.dataParallelEdge(b, e);
                }
                return sumA < sumB;
            });
            group.erase(worst);
        }
    }
    // Holes take free devices: spares and newcomers first, then survivors let go by the shrinking
    // (there may be no one else). The local search then picks the right ones.
    std::vector<char> used(static_cast<std::size_t>(n), 0);
    for (const std::vector<int> &group : groups) {
        for (const int d : group)
            used[std::size_t(d)] = 1;
    }
    std::vector<int> free;
    for (const bool anchored : {false, true}) {
        for (int d = 0; d < n; ++d) {
            if (!used[std::size_t(d)] && (anchor[std::size_t(d)] >= 0) == anchored)
                free.push_back(d);
        }
    }
    std::size_t nextFree = 0;
    for (std::vector<int> &group : groups) {
        while (int(group.size()) < dataParallel)
            group.push_back(free[nextFree++]); // stages x dataParallel <= n, so there are enough
    }

    IncrementalCost state(model, StageOrder::Given);
    state.reset(Partition::fromGroups(n, groups));
    const double repairedCost = state.total();
    // Survivors let go are spares now: their anchor is their old stage, so they count as moved.
    const double perMove = options.secondsPerMove >= 0.0 ? options.secondsPerMove : 0.01 * repairedCost;
    state.anchor(anchor, perMove);

    SearchOptions searchOptions = options.search;
    searchOptions.siteSeeds = false;
    EvolutionarySearch search(model, searchOptions, StageOrder::Given);
    search.startClock();
    const long long priced = search.localSearch(state, -1);

    const Partition &partition = state.partition();
    const std::span<const int> spareSpan = partition.spares();
    Schedule schedule = describeSchedule(model, partition.groups(),
                                         std::vector<int>(spareSpan.begin(), spareSpan.end()), StageOrder::Given);
    schedule.seed = searchOptions.seed;
    schedule.evaluations = priced;
    schedule.origin = "the current assignment, repaired";
    for (int d = 0; d < n; ++d) {
        const int bucket = partition.bucketOf(d);
        if (anchor[std::size_t(d)] >= 0 && bucket != anchor[std::size_t(d)])
            ++schedule.movedPeers;
        if (anchor[std::size_t(d)] < 0 && bucket < stages)
            ++schedule.placedPeers;
    }
    schedule.why += "rescheduled: " + std::to_string(schedule.placedPeers) + " peer(s) placed, "
                    + std::to_string(schedule.movedPeers) + " moved (a move had to save more than "
                    + formatSeconds(perMove) + " per step)";
    if (dataParallel < size)
        schedule.why
            += "; stages shrank from " + std::to_string(size) + " to " + std::to_string(dataParallel) + " devices";
    schedule.why += "\n";
    if (!schedule.feasible)
        return makeError("no repaired assignment fits the devices' memory: "
                         + schedule.why.substr(schedule.why.find("infeasible:")));
    return schedule;
}

} // namespace swarmtrain::scheduler
