#include "StagePartition.h"

#include <algorithm>
#include <limits>

namespace swarmtrain {

std::vector<double> engineStageFlops(const ModelConfig &config)
{
    const double C = config.nEmbd, T = config.blockSize, V = config.vocabSize;
    // A block's matmul weights (all but its norms and biases) take 2 FLOPs each forward;
    // attention 4 C T (scores and the weighted sum).
    const double blockMatmul = config.isLlama() ? double(config.blockParameterCount() - 2 * config.nEmbd) : 12.0 * C * C;
    std::vector<double> flops;
    flops.reserve(std::size_t(config.nLayer) + 2);
    flops.push_back(3.0 * C);
    for (int i = 0; i < config.nLayer; ++i)
        flops.push_back(3.0 * (2.0 * blockMatmul + 4.0 * C * T));
    flops.push_back(3.0 * 2.0 * C * V);
    return flops;
}

std::int64_t spanParameterCount(const ModelConfig &config, const StageSpan &span)
{
    const std::int64_t c = config.nEmbd, tokenEmbedding = std::int64_t(config.vocabSize) * c;
    const std::int64_t positions = config.isLlama() ? 0 : std::int64_t(config.blockSize) * c;
    const std::int64_t finalNorm = config.bias ? 2 * c : c;
    // The head's weight: its own when untied, a copy of the embedding when tied and apart from it.
    const bool headCopy = config.untiedHead() || span.first > 0;
    std::int64_t count = 0;
    for (int stage = span.first; stage <= span.last; ++stage) {
        if (stage == 0)
            count += tokenEmbedding + positions;
        else if (stage <= config.nLayer)
            count += config.blockParameterCount();
        else
            count += finalNorm + (headCopy ? tokenEmbedding : 0);
    }
    return count;
}

Result<SwarmModePlan> chooseSwarmMode(const ModelConfig &config, std::vector<std::int64_t> peerMemoryBytes)
{
    if (const std::string invalid = config.validate(); !invalid.empty())
        return makeError(invalid);
    std::erase_if(peerMemoryBytes, [](std::int64_t bytes) { return bytes <= 0; });
    if (peerMemoryBytes.empty())
        return makeError("no peer has reported the memory it may train in");
    const auto middle = peerMemoryBytes.begin() + std::ptrdiff_t(peerMemoryBytes.size() / 2);
    std::nth_element(peerMemoryBytes.begin(), middle, peerMemoryBytes.end());
    SwarmModePlan plan;
    plan.typicalMemoryBytes = *middle;
    plan.largestStateBytes = kTrainingBytesPerParameter * config.parameterCount();
    if (plan.largestStateBytes <= plan.typicalMemoryBytes)
        return plan;
    const int engineStages = config.nLayer + 2;
    for (int stages = 2; stages <= engineStages; ++stages) {
        Result<std::vector<StageSpan>> spans = partitionStages(config, stages);
        if (!spans)
            return spans.error();
        std::int64_t largest = 0;
        for (const StageSpan &span : *spans)
            largest = std::max(largest, kTrainingBytesPerParameter * spanParameterCount(config, span));
        if (largest <= plan.typicalMemoryBytes)
            return SwarmModePlan{SwarmMode::Pipeline, stages, plan.typicalMemoryBytes, largest};
    }
    return makeError("even one engine stage a peer needs more than the typical peer's " + std::to_string(plan.typicalMemoryBytes)
                     + " bytes of training memory");
}

Result<std::vector<StageSpan>> partitionStages(const ModelConfig &config, int count)
{
    if (const std::string invalid = config.validate(); !invalid.empty())
        return makeError(invalid);
    const std::vector<double> flops = engineStageFlops(config);
    const int n = int(flops.size());
    if (count < 1 || count > n)
        return makeError("a model of " + std::to_string(n) + " engine stages splits into 1 to " + std::to_string(n)
                         + " pipeline stages, not " + std::to_string(count));
    std::vector<double> prefix(std::size_t(n) + 1, 0.0);
    for (int i = 0; i < n; ++i)
        prefix[std::size_t(i) + 1] = prefix[std::size_t(i)] + flops[std::size_t(i)];
    const auto sum = [&](int begin, int end) { return prefix[std::size_t(end)] - prefix[std::size_t(begin)]; };

    // cost[k][i]: the smallest largest span of the first i engine stages in k spans;
    // cut[k][i]: where its last span begins.
    constexpr double kNone = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> cost(std::size_t(count) + 1, std::vector<double>(std::size_t(n) + 1, kNone));
    std::vector<std::vector<int>> cut(std::size_t(count) + 1, std::vector<int>(std::size_t(n) + 1, 0));
    cost[0][0] = 0.0;
    for (int k = 1; k <= count; ++k) {
        for (int i = k; i <= n - (count - k); ++i) {
            for (int j = k - 1; j < i; ++j) {
                const double largest = std::max(cost[std::size_t(k) - 1][std::size_t(j)], sum(j, i));
                if (largest < cost[std::size_t(k)][std::size_t(i)]) {
                    cost[std::size_t(k)][std::size_t(i)] = largest;
                    cut[std::size_t(k)][std::size_t(i)] = j;
                }
            }
        }
    }
    std::vector<StageSpan> spans(static_cast<std::size_t>(count));
    for (int k = count, end = n; k >= 1; --k) {
        const int begin = cut[std::size_t(k)][std::size_t(end)];
        spans[std::size_t(k) - 1] = {begin, end - 1, sum(begin, end)};
        end = begin;
    }
    return spans;
}

} // namespace swarmtrain
