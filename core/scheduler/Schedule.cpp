#include "Schedule.h"

#include <cstdio>

namespace swarmtrain::scheduler {

namespace {

std::string describeLink(const Problem &problem, int from, int to)
{
    if (!problem.linked(from, to) || !problem.linked(to, from))
        return "no measured link";
    char text[96];
    std::snprintf(text, sizeof text, "%.1f ms, %.3g Gbit/s", problem.delay(from, to) * 1e3,
                  problem.bandwidth(from, to) * 8.0 / 1e9);
    return text;
}

std::string deviceName(const Problem &problem, int device)
{
    const std::string &site = problem.devices[std::size_t(device)].site;
    return "device " + problem.deviceId(device) + (site.empty() ? "" : " (" + site + ")");
}

} // namespace

std::string formatSeconds(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, seconds >= 100.0 ? "%.1f s" : "%.4g s", seconds);
    return text;
}

Schedule describeSchedule(const CostModel &model, const std::vector<std::vector<int>> &groups,
                          const std::vector<int> &spares, StageOrder order)
{
    const Problem &problem = model.problem();
    const Evaluation evaluation = model.evaluate(groups, order);
    Schedule schedule;
    schedule.grid = {model.stages(), model.dataParallel()};
    for (const int g : evaluation.order)
        schedule.stages.push_back(groups[std::size_t(g)]);
    schedule.spares = spares;
    schedule.links = evaluation.links;
    schedule.cost = evaluation.cost;
    schedule.feasible = evaluation.devicesShortOfMemory.empty();

    const CostBreakdown &cost = evaluation.cost;
    std::string why = "total " + formatSeconds(cost.total) + " per step = data-parallel "
                      + formatSeconds(cost.dataParallel) + " + 2 x pipeline " + formatSeconds(cost.pipeline);
    if (problem.terms.compute)
        why += " + compute " + formatSeconds(cost.compute);
    if (cost.memoryPenalty > 0.0)
        why += " + memory penalty " + formatSeconds(cost.memoryPenalty);
    why += " (" + std::to_string(model.stages()) + " stages x " + std::to_string(model.dataParallel()) + " devices";
    why += spares.empty() ? ")\n" : ", " + std::to_string(spares.size()) + " spare)\n";

    // Positions of groups in the stage order, to name stages rather than group numbers.
    std::vector<int> stageOf(groups.size(), 0);
    for (std::size_t s = 0; s < evaluation.order.size(); ++s)
        stageOf[std::size_t(evaluation.order[s])] = int(s);

    if (evaluation.slowestAllReduceDevice >= 0 && model.dataParallel() > 1) {
        const int d = evaluation.slowestAllReduceDevice;
        const std::vector<int> &group = groups[std::size_t(evaluation.slowestAllReduceGroup)];
        int slowestPeer = -1;
        for (const int e : group) {
            if (e != d && (slowestPeer < 0 || model.dataParallelEdge(d, e) > model.dataParallelEdge(d, slowestPeer)))
                slowestPeer = e;
        }
        why += "data-parallel bottleneck: stage "
               + std::to_string(stageOf[std::size_t(evaluation.slowestAllReduceGroup)]) + ", " + deviceName(problem, d)
               + " exchanges " + formatSeconds(cost.dataParallel) + " with its group; its slowest peer is "
               + deviceName(problem, slowestPeer) + " (" + describeLink(problem, d, slowestPeer) + ")\n";
    }
    int slowestLink = -1;
    for (std::size_t s = 0; s < evaluation.links.size(); ++s) {
        if (slowestLink < 0 || evaluation.links[s].seconds > evaluation.links[std::size_t(slowestLink)].seconds)
            slowestLink = int(s);
    }
    if (slowestLink >= 0) {
        const StageLink &link = evaluation.links[std::size_t(slowestLink)];
        why += "slowest stage boundary: stage " + std::to_string(slowestLink) + " -> " + std::to_string(slowestLink + 1)
               + ", " + formatSeconds(link.seconds) + " on " + deviceName(problem, link.bottleneckFrom) + " -> "
               + deviceName(problem, link.bottleneckTo) + " ("
               + describeLink(problem, link.bottleneckFrom, link.bottleneckTo) + ")\n";
    }
    if (order == StageOrder::Optimal && !evaluation.orderExact)
        why += "stage order: heuristic (more than " + std::to_string(kExactPathNodes) + " stages), not proven best\n";
    if (problem.terms.compute && evaluation.slowestComputeDevice >= 0) {
        why += "slowest stage compute: stage " + std::to_string(stageOf[std::size_t(evaluation.slowestComputeGroup)])
               + ", " + deviceName(problem, evaluation.slowestComputeDevice) + " at "
               + formatSeconds(model.stageComputeSeconds(groups[std::size_t(evaluation.slowestComputeGroup)]))
               + " per microbatch\n";
    }
    if (!evaluation.devicesShortOfMemory.empty()) {
        char need[64];
        std::snprintf(need, sizeof need, "%.3g GB", model.stageMemoryBytes() / 1e9);
        why += "infeasible: " + std::to_string(evaluation.devicesShortOfMemory.size())
               + " device(s) cannot hold a stage (" + need + "), e.g. "
               + deviceName(problem, evaluation.devicesShortOfMemory.front()) + "\n";
    }
    schedule.why = why;
    return schedule;
}

} // namespace swarmtrain::scheduler
