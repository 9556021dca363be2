#pragma once

#include <optional>
#include <string>
#include <vector>

namespace swarmtrain::scheduler {

// A peer serving a pipeline stage, with its measured throughput there (microbatches a second,
// from heartbeats).
struct StagePeer {
    std::string id;
    int stage = 0;
    double microbatchesPerSecond = 0.0;
};

struct RebalanceOptions {
    // The bottleneck stage must gain at least this factor from a move: Petals' balance quality
    // of 0.75, as 1 / 0.75.
    double minGain = 1.0 / 0.75;
};

struct StageMove {
    std::string peer;
    int from = 0;
    int to = 0;
    double throughputBefore = 0.0; // the pipeline's: its slowest stage's microbatches a second
    double throughputAfter = 0.0;  // estimated
};

// Each stage's throughput: the sum of its peers' rates (0 for a stage with none).
std::vector<double> stageThroughputs(const std::vector<StagePeer> &peers, int stageCount);

// A peer's estimated rate at stage `to`, from its measured rate at `from`: its FLOP/s are the
// same, so the rate scales with the stages' costs (training FLOPs a microbatch).
double rateAt(const StagePeer &peer, int to, const std::vector<double> &stageCosts);

// SWARM's rebalancing (Ryabinin et al. 2023, section 3.3; issue 17), one move at a time: a peer
// from a stage with spare capacity to the bottleneck stage. A stage with no peer gets one at once
// (from the stage whose throughput suffers least). Otherwise a move must
//   - raise the bottleneck stage's throughput by at least minGain,
//   - leave the donor stage above the bottleneck's throughput before the move,
// and of those the one with the best pipeline throughput after it is taken. Every move thus takes
// a stage off the slowest level or raises that level, so moves cannot cycle; with equal peers a
// placement of 1 / 1 / 4 reaches 2 / 2 / 2 in two moves and stays there. `stageCosts` are the
// stages' training FLOPs a microbatch (or any numbers in their ratio).
std::optional<StageMove> chooseStageMove(const std::vector<StagePeer> &peers, const std::vector<double> &stageCosts,
                                         const RebalanceOptions &options = {});

} // namespace swarmtrain::scheduler
