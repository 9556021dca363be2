#pragma once

#include "BottleneckMatching.h"
#include "PathOrder.h"
#include "SchedulerProblem.h"

#include <span>
#include <utility>
#include <vector>

namespace swarmtrain::scheduler {

// A missing link costs this per transfer: usable only where nothing else is, and visible in a total.
inline constexpr double kMissingLinkSeconds = 1.0e6;
// Added per device placed in a stage whose state it cannot hold, so the search moves it away.
inline constexpr double kMemoryPenaltySeconds = 1.0e7;

// How the groups are put in a pipeline.
enum class StageOrder {
    Optimal,      // the paper: the shortest open path over the groups, bottleneck-matched neighbours
    Given,        // the groups' order as given (a running swarm's stages), bottleneck-matched neighbours
    GivenPairing, // as given, and slot k of one group feeds slot k of the next (fixed pipelines)
};

// The cost of one assignment, in seconds per step.
struct CostBreakdown {
    double dataParallel = 0.0; // DataPCost: the slowest group's all-reduce
    double pipeline = 0.0;     // PipelinePCost, one way; the total counts it twice (activations, gradients)
    double compute = 0.0;      // beyond the paper: the slowest stage, times microbatches + stages - 1
    double memoryPenalty = 0.0;
    double total = 0.0;

    double pipelineTwice() const { return 2.0 * pipeline; }
};

// Between a stage and the next: which device feeds which, and the slowest of those transfers.
struct StageLink {
    std::vector<std::pair<int, int>> feeds; // (device of this stage, device of the next)
    double seconds = 0.0;                   // t of the bottleneck edge
    int bottleneckFrom = -1, bottleneckTo = -1;
};

// Everything evaluate() found, for the result and its explanation.
struct Evaluation {
    CostBreakdown cost;
    std::vector<int> order;       // group indices, first stage first
    std::vector<StageLink> links; // order.size() - 1 of them
    bool orderExact = true;
    int slowestAllReduceGroup = -1, slowestAllReduceDevice = -1;
    int slowestComputeGroup = -1, slowestComputeDevice = -1;
    std::vector<int> devicesShortOfMemory;
};

// The paper's cost model (Yuan et al. 2022, section 3) for a fixed grid of `stages` groups of
// `dataParallel` devices, plus the compute and memory terms that the problem's CostTerms switch on.
// Edge costs are computed once; the model keeps scratch space, so use one per thread.
class CostModel {
public:
    CostModel(const Problem &problem, int stages, int dataParallel);

    int stages() const { return m_stages; }
    int dataParallel() const { return m_dataParallel; }
    int deviceCount() const { return m_devices; }
    const Problem &problem() const { return m_problem; }
    double dataParallelBytes() const { return m_dataParallelBytes; } // c_dp: one stage's gradients
    double pipelineBytes() const { return m_pipelineBytes; }         // c_pp: one tasklet's activations
    double stageMemoryBytes() const { return m_stageMemoryBytes; }   // what each device of a stage must hold

    // t(d, e, c) = delay + c / bandwidth, kMissingLinkSeconds where the link is missing.
    double transferSeconds(int from, int to, double bytes) const;
    // t(d, e, c_pp), the larger of both directions: activations go one way, gradients the other.
    double pipelineEdge(int from, int to) const { return m_pipelineEdge[index(from, to)]; }
    // 2 (delay + c_dp / (D_dp bandwidth)): d's share of a ring-style all-reduce with e.
    double dataParallelEdge(int from, int to) const { return m_dataParallelEdge[index(from, to)]; }

    // max over d in the group of the sum over the others of dataParallelEdge(d, e).
    double allReduceSeconds(std::span<const int> group, int *slowestDevice = nullptr) const;
    // w(G, H): the bottleneck perfect matching between two groups.
    double linkSeconds(std::span<const int> from, std::span<const int> to) const;
    StageLink link(std::span<const int> from, std::span<const int> to) const;
    // How many devices of `from` must use an edge costing `bottleneck` or more in any perfect
    // matching (the rest can be matched below it): how far a stage boundary is from getting faster.
    int linkSlack(std::span<const int> from, std::span<const int> to, double bottleneck) const;
    // A cheap lower bound on linkSeconds(): every device needs at least its cheapest partner.
    double linkLowerBound(std::span<const int> from, std::span<const int> to) const;
    // One microbatch through a stage: its FLOPs over the slowest device's FLOP/s (0 with the term off).
    double stageComputeSeconds(std::span<const int> group, int *slowestDevice = nullptr) const;
    // The compute term from the slowest stage's seconds per microbatch (GPipe's fill and drain).
    double computeTerm(double slowestStageSeconds) const;
    // Devices of the group that cannot hold a stage's state (none with the term off).
    int devicesShortOfMemory(std::span<const int> group) const;
    bool shortOfMemory(int device) const;

    // Adds the terms up as the search does.
    double total(double allReduce, double pipelineOneWay, double slowestStageSeconds, int shortDevices) const;

    // Full evaluation of `groups` (each of dataParallel devices; stages() of them).
    Evaluation evaluate(const std::vector<std::vector<int>> &groups, StageOrder order) const;

private:
    std::size_t index(int from, int to) const { return std::size_t(from) * std::size_t(m_devices) + std::size_t(to); }

    const Problem &m_problem;
    int m_devices = 0;
    int m_stages = 0;
    int m_dataParallel = 0;
    int m_layersPerStage = 0;
    double m_dataParallelBytes = 0.0;
    double m_pipelineBytes = 0.0;
    double m_stageMemoryBytes = 0.0;
    double m_stageFlops = 0.0;
    std::vector<double> m_pipelineEdge;
    std::vector<double> m_dataParallelEdge;

    // Fills m_block with the pipeline edge costs from each device of `from` to each of `to`; returns n.
    int fillBlock(std::span<const int> from, std::span<const int> to) const;

    mutable BottleneckMatcher m_matcher;
    mutable PathOrderSolver m_pathSolver;
    mutable std::vector<double> m_block;
};

} // namespace swarmtrain::scheduler
