#pragma once

#include <vector>

namespace swarmtrain::scheduler {

// An order of n nodes (an open path, any start and end) and the sum of its edges' weights.
struct PathOrder {
    std::vector<int> order;
    double cost = 0.0;
    bool exact = false; // Held-Karp proved it minimal
};

// Up to this many nodes the order is exact (Held-Karp, 2^n x n^2 steps); above, a heuristic.
inline constexpr int kExactPathNodes = 12;

// Shortest open path through all n nodes of a symmetric weight matrix (row-major n x n): the
// paper's PipelinePCost picks the order of the stage groups this way. Above kExactPathNodes:
// nearest neighbour from several starts, then 2-opt and or-opt moves until none helps.
class PathOrderSolver {
public:
    PathOrder solve(const std::vector<double> &weights, int n);
    // The cost only (exact sizes skip rebuilding the order).
    double cost(const std::vector<double> &weights, int n);

private:
    PathOrder heldKarp(const std::vector<double> &weights, int n, bool wantOrder);
    PathOrder heuristic(const std::vector<double> &weights, int n);

    std::vector<double> m_best; // Held-Karp table, reused across calls
};

// The sum of weights along `order`.
double pathCost(const std::vector<double> &weights, int n, const std::vector<int> &order);

} // namespace swarmtrain::scheduler
