#include "CostModel.h"

#include <algorithm>
#include <limits>

namespace swarmtrain::scheduler {

CostModel::CostModel(const Problem &problem, int stages, int dataParallel)
    : m_problem(problem), m_devices(problem.deviceCount()), m_stages(stages), m_dataParallel(dataParallel)
{
    const ModelSpec &model = problem.model;
    m_layersPerStage = layersPerStage(model.layers, stages);
    m_dataParallelBytes = double(m_layersPerStage) * model.parameterBytesPerLayer;
    m_pipelineBytes = model.activationBytesPerMicrobatch;
    m_stageMemoryBytes = m_dataParallelBytes * model.memoryBytesPerParameterByte;
    m_stageFlops = double(m_layersPerStage) * model.flopsPerLayerPerMicrobatch;

    const std::size_t cells = std::size_t(m_devices) * std::size_t(m_devices);
    m_pipelineEdge.assign(cells, 0.0);
    m_dataParallelEdge.assign(cells, 0.0);
    const double share = m_dataParallelBytes / double(std::max(dataParallel, 1));
    for (int d = 0; d < m_devices; ++d) {
        for (int e = 0; e < m_devices; ++e) {
            if (d == e)
                continue;
            m_pipelineEdge[index(d, e)]
                = std::max(transferSeconds(d, e, m_pipelineBytes), transferSeconds(e, d, m_pipelineBytes));
            m_dataParallelEdge[index(d, e)]
                = problem.linked(d, e) ? 2.0 * transferSeconds(d, e, share) : kMissingLinkSeconds;
        }
    }
}

double CostModel::transferSeconds(int from, int to, double bytes) const
{
    if (!m_problem.linked(from, to))
        return kMissingLinkSeconds;
    return m_problem.delay(from, to) + bytes / m_problem.bandwidth(from, to);
}

double CostModel::allReduceSeconds(std::span<const int> group, int *slowestDevice) const
{
    double slowest = -1.0;
    for (const int d : group) {
        double sum = 0.0;
        for (const int e : group)
            sum += dataParallelEdge(d, e); // the diagonal is 0
        if (sum > slowest) {
            slowest = sum;
            if (slowestDevice)
                *slowestDevice = d;
        }
    }
    return std::max(slowest, 0.0);
}

int CostModel::fillBlock(std::span<const int> from, std::span<const int> to) const
{
    const int n = int(from.size());
    m_block.resize(std::size_t(n) * std::size_t(n));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j)
            m_block[std::size_t(i) * std::size_t(n) + std::size_t(j)]
                = pipelineEdge(from[std::size_t(i)], to[std::size_t(j)]);
    }
    return n;
}

double CostModel::linkSeconds(std::span<const int> from, std::span<const int> to) const
{
    const int n = fillBlock(from, to);
    return m_matcher.bottleneck(m_block, n);
}

int CostModel::linkSlack(std::span<const int> from, std::span<const int> to, double bottleneck) const
{
    const int n = fillBlock(from, to);
    return n - m_matcher.matchedBelow(m_block, n, bottleneck);
}

double CostModel::linkLowerBound(std::span<const int> from, std::span<const int> to) const
{
    double bound = 0.0;
    for (const int d : from) {
        double cheapest = kMissingLinkSeconds;
        for (const int e : to)
            cheapest = std::min(cheapest, pipelineEdge(d, e));
        bound = std::max(bound, cheapest);
    }
    for (const int e : to) {
        double cheapest = kMissingLinkSeconds;
        for (const int d : from)
            cheapest = std::min(cheapest, pipelineEdge(d, e));
        bound = std::max(bound, cheapest);
    }
    return bound;
}

StageLink CostModel::link(std::span<const int> from, std::span<const int> to) const
{
    linkSeconds(from, to); // fills m_block
    const BottleneckMatching matching = m_matcher.solve(m_block, int(from.size()));
    StageLink link;
    link.seconds = matching.bottleneck;
    for (std::size_t i = 0; i < from.size(); ++i)
        link.feeds.emplace_back(from[i], to[std::size_t(matching.columnOfRow[i])]);
    if (matching.bottleneckRow >= 0) {
        link.bottleneckFrom = link.feeds[std::size_t(matching.bottleneckRow)].first;
        link.bottleneckTo = link.feeds[std::size_t(matching.bottleneckRow)].second;
    }
    return link;
}

