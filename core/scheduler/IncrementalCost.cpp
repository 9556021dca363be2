#include "IncrementalCost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace swarmtrain::scheduler {

// What a move changed, to put back.
struct IncrementalCost::Patch {
    int groups[3] = {-1, -1, -1};
    int count = 0;
    GroupTerms oldTerms[3];
    std::vector<double> oldRows; // count x stages: the touched groups' rows of w before the move
    int oldMoved = 0;
};

IncrementalCost::IncrementalCost(const CostModel &model, StageOrder order)
    : m_model(model), m_orderMode(order == StageOrder::Optimal ? StageOrder::Optimal : StageOrder::Given),
      m_stages(model.stages())
{
}

void IncrementalCost::reset(const Partition &partition)
{
    m_partition = partition;
    recomputeAll();
}

void IncrementalCost::anchor(std::vector<int> bucketOfDevice, double secondsPerMove)
{
    m_anchor = std::move(bucketOfDevice);
    m_movePenalty = secondsPerMove;
    recomputeAll();
}

bool IncrementalCost::away(int device) const
{
    return !m_anchor.empty() && m_anchor[std::size_t(device)] >= 0
           && m_anchor[std::size_t(device)] != m_partition.bucketOf(device);
}

IncrementalCost::GroupTerms IncrementalCost::termsOf(int group) const
{
    const std::span<const int> members = m_partition.group(group);
    return {m_model.allReduceSeconds(members), m_model.stageComputeSeconds(members),
            m_model.devicesShortOfMemory(members)};
}

void IncrementalCost::setWeight(int a, int b, double w)
{
    m_weights[std::size_t(a) * std::size_t(m_stages) + std::size_t(b)] = w;
    m_weights[std::size_t(b) * std::size_t(m_stages) + std::size_t(a)] = w;
}

void IncrementalCost::recomputeAll()
{
    m_terms.resize(std::size_t(m_stages));
    for (int g = 0; g < m_stages; ++g)
        m_terms[std::size_t(g)] = termsOf(g);
    m_weights.assign(std::size_t(m_stages) * std::size_t(m_stages), 0.0);
    for (int a = 0; a < m_stages; ++a) {
        for (int b = a + 1; b < m_stages; ++b)
            setWeight(a, b, m_model.linkSeconds(m_partition.group(a), m_partition.group(b)));
    }
    m_moved = 0;
    for (int d = 0; d < m_partition.deviceCount() && !m_anchor.empty(); ++d)
        m_moved += away(d) ? 1 : 0;
    m_order.resize(std::size_t(m_stages));
    for (int g = 0; g < m_stages; ++g)
        m_order[std::size_t(g)] = g;
    if (m_orderMode == StageOrder::Optimal)
        reoptimizeOrder();
    m_pathCost = orderedPathCost();
    m_total = fixedTerms() + 2.0 * m_pathCost;
    m_tieBreak = computeTieBreak();
}

void IncrementalCost::reoptimizeOrder()
{
    if (m_orderMode != StageOrder::Optimal || m_stages <= 1)
        return;
    PathOrder path = m_pathSolver.solve(m_weights, m_stages);
    if (m_stages > kExactPathNodes && path.cost >= orderedPathCost())
        return; // the heuristic did not beat the order we have
    m_order = std::move(path.order);
    m_pathCost = orderedPathCost();
    m_total = fixedTerms() + 2.0 * m_pathCost;
    m_tieBreak = computeTieBreak();
}

double IncrementalCost::fixedTerms() const
{
    double allReduce = 0.0, compute = 0.0;
    int shortDevices = 0;
    for (const GroupTerms &terms : m_terms) {
        allReduce = std::max(allReduce, terms.allReduce);
        compute = std::max(compute, terms.compute);
        shortDevices += terms.shortDevices;
    }
    return m_model.total(allReduce, 0.0, compute, shortDevices) + m_movePenalty * m_moved;
}

double IncrementalCost::orderedPathCost() const
{
    double cost = 0.0;
    for (std::size_t s = 1; s < m_order.size(); ++s)
        cost += weight(m_order[s - 1], m_order[s]);
    return cost;
}

// Prim's minimum spanning tree: a lower bound on any open path through the groups.
double IncrementalCost::spanningTreeCost() const
{
    if (m_stages <= 1)
        return 0.0;
    std::vector<double> distance(std::size_t(m_stages), std::numeric_limits<double>::infinity());
    std::vector<char> inTree(std::size_t(m_stages), 0);
    distance[0] = 0.0;
    double cost = 0.0;
    for (int step = 0; step < m_stages; ++step) {
        int next = -1;
        for (int g = 0; g < m_stages; ++g) {
            if (!inTree[std::size_t(g)] && (next < 0 || distance[std::size_t(g)] < distance[std::size_t(next)]))
                next = g;
        }
        inTree[std::size_t(next)] = 1;
        cost += distance[std::size_t(next)];
        for (int g = 0; g < m_stages; ++g) {
            if (!inTree[std::size_t(g)])
                distance[std::size_t(g)] = std::min(distance[std::size_t(g)], weight(next, g));
        }
    }
    return cost;
}

double IncrementalCost::exactPathCost() { return m_pathSolver.cost(m_weights, m_stages); }

