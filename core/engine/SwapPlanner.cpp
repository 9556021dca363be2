#include "SwapPlanner.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace swarmtrain {

namespace {

struct GroupTimes {
    double forward = 0.0, backward = 0.0, upload = 0.0, download = 0.0;
};

std::vector<GroupTimes> groupTimes(const std::vector<StageCost> &stages, const std::vector<SwapGroup> &groups)
{
    std::vector<GroupTimes> times(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (int s = groups[g].firstStage; s <= groups[g].lastStage; ++s) {
            const StageCost &c = stages[std::size_t(s)];
            times[g].forward += c.forwardMs;
            times[g].backward += c.backwardMs;
            times[g].upload += c.uploadMs;
            times[g].download += c.downloadMs;
        }
    }
    return times;
}

// Stages packed left to right into groups of at most `cap` bytes.
std::vector<SwapGroup> packGroups(const std::vector<StageCost> &stages, std::int64_t cap)
{
    std::vector<SwapGroup> groups;
    for (int s = 0; s < int(stages.size()); ++s) {
        const std::int64_t bytes = stages[std::size_t(s)].bytes;
        if (groups.empty() || groups.back().bytes + bytes > cap)
            groups.push_back({s, s, 0});
        groups.back().lastStage = s;
        groups.back().bytes += bytes;
    }
    return groups;
}

std::string formatMs(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f ms", ms);
    return text;
}

// Sets each group's optimizer placement and says why, e.g. "optimizer: group 2 on device
// (1.20 ms vs 3.40 ms on host); the rest on host".
std::string placeOptimizer(std::vector<SwapGroup> &groups, const std::vector<StageCost> &stages,
                           OptimizerPlacement requested)
{
    double hostMs = 0.0, deviceMs = 0.0;
    std::string onDevice;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        double host = 0.0, device = 0.0;
        for (int s = groups[g].firstStage; s <= groups[g].lastStage; ++s) {
            host += stages[std::size_t(s)].hostStepMs;
            device += stages[std::size_t(s)].deviceStepMs;
        }
        hostMs += host;
        deviceMs += device;
        groups[g].optimizer = requested != OptimizerPlacement::Auto ? requested
                              : device < host                       ? OptimizerPlacement::Device
                                                                    : OptimizerPlacement::Host;
        if (requested == OptimizerPlacement::Auto && groups[g].optimizer == OptimizerPlacement::Device) {
            onDevice += (onDevice.empty() ? "" : ", ") + ("group " + std::to_string(g) + " on device (")
                        + formatMs(device) + " vs " + formatMs(host) + " on host)";
        }
    }
    const std::string measured = formatMs(hostMs) + " on host vs " + formatMs(deviceMs) + " on device";
    if (requested == OptimizerPlacement::Host)
        return "optimizer on host for every group, as asked (measured " + measured + ")";
    if (requested == OptimizerPlacement::Device)
        return "optimizer on device for every group, as asked (measured " + measured + ")";
    if (onDevice.empty())
        return "optimizer on host for every group (" + measured + ")";
    bool allOnDevice = true;
    for (const SwapGroup &group : groups)
        allOnDevice = allOnDevice && group.optimizer == OptimizerPlacement::Device;
    return "optimizer: " + onDevice + (allOnDevice ? "" : "; the rest on host");
}

} // namespace

std::string formatBytes(std::int64_t bytes)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return text;
}

SwapPlan SwapPlan::stageByStage(const std::vector<std::int64_t> &stageBytes)
{
    SwapPlan plan;
    for (int s = 0; s < int(stageBytes.size()); ++s)
        plan.groups.push_back({s, s, stageBytes[std::size_t(s)]});
    plan.why = "one stage at a time, to measure each";
    return plan;
}

// Mirrors SwappingExecutor::forwardBackward: one compute queue and one copy queue, each
// running its work in order; a copy into memory that a finished group frees waits for it.
double simulateSwappedStep(const std::vector<StageCost> &stages, const std::vector<SwapGroup> &groups, bool prefetch)
{
    const std::vector<GroupTimes> t = groupTimes(stages, groups);
    const int k = int(groups.size());
    if (k == 0)
        return 0.0;
    double compute = 0.0, copy = 0.0;
    std::vector<double> uploaded(std::size_t(k), 0.0);
    const auto upload = [&](int g, double notBefore) {
        copy = std::max(copy, notBefore) + t[std::size_t(g)].upload;
        uploaded[std::size_t(g)] = copy;
    };
    const auto download = [&](int g) { copy = std::max(copy, compute) + t[std::size_t(g)].download; };

    upload(0, 0.0);
    for (int g = 0; g < k; ++g) {
        if (prefetch && g + 1 < k)
            upload(g + 1, compute);
        compute = std::max(compute, uploaded[std::size_t(g)]) + t[std::size_t(g)].forward;
        if (!prefetch && g + 1 < k)
            upload(g + 1, compute);
    }
    // The last group stays on the device across the turn.
    if (prefetch && k >= 2)
        upload(k - 2, compute);
    compute += t[std::size_t(k - 1)].backward;
    download(k - 1);
    for (int g = k - 2; g >= 0; --g) {
        if (!prefetch)
            upload(g, compute);
        else if (g >= 1)
            upload(g - 1, compute);
        compute = std::max(compute, uploaded[std::size_t(g)]) + t[std::size_t(g)].backward;
        download(g);
    }
    return std::max(compute, copy);
}

