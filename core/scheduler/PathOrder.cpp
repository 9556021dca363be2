#include "PathOrder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace swarmtrain::scheduler {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double weight(const std::vector<double> &weights, int n, int from, int to)
{
    return weights[std::size_t(from) * std::size_t(n) + std::size_t(to)];
}

// Or-opt: moves a segment of 1 to 3 nodes elsewhere, reversed or not, when that shortens the path.
// Each candidate is priced in O(1) from the three edges it removes and the three it adds.
bool orOptPass(const std::vector<double> &weights, int n, std::vector<int> &order, double &cost)
{
    const auto w = [&](int from, int to) { return from < 0 || to < 0 ? 0.0 : weight(weights, n, from, to); };
    bool improvedAny = false;
    for (int length = 1; length <= 3 && length < n; ++length) {
        for (int i = 0; i + length <= n; ++i) {
            bool moved = false;
            const int j = i + length - 1;
            const int previous = i > 0 ? order[std::size_t(i - 1)] : -1;
            const int next = j < n - 1 ? order[std::size_t(j + 1)] : -1;
            const int first = order[std::size_t(i)], last = order[std::size_t(j)];
            const double removed = w(previous, first) + w(last, next) - w(previous, next);
            // The path without the segment, read in place: rest[k] skips order[i..j].
            const auto rest = [&](int k) { return k < i ? order[std::size_t(k)] : order[std::size_t(k + length)]; };
            const int restSize = n - length;
            for (int k = 0; k <= restSize; ++k) {
                if (k == i)
                    continue;
                const int u = k > 0 ? rest(k - 1) : -1, v = k < restSize ? rest(k) : -1;
                for (const bool reversed : {false, true}) {
                    const int head = reversed ? last : first, tail = reversed ? first : last;
                    const double added = w(u, head) + w(tail, v) - w(u, v);
                    if (added >= removed - 1e-12 * std::max(1.0, cost))
                        continue;
                    std::vector<int> segment(order.begin() + i, order.begin() + j + 1);
                    if (reversed)
                        std::reverse(segment.begin(), segment.end());
                    std::vector<int> candidate;
                    candidate.reserve(std::size_t(n));
                    for (int r = 0; r < k; ++r)
                        candidate.push_back(rest(r));
                    candidate.insert(candidate.end(), segment.begin(), segment.end());
                    for (int r = k; r < restSize; ++r)
                        candidate.push_back(rest(r));
                    order = std::move(candidate);
                    cost += added - removed;
                    moved = improvedAny = true;
                    break;
                }
                if (moved)
                    break;
            }
        }
    }
    return improvedAny;
}

// 2-opt on an open path: reversing order[i..j] replaces the edges into i and out of j.
bool twoOptPass(const std::vector<double> &weights, int n, std::vector<int> &order, double &cost)
{
    bool improved = false;
    for (int i = 0; i < n - 1; ++i) {
        for (int j = i + 1; j < n; ++j) {
            double before = 0.0, after = 0.0;
            if (i > 0) {
                before += weight(weights, n, order[std::size_t(i - 1)], order[std::size_t(i)]);
                after += weight(weights, n, order[std::size_t(i - 1)], order[std::size_t(j)]);
            }
            if (j < n - 1) {
                before += weight(weights, n, order[std::size_t(j)], order[std::size_t(j + 1)]);
                after += weight(weights, n, order[std::size_t(i)], order[std::size_t(j + 1)]);
            }
            if (after < before - 1e-12 * std::max(1.0, cost)) {
                std::reverse(order.begin() + i, order.begin() + j + 1);
                cost += after - before;
                improved = true;
            }
        }
    }
    return improved;
}

} // namespace

double pathCost(const std::vector<double> &weights, int n, const std::vector<int> &order)
{
    double cost = 0.0;
    for (std::size_t i = 1; i < order.size(); ++i)
        cost += weight(weights, n, order[i - 1], order[i]);
    return cost;
}