void IncrementalCost::patchIn(std::span<const int> devices, Patch &patch)
{
    patch.count = 0;
    for (const int d : devices) {
        const int g = m_partition.bucketOf(d);
        if (g >= m_stages || std::find(patch.groups, patch.groups + patch.count, g) != patch.groups + patch.count)
            continue;
        patch.groups[patch.count++] = g;
    }
    patch.oldMoved = m_moved;
    for (const int d : devices)
        m_moved -= away(d) ? 1 : 0;
    m_partition.rotate(devices);
    for (const int d : devices)
        m_moved += away(d) ? 1 : 0;
    patch.oldRows.resize(std::size_t(patch.count) * std::size_t(m_stages));
    for (int i = 0; i < patch.count; ++i) {
        const int g = patch.groups[i];
        std::copy_n(m_weights.begin() + std::ptrdiff_t(g) * m_stages, m_stages,
                    patch.oldRows.begin() + std::ptrdiff_t(i) * m_stages);
        patch.oldTerms[i] = m_terms[std::size_t(g)];
        m_terms[std::size_t(g)] = termsOf(g);
    }
}

void IncrementalCost::patchWeights(const Patch &patch, bool lowerBounds)
{
    for (int i = 0; i < patch.count; ++i) {
        const int g = patch.groups[i];
        for (int h = 0; h < m_stages; ++h) {
            // A pair of touched groups is computed once, by the first of them.
            const int *other = std::find(patch.groups, patch.groups + patch.count, h);
            if (h == g || (other != patch.groups + patch.count && other < patch.groups + i))
                continue;
            const std::span<const int> a = m_partition.group(g), b = m_partition.group(h);
            setWeight(g, h, lowerBounds ? m_model.linkLowerBound(a, b) : m_model.linkSeconds(a, b));
        }
    }
}

void IncrementalCost::undo(std::span<const int> devices, const Patch &patch)
{
    // Rows first, then columns from the same saved rows (w is symmetric).
    for (int i = 0; i < patch.count; ++i) {
        const int g = patch.groups[i];
        for (int h = 0; h < m_stages; ++h)
            setWeight(g, h, patch.oldRows[std::size_t(i) * std::size_t(m_stages) + std::size_t(h)]);
        m_terms[std::size_t(g)] = patch.oldTerms[i];
    }
    std::vector<int> reversed(devices.rbegin(), devices.rend());
    m_partition.rotate(reversed);
    m_moved = patch.oldMoved;
}

double IncrementalCost::evaluateRotation(std::span<const int> devices)
{
    Patch patch;
    patchIn(devices, patch);
    patchWeights(patch, false);
    const double path
        = m_orderMode == StageOrder::Optimal && m_stages <= kExactPathNodes ? exactPathCost() : orderedPathCost();
    const double result = fixedTerms() + 2.0 * path;
    undo(devices, patch);
    return result;
}

double IncrementalCost::pricePatched(const Patch &patch, double provenBelow, double limit)
{
    // Cheapest checks first: the groups' own terms, then a spanning tree over lower bounds of w,
    // then the current order's path (an upper bound), and Held-Karp only when those disagree.
    const double fixed = fixedTerms();
    if (fixed > limit)
        return std::numeric_limits<double>::infinity();
    patchWeights(patch, true);
    if (fixed + 2.0 * spanningTreeCost() > limit)
        return std::numeric_limits<double>::infinity();
    patchWeights(patch, false);
    const double upper = fixed + 2.0 * orderedPathCost();
    if (upper < provenBelow || m_orderMode != StageOrder::Optimal || m_stages > kExactPathNodes)
        return upper <= limit || upper < provenBelow ? upper : std::numeric_limits<double>::infinity();
    if (fixed + 2.0 * spanningTreeCost() > limit)
        return std::numeric_limits<double>::infinity();
    return fixed + 2.0 * exactPathCost();
}

bool IncrementalCost::improves(std::span<const int> devices, double target)
{
    Patch patch;
    patchIn(devices, patch);
    const bool better = pricePatched(patch, target, target) < target;
    undo(devices, patch);
    return better;
}

bool IncrementalCost::improvesOrBreaksTie(std::span<const int> devices)
{
    const double tolerance = 1e-9 * std::max(1.0, std::abs(m_total));
    Patch patch;
    patchIn(devices, patch);
    const double total = pricePatched(patch, m_total - tolerance, m_total + tolerance);
    bool better = total < m_total - tolerance;
    if (!better && total <= m_total + tolerance)
        better = computeTieBreak() < m_tieBreak - 1e-9 * std::max(1.0, std::abs(m_tieBreak));
    undo(devices, patch);
    return better;
}

double IncrementalCost::computeTieBreak()
{
    double allReduce = 0.0;
    for (const GroupTerms &terms : m_terms)
        allReduce += terms.allReduce;
    double slack = 0.0;
    const std::vector<int> order = m_orderMode == StageOrder::Optimal && m_stages <= kExactPathNodes
                                       ? m_pathSolver.solve(m_weights, m_stages).order
                                       : m_order;
    const int dataParallel = m_model.dataParallel();
    for (std::size_t s = 1; s < order.size(); ++s) {
        const int a = order[s - 1], b = order[s];
        const double w = weight(a, b);
        slack += w * m_model.linkSlack(m_partition.group(a), m_partition.group(b), w) / double(dataParallel);
    }
    return allReduce / double(std::max(m_stages, 1)) + 2.0 * slack;
}

void IncrementalCost::applyRotation(std::span<const int> devices)
{
    Patch patch;
    patchIn(devices, patch);
    patchWeights(patch, false);
    if (m_orderMode == StageOrder::Optimal && m_stages <= kExactPathNodes) {
        m_order = m_pathSolver.solve(m_weights, m_stages).order;
    }
    m_pathCost = orderedPathCost();
    m_total = fixedTerms() + 2.0 * m_pathCost;
    m_tieBreak = computeTieBreak();
}

} // namespace swarmtrain::scheduler