Result<SwapPlan> planSwapping(const std::vector<StageCost> &stages, std::int64_t wholeBudgetBytes,
                              OptimizerPlacement optimizer)
{
    if (stages.empty())
        return makeError("the model has no stages");
    const auto largest = std::max_element(stages.begin(), stages.end(),
                                          [](const StageCost &a, const StageCost &b) { return a.bytes < b.bytes; });
    std::int64_t retained = 0;
    for (const StageCost &stage : stages)
        retained += stage.retainedBytes;
    const std::int64_t budgetBytes = wholeBudgetBytes - retained;
    if (retained > 0 && largest->bytes > budgetBytes) {
        return makeError("the half-precision copies the autograd graph keeps of the matmul weights ("
                         + formatBytes(retained) + ") leave " + formatBytes(std::max<std::int64_t>(0, budgetBytes))
                         + " of the device-memory budget (" + formatBytes(wholeBudgetBytes)
                         + "), less than the largest stage (" + formatBytes(largest->bytes) + "); give at least "
                         + formatBytes(retained + largest->bytes) + ", or train in float32");
    }
    if (largest->bytes > budgetBytes) {
        return makeError("the device-memory budget (" + formatBytes(budgetBytes) + ") is smaller than the largest stage ("
                         + formatBytes(largest->bytes) + ", stage " + std::to_string(largest - stages.begin())
                         + "); give at least that much");
    }

    // Every contiguous range's size is a candidate cap; the packing it gives is simulated.
    std::set<std::int64_t> caps;
    for (std::size_t first = 0; first < stages.size(); ++first) {
        std::int64_t bytes = 0;
        for (std::size_t last = first; last < stages.size(); ++last) {
            bytes += stages[last].bytes;
            if (bytes > budgetBytes)
                break;
            caps.insert(bytes);
        }
    }
    SwapPlan best;
    bool found = false;
    for (const bool prefetch : {true, false}) {
        const std::int64_t capacity = prefetch ? budgetBytes / 2 : budgetBytes;
        for (const std::int64_t cap : caps) {
            if (cap > capacity || cap < largest->bytes)
                continue;
            std::vector<SwapGroup> groups = packGroups(stages, cap);
            const double ms = simulateSwappedStep(stages, groups, prefetch);
            // Faster wins; on a tie, fewer groups (fewer copies and waits).
            if (!found || ms < best.estimatedMs * 0.999
                || (ms <= best.estimatedMs * 1.001 && groups.size() < best.groups.size())) {
                best.groups = std::move(groups);
                best.prefetch = prefetch;
                best.estimatedMs = ms;
                found = true;
            }
        }
    }

    for (const StageCost &s : stages)
        best.computeOnlyMs += s.forwardMs + s.backwardMs;
    std::string ranges;
    for (const SwapGroup &g : best.groups) {
        ranges += (ranges.empty() ? "[" : " [") + std::to_string(g.firstStage)
                  + (g.lastStage > g.firstStage ? "-" + std::to_string(g.lastStage) : "") + "]";
    }
    best.why = std::to_string(best.groups.size()) + " groups of stages " + ranges + " in a budget of "
               + formatBytes(budgetBytes)
               + (retained > 0 ? " (of " + formatBytes(wholeBudgetBytes) + ": " + formatBytes(retained)
                                     + " kept for half-precision weight copies)"
                               : std::string())
               + "; "
               + (best.prefetch ? "the next group is copied while one computes"
                                : (largest->bytes * 2 > budgetBytes
                                       ? "no room for two of the largest stage, so copies wait for compute"
                                       : "copying one group at a time measured faster"))
               + "; estimated " + formatMs(best.estimatedMs) + " per step against " + formatMs(best.computeOnlyMs)
               + " of compute alone; " + placeOptimizer(best.groups, stages, optimizer);
    return best;
}

} // namespace swarmtrain