PathOrder PathOrderSolver::heldKarp(const std::vector<double> &weights, int n, bool wantOrder)
{
    // m_best[mask * n + last]: the cheapest path through `mask` ending at `last`, starting anywhere.
    const std::size_t masks = std::size_t(1) << n;
    m_best.assign(masks * std::size_t(n), kInfinity);
    for (int node = 0; node < n; ++node)
        m_best[(std::size_t(1) << node) * std::size_t(n) + std::size_t(node)] = 0.0;
    for (std::size_t mask = 1; mask < masks; ++mask) {
        for (int last = 0; last < n; ++last) {
            const double here = m_best[mask * std::size_t(n) + std::size_t(last)];
            if (here == kInfinity)
                continue;
            for (int next = 0; next < n; ++next) {
                if (mask & (std::size_t(1) << next))
                    continue;
                double &there = m_best[(mask | (std::size_t(1) << next)) * std::size_t(n) + std::size_t(next)];
                there = std::min(there, here + weight(weights, n, last, next));
            }
        }
    }
    PathOrder path;
    path.exact = true;
    const std::size_t full = masks - 1;
    int last = 0;
    path.cost = kInfinity;
    for (int node = 0; node < n; ++node) {
        if (m_best[full * std::size_t(n) + std::size_t(node)] < path.cost) {
            path.cost = m_best[full * std::size_t(n) + std::size_t(node)];
            last = node;
        }
    }
    if (!wantOrder)
        return path;
    // Walk back: the predecessor is any node whose table entry plus the edge gives this entry.
    std::size_t mask = full;
    path.order.assign(std::size_t(n), 0);
    for (int position = n - 1; position >= 0; --position) {
        path.order[std::size_t(position)] = last;
        const std::size_t previousMask = mask & ~(std::size_t(1) << last);
        if (previousMask == 0)
            break;
        const double here = m_best[mask * std::size_t(n) + std::size_t(last)];
        int previous = -1;
        double closest = kInfinity;
        for (int node = 0; node < n; ++node) {
            if (!(previousMask & (std::size_t(1) << node)))
                continue;
            const double gap = std::abs(m_best[previousMask * std::size_t(n) + std::size_t(node)]
                                        + weight(weights, n, node, last) - here);
            if (gap < closest) {
                closest = gap;
                previous = node;
            }
        }
        mask = previousMask;
        last = previous;
    }
    return path;
}

PathOrder PathOrderSolver::heuristic(const std::vector<double> &weights, int n)
{
    PathOrder best;
    best.cost = kInfinity;
    // Nearest neighbour from up to 16 evenly spread starts: each is O(n^2).
    const int starts = std::min(n, 16);
    for (int s = 0; s < starts; ++s) {
        const int start = int(std::int64_t(s) * n / starts);
        std::vector<char> used(std::size_t(n), 0);
        std::vector<int> order{start};
        used[std::size_t(start)] = 1;
        for (int step = 1; step < n; ++step) {
            const int last = order.back();
            int next = -1;
            for (int node = 0; node < n; ++node) {
                if (!used[std::size_t(node)]
                    && (next < 0 || weight(weights, n, last, node) < weight(weights, n, last, next)))
                    next = node;
            }
            order.push_back(next);
            used[std::size_t(next)] = 1;
        }
        const double cost = pathCost(weights, n, order);
        if (cost < best.cost) {
            best.order = std::move(order);
            best.cost = cost;
        }
    }
    // Bounded by a pass count: each pass is O(n^2).
    for (int pass = 0; pass < 64; ++pass) {
        bool improved = twoOptPass(weights, n, best.order, best.cost);
        if (n <= 1024)
            improved = orOptPass(weights, n, best.order, best.cost) || improved;
        if (!improved)
            break;
    }
    best.cost = pathCost(weights, n, best.order); // drop the rounding of incremental updates
    return best;
}

PathOrder PathOrderSolver::solve(const std::vector<double> &weights, int n)
{
    if (n <= 0)
        return {{}, 0.0, true};
    if (n == 1)
        return {{0}, 0.0, true};
    return n <= kExactPathNodes ? heldKarp(weights, n, true) : heuristic(weights, n);
}

double PathOrderSolver::cost(const std::vector<double> &weights, int n)
{
    if (n <= 1)
        return 0.0;
    return n <= kExactPathNodes ? heldKarp(weights, n, false).cost : heuristic(weights, n).cost;
}

} // namespace swarmtrain::scheduler
