// StagePartition: pipeline stages as contiguous spans of the engine's stages, balanced by FLOPs.
#include "StagePartition.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

using namespace swarmtrain;

namespace {

ModelConfig config(int nLayer, int nEmbd, int vocab, int block = 64)
{
    ModelConfig c;
    c.vocabSize = vocab;
    c.nLayer = nLayer;
    c.nHead = 4;
    c.nEmbd = nEmbd;
    c.blockSize = block;
    return c;
}

// Every split of n stages into k contiguous non-empty spans, by brute force: the best largest span.
double bestLargest(const std::vector<double> &flops, int k, std::size_t from = 0)
{
    if (k == 1)
        return std::accumulate(flops.begin() + long(from), flops.end(), 0.0);
    double best = std::numeric_limits<double>::infinity();
    double first = 0.0;
    for (std::size_t end = from + 1; end + std::size_t(k - 1) <= flops.size(); ++end) {
        first += flops[end - 1];
        best = std::min(best, std::max(first, bestLargest(flops, k - 1, end)));
    }
    return best;
}

} // namespace

TEST(StagePartitionTest, StageFlopsAddUpToTheModelsTrainingFlops)
{
    for (const ModelConfig &c : {config(4, 128, 65), config(12, 768, 50304, 1024), config(1, 32, 3, 8)}) {
        const std::vector<double> flops = engineStageFlops(c);
        ASSERT_EQ(flops.size(), std::size_t(c.nLayer) + 2);
        const double total = std::accumulate(flops.begin(), flops.end(), 0.0);
        // flopsPerToken also counts 6 FLOPs for each LayerNorm weight, and nothing for the
        // embedding's add: a few in a thousand for the smallest models.
        EXPECT_NEAR(total / c.flopsPerToken(), 1.0, 1e-2) << c.toJson();
    }
}

TEST(StagePartitionTest, SpansCoverEveryStageInOrderAndTheLargestIsAsSmallAsCanBe)
{
    for (const ModelConfig &c : {config(4, 128, 65), config(12, 768, 50304, 1024), config(6, 64, 20000)}) {
        const std::vector<double> flops = engineStageFlops(c);
        for (int k = 1; k <= int(flops.size()); ++k) {
            const Result<std::vector<StageSpan>> spans = partitionStages(c, k);
            ASSERT_TRUE(spans.ok()) << spans.error().message;
            ASSERT_EQ(spans->size(), std::size_t(k));
            int next = 0;
            double largest = 0.0;
            for (const StageSpan &span : *spans) {
                EXPECT_EQ(span.first, next);
                EXPECT_GE(span.last, span.first);
                EXPECT_DOUBLE_EQ(span.flopsPerToken,
                                 std::accumulate(flops.begin() + span.first, flops.begin() + span.last + 1, 0.0));
                largest = std::max(largest, span.flopsPerToken);
                next = span.last + 1;
            }
            EXPECT_EQ(next, int(flops.size()));
            EXPECT_DOUBLE_EQ(largest, bestLargest(flops, k)) << c.toJson() << " in " << k;
        }
    }
}

TEST(StagePartitionTest, AWideHeadGetsAStageOfItsOwnAndEqualBlocksSplitEvenly)
{
    // GPT-2 small: the head (2 C V = 77 MFLOPs forward) outweighs four blocks (17 MFLOPs each
    // with T = 1024): in four stages it is one on its own, the twelve blocks four to a stage.
    const std::vector<StageSpan> gpt2 = partitionStages(config(12, 768, 50304, 1024), 4).value();
    EXPECT_EQ(gpt2.back().first, gpt2.back().last) << "the head alone";
    EXPECT_EQ(gpt2[1].stageCount(), 4);
    // A character model's head is small: 1 + 6 blocks + head in three spans of two blocks each.
    const std::vector<StageSpan> chars = partitionStages(config(6, 128, 65), 3).value();
    for (const StageSpan &span : chars) {
        const int blocks = std::min(span.last, 6) - std::max(span.first, 1) + 1;
        EXPECT_EQ(blocks, 2) << span.first << ".." << span.last;
    }
}

TEST(StagePartitionTest, ImpossibleCountsAndConfigsAreRefused)
{
    EXPECT_FALSE(partitionStages(config(4, 128, 65), 0).ok());
    EXPECT_FALSE(partitionStages(config(4, 128, 65), 7).ok()) << "six engine stages";
    EXPECT_TRUE(partitionStages(config(4, 128, 65), 6).ok());
    ModelConfig bad = config(4, 130, 65); // 130 is not a multiple of 4 heads
    EXPECT_FALSE(partitionStages(bad, 2).ok());
}

// The mode follows the typical peer's memory: a whole copy while its training state fits, else
// the fewest stages whose largest state fits; the median peer decides, not the biggest.
TEST(StagePartitionTest, ChoosesFullModelWhileItFitsThenTheFewestStages)
{
    const ModelConfig gpt2 = test::tinyGptConfig(50304, 12, 12, 768, 1024);
    const std::int64_t whole = kTrainingBytesPerParameter * gpt2.parameterCount();
    Result<SwarmModePlan> roomy = chooseSwarmMode(gpt2, {whole, whole * 2, whole / 4});
    ASSERT_TRUE(roomy.ok());
    EXPECT_EQ(roomy->mode, SwarmMode::Full);
    EXPECT_EQ(roomy->stages, 1);
    EXPECT_EQ(roomy->typicalMemoryBytes, whole);

    Result<SwarmModePlan> tight = chooseSwarmMode(gpt2, {whole / 3, whole / 3, whole * 10});
    ASSERT_TRUE(tight.ok());
    EXPECT_EQ(tight->mode, SwarmMode::Pipeline);
    EXPECT_GE(tight->stages, 3);
    EXPECT_LE(tight->largestStateBytes, whole / 3);
    // One stage fewer would not have fitted.
    const std::vector<StageSpan> fewer = partitionStages(gpt2, tight->stages - 1).value();
    std::int64_t largest = 0;
    for (const StageSpan &span : fewer)
        largest = std::max(largest, kTrainingBytesPerParameter * spanParameterCount(gpt2, span));
    EXPECT_GT(largest, whole / 3);

    EXPECT_FALSE(chooseSwarmMode(gpt2, {}).ok()) << "no memory reported";
    EXPECT_FALSE(chooseSwarmMode(gpt2, {0, -5}).ok());
    EXPECT_FALSE(chooseSwarmMode(gpt2, {1 << 20}).ok()) << "not even the head fits in 1 MiB";
}
