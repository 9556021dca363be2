#pragma once

#include "CostModel.h"
#include "Partition.h"
#include "PathOrder.h"

#include <span>
#include <vector>

namespace swarmtrain::scheduler {

// The cost of a partition kept up to date under small moves, for the local search: per-group
// terms and the matrix of w(G, H) are cached, so a move that touches two or three groups
// recomputes only their terms, their rows of w, and the stage order.
//
// With StageOrder::Optimal the order is Held-Karp exact up to kExactPathNodes groups; above, moves
// are priced along the current order and reoptimizeOrder() re-solves it from time to time. With
// StageOrder::Given group g is stage g (a running swarm: the stages keep their place).
class IncrementalCost {
public:
    IncrementalCost(const CostModel &model, StageOrder order);

    void reset(const Partition &partition);
    const Partition &partition() const { return m_partition; }
    double total() const { return m_total; }
    const std::vector<int> &order() const { return m_order; }

    // The total after a rotation of two or three `devices` (see Partition::rotate; two are a swap). The
    // state is left as it was.
    double evaluateRotation(std::span<const int> devices);
    // Whether that total is below `target`: cheaper than evaluateRotation, since bounds on the stage
    // order settle most moves without Held-Karp.
    bool improves(std::span<const int> devices, double target);
    // What the local search asks: whether the move lowers the total, or keeps it (within rounding)
    // and lowers the tie-break score. Bottleneck costs are flat over most moves (a boundary gets
    // faster only once every device of a group has a fast partner); the score counts how many
    // devices still lack one, weighted by the boundary's cost, plus the groups' mean all-reduce,
    // so the search can walk across such plateaus. Both decrease lexicographically: no cycles.
    bool improvesOrBreaksTie(std::span<const int> devices);
    void applyRotation(std::span<const int> devices);
    double tieBreakScore() const { return m_tieBreak; }

    // Re-solves the stage order (only changes anything above kExactPathNodes groups).
    void reoptimizeOrder();

    // Rescheduling: each device away from its bucket in `bucketOfDevice` (-1: a newcomer, free to
    // go anywhere) adds `secondsPerMove` to the total, so only moves that pay for themselves happen.
    void anchor(std::vector<int> bucketOfDevice, double secondsPerMove);
    int movedDevices() const { return m_moved; }

private:
    struct GroupTerms {
        double allReduce = 0.0;
        double compute = 0.0;
        int shortDevices = 0;
    };
    struct Patch;

    GroupTerms termsOf(int group) const;
    double weight(int a, int b) const { return m_weights[std::size_t(a) * std::size_t(m_stages) + std::size_t(b)]; }
    void setWeight(int a, int b, double w);
    // Rotates and recomputes the touched groups' terms, saving what undo() restores.
    void patchIn(std::span<const int> devices, Patch &patch);
    // Writes the touched groups' rows of w: exact, or lower bounds (cheaper, for pruning).
    void patchWeights(const Patch &patch, bool lowerBounds);
    void undo(std::span<const int> devices, const Patch &patch);
    double fixedTerms() const; // everything but the pipeline, move penalty included
    bool away(int device) const;
    double orderedPathCost() const;
    double spanningTreeCost() const;
    double exactPathCost();
    // The total after the patched move, or +infinity as soon as bounds put it above `limit`; a
    // value below `provenBelow` may be an upper bound (enough to know the move improves).
    double pricePatched(const Patch &patch, double provenBelow, double limit);
    double computeTieBreak();
    void recomputeAll();

    const CostModel &m_model;
    StageOrder m_orderMode;
    int m_stages = 0;
    Partition m_partition;
    std::vector<GroupTerms> m_terms;
    std::vector<double> m_weights; // w(G, H), symmetric, stages x stages
    std::vector<int> m_order;
    double m_pathCost = 0.0;
    double m_total = 0.0;
    double m_tieBreak = 0.0;
    PathOrderSolver m_pathSolver;
    std::vector<int> m_anchor;
    double m_movePenalty = 0.0;
    int m_moved = 0;
};

} // namespace swarmtrain::scheduler
