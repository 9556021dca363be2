#include "StageRebalancer.h"

#include <algorithm>

namespace swarmtrain::scheduler {

std::vector<double> stageThroughputs(const std::vector<StagePeer> &peers, int stageCount)
{
    std::vector<double> throughput(std::size_t(std::max(stageCount, 0)), 0.0);
    for (const StagePeer &peer : peers) {
        if (peer.stage >= 0 && peer.stage < stageCount)
            throughput[std::size_t(peer.stage)] += std::max(peer.microbatchesPerSecond, 0.0);
    }
    return throughput;
}

double rateAt(const StagePeer &peer, int to, const std::vector<double> &stageCosts)
{
    const double from = stageCosts.at(std::size_t(peer.stage)), cost = stageCosts.at(std::size_t(to));
    return cost > 0 ? std::max(peer.microbatchesPerSecond, 0.0) * from / cost : 0.0;
}

std::optional<StageMove> chooseStageMove(const std::vector<StagePeer> &peers, const std::vector<double> &stageCosts,
                                         const RebalanceOptions &options)
{
    const int stages = int(stageCosts.size());
    const std::vector<double> before = stageThroughputs(peers, stages);
    if (before.empty())
        return std::nullopt;
    std::vector<int> count(std::size_t(stages), 0);
    for (const StagePeer &peer : peers) {
        if (peer.stage >= 0 && peer.stage < stages)
            ++count[std::size_t(peer.stage)];
    }
    const auto bottleneck = std::size_t(std::min_element(before.begin(), before.end()) - before.begin());
    const double slowest = before[bottleneck];
    const bool empty = count[bottleneck] == 0;

    std::optional<StageMove> best;
    double bestDonorLeft = 0.0;
    for (const StagePeer &peer : peers) {
        if (peer.stage < 0 || peer.stage >= stages || std::size_t(peer.stage) == bottleneck
            || count[std::size_t(peer.stage)] < 2)
            continue; // a move never empties a stage
        std::vector<double> after = before;
        after[std::size_t(peer.stage)] -= std::max(peer.microbatchesPerSecond, 0.0);
        after[bottleneck] += rateAt(peer, int(bottleneck), stageCosts);
        if (!empty) {
            const bool gainsEnough = after[bottleneck] >= options.minGain * slowest;
            const bool donorStaysAbove = after[std::size_t(peer.stage)] > slowest;
            if (!gainsEnough || !donorStaysAbove)
                continue;
        }
        const double throughput = *std::min_element(after.begin(), after.end());
        // The best pipeline after the move; among equals, the donor left with the most.
        const double donorLeft = after[std::size_t(peer.stage)];
        if (!best || throughput > best->throughputAfter || (throughput == best->throughputAfter && donorLeft > bestDonorLeft)) {
            best = StageMove{peer.id, peer.stage, int(bottleneck), slowest, throughput};
            bestDonorLeft = donorLeft;
        }
    }
    return best;
}

} // namespace swarmtrain::scheduler