double CostModel::stageComputeSeconds(std::span<const int> group, int *slowestDevice) const
{
    if (!m_problem.terms.compute || group.empty())
        return 0.0;
    int slowest = group[0];
    for (const int d : group) {
        if (m_problem.devices[std::size_t(d)].flopsPerSecond < m_problem.devices[std::size_t(slowest)].flopsPerSecond)
            slowest = d;
    }
    if (slowestDevice)
        *slowestDevice = slowest;
    return m_stageFlops / m_problem.devices[std::size_t(slowest)].flopsPerSecond;
}

double CostModel::computeTerm(double slowestStageSeconds) const
{
    return double(m_problem.model.microbatches + m_stages - 1) * slowestStageSeconds;
}

bool CostModel::shortOfMemory(int device) const
{
    const double memory = m_problem.devices[std::size_t(device)].memoryBytes;
    return m_problem.terms.memory && memory > 0.0 && memory < m_stageMemoryBytes;
}

int CostModel::devicesShortOfMemory(std::span<const int> group) const
{
    int count = 0;
    for (const int d : group)
        count += shortOfMemory(d) ? 1 : 0;
    return count;
}

double CostModel::total(double allReduce, double pipelineOneWay, double slowestStageSeconds, int shortDevices) const
{
    return allReduce + 2.0 * pipelineOneWay + computeTerm(slowestStageSeconds) + kMemoryPenaltySeconds * shortDevices;
}

Evaluation CostModel::evaluate(const std::vector<std::vector<int>> &groups, StageOrder order) const
{
    Evaluation result;
    const int count = int(groups.size());
    double slowestStage = 0.0;
    for (int g = 0; g < count; ++g) {
        int device = -1;
        const double seconds = allReduceSeconds(groups[std::size_t(g)], &device);
        if (result.slowestAllReduceGroup < 0 || seconds > result.cost.dataParallel) {
            result.cost.dataParallel = seconds;
            result.slowestAllReduceGroup = g;
            result.slowestAllReduceDevice = device;
        }
        int slowDevice = -1;
        const double stage = stageComputeSeconds(groups[std::size_t(g)], &slowDevice);
        if (slowDevice >= 0 && (result.slowestComputeGroup < 0 || stage > slowestStage)) {
            slowestStage = stage;
            result.slowestComputeGroup = g;
            result.slowestComputeDevice = slowDevice;
        }
        for (const int d : groups[std::size_t(g)]) {
            if (shortOfMemory(d))
                result.devicesShortOfMemory.push_back(d);
        }
    }

    if (order == StageOrder::Optimal) {
        std::vector<double> weights(std::size_t(count) * std::size_t(count), 0.0);
        for (int a = 0; a < count; ++a) {
            for (int b = a + 1; b < count; ++b) {
                const double w = linkSeconds(groups[std::size_t(a)], groups[std::size_t(b)]);
                weights[std::size_t(a) * std::size_t(count) + std::size_t(b)] = w;
                weights[std::size_t(b) * std::size_t(count) + std::size_t(a)] = w;
            }
        }
        PathOrder path = m_pathSolver.solve(weights, count);
        result.order = std::move(path.order);
        result.orderExact = path.exact;
    } else {
        result.order.resize(std::size_t(count));
        for (int g = 0; g < count; ++g)
            result.order[std::size_t(g)] = g;
    }

    for (std::size_t s = 1; s < result.order.size(); ++s) {
        const std::vector<int> &from = groups[std::size_t(result.order[s - 1])];
        const std::vector<int> &to = groups[std::size_t(result.order[s])];
        StageLink stageLink;
        if (order == StageOrder::GivenPairing) {
            for (std::size_t k = 0; k < from.size() && k < to.size(); ++k) {
                const double seconds = pipelineEdge(from[k], to[k]);
                stageLink.feeds.emplace_back(from[k], to[k]);
                if (stageLink.bottleneckFrom < 0 || seconds > stageLink.seconds) {
                    stageLink.seconds = seconds;
                    stageLink.bottleneckFrom = from[k];
                    stageLink.bottleneckTo = to[k];
                }
            }
        } else {
            stageLink = link(from, to);
        }
        result.cost.pipeline += stageLink.seconds;
        result.links.push_back(std::move(stageLink));
    }
    result.cost.compute = computeTerm(slowestStage);
    result.cost.memoryPenalty = kMemoryPenaltySeconds * double(result.devicesShortOfMemory.size());
    result.cost.total
        = total(result.cost.dataParallel, result.cost.pipeline, slowestStage, int(result.devicesShortOfMemory.size()));
    return result;
}

} // namespace swarmtrain::scheduler
