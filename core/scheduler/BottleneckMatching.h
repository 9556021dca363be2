#pragma once

#include <vector>

namespace swarmtrain::scheduler {

// A perfect matching of n rows to n columns whose largest cost is as small as possible.
struct BottleneckMatching {
    double bottleneck = 0.0;
    std::vector<int> columnOfRow; // the matching, built only from edges costing at most `bottleneck`
    int bottleneckRow = -1;       // a row whose matched edge costs exactly `bottleneck`
};

// Bottleneck perfect matching on a dense n x n cost matrix (row-major). The threshold starts at a
// lower bound (every row and column needs its cheapest edge) with a greedy matching under it; each
// row left free is then matched along the augmenting path whose largest edge is smallest (a
// Dijkstra over columns, O(n^2)), and the threshold rises to that edge when it must. Augmenting
// along such paths never overshoots the optimum: an optimal matching always leaves an augmenting
// path no worse than it. O(n^3) at worst, with no sorting; small matrices cost a few hundred steps.
class BottleneckMatcher {
public:
    BottleneckMatching solve(const std::vector<double> &cost, int n);
    // The bottleneck only, without copying the matching out.
    double bottleneck(const std::vector<double> &cost, int n);
    // The size of a maximum matching on the edges cheaper than `threshold` (Kuhn's augmenting paths).
    int matchedBelow(const std::vector<double> &cost, int n, double threshold);

private:
    bool augmentBelow(const std::vector<double> &cost, int n, double threshold, int row);

    // Scratch space reused across calls: the search runs many small matchings.
    std::vector<int> m_rowOfColumn, m_columnOfRow, m_previousRow;
    std::vector<double> m_reach;
    std::vector<char> m_done;
    std::vector<int> m_visited;
    int m_stamp = 0;
};

} // namespace swarmtrain::scheduler
