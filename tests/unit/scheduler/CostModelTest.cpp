#include "CostModel.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

using namespace swarmtrain::scheduler;

namespace {

// Two sites of two devices: inside 1 ms and 1 GB/s, between them 50 ms and 100 MB/s. Eight layers
// in two stages: c_dp = 4 x 1e8 bytes, c_pp = 1e8 bytes.
Problem twoSites() { return test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8); }

} // namespace

TEST(CostModelTest, EdgeCostsByHand)
{
    const Problem problem = twoSites();
    const CostModel model(problem, 2, 2);
    EXPECT_DOUBLE_EQ(model.dataParallelBytes(), 4e8);
    EXPECT_DOUBLE_EQ(model.pipelineBytes(), 1e8);
    // t = delay + c_pp / bandwidth
    EXPECT_DOUBLE_EQ(model.pipelineEdge(0, 1), 0.001 + 0.1);
    EXPECT_DOUBLE_EQ(model.pipelineEdge(0, 2), 0.05 + 1.0);
    EXPECT_DOUBLE_EQ(model.transferSeconds(2, 3, 5e8), 0.001 + 0.5);
    // 2 (delay + c_dp / (D_dp bandwidth))
    EXPECT_DOUBLE_EQ(model.dataParallelEdge(0, 1), 2 * (0.001 + 4e8 / (2 * 1e9)));
    EXPECT_DOUBLE_EQ(model.dataParallelEdge(1, 3), 2 * (0.05 + 4e8 / (2 * 1e8)));
    EXPECT_EQ(model.dataParallelEdge(2, 2), 0.0);
}

TEST(CostModelTest, DataParallelCostIsTheSlowestDevicesSum)
{
    const Problem problem = test::siteProblem({0, 0, 1, 1, 2, 2}, 0.001, 1e9, 0.05, 1e8);
    const CostModel model(problem, 2, 3);
    // Group {0, 1, 2}: devices 0 and 1 each have one fast and one slow partner, device 2 two slow.
    // A group of two from one site (the model's D_dp stays 3) exchanges only fast.
    const double fast = 2 * (0.001 + 4e8 / (3 * 1e9)), slow = 2 * (0.05 + 4e8 / (3 * 1e8));
    int slowest = -1;
    EXPECT_DOUBLE_EQ(model.allReduceSeconds(std::vector<int>{0, 1, 2}, &slowest), 2 * slow);
    EXPECT_EQ(slowest, 2);
    EXPECT_DOUBLE_EQ(model.allReduceSeconds(std::vector<int>{0, 1}), fast);
    EXPECT_DOUBLE_EQ(model.allReduceSeconds(std::vector<int>{4, 0, 5}, &slowest), 2 * slow);
    EXPECT_EQ(slowest, 0);
}

TEST(CostModelTest, PackedAndStripedAssignmentsByHand)
{
    const Problem problem = twoSites();
    const CostModel model(problem, 2, 2);
    // Packed: the all-reduce stays inside sites, the pipeline crosses.
    const Evaluation packed = model.evaluate({{0, 1}, {2, 3}}, StageOrder::Optimal);
    EXPECT_DOUBLE_EQ(packed.cost.dataParallel, 0.402);
    EXPECT_DOUBLE_EQ(packed.cost.pipeline, 1.05);
    EXPECT_DOUBLE_EQ(packed.cost.total, 0.402 + 2 * 1.05);
    // Striped: the matching pairs 0 -> 1 and 2 -> 3 inside the sites.
    const Evaluation striped = model.evaluate({{0, 2}, {1, 3}}, StageOrder::Optimal);
    EXPECT_DOUBLE_EQ(striped.cost.dataParallel, 4.1);
    EXPECT_DOUBLE_EQ(striped.cost.pipeline, 0.101);
    EXPECT_DOUBLE_EQ(striped.cost.total, 4.1 + 2 * 0.101);
    ASSERT_EQ(striped.links.size(), 1u);
    for (const auto &[from, to] : striped.links[0].feeds)
        EXPECT_EQ(problem.devices[std::size_t(from)].site, problem.devices[std::size_t(to)].site);
}

TEST(CostModelTest, GivenPairingFeedsSlotToSlot)
{
    const Problem problem = twoSites();
    const CostModel model(problem, 2, 2);
    // Slot k feeds slot k: 0 -> 3 and 2 -> 1 both cross sites, where a matching would not.
    const Evaluation fixed = model.evaluate({{0, 2}, {3, 1}}, StageOrder::GivenPairing);
    EXPECT_DOUBLE_EQ(fixed.cost.pipeline, 1.05);
    EXPECT_EQ(fixed.links[0].feeds, (std::vector<std::pair<int, int>>{{0, 3}, {2, 1}}));
    const Evaluation matched = model.evaluate({{0, 2}, {3, 1}}, StageOrder::Given);
    EXPECT_DOUBLE_EQ(matched.cost.pipeline, 0.101);
}

TEST(CostModelTest, OptimalOrderIsTheShortestOpenPath)
{
    // Three sites in a line: A - B close, B - C close, A - C far. The order must put B in the middle.
    Problem problem = test::siteProblem({0, 1, 2}, 0.0, 1e9, 0.0, 1e9);
    const auto set = [&](int a, int b, double bandwidth) {
        problem.bandwidthBytesPerSecond[std::size_t(a * 3 + b)]
            = problem.bandwidthBytesPerSecond[std::size_t(b * 3 + a)] = bandwidth;
    };
    set(0, 1, 1e9);
    set(1, 2, 1e9);
    set(0, 2, 1e7);
    const CostModel model(problem, 3, 1);
    const Evaluation given = model.evaluate({{0}, {2}, {1}}, StageOrder::Given);
    const Evaluation best = model.evaluate({{0}, {2}, {1}}, StageOrder::Optimal);
    EXPECT_DOUBLE_EQ(given.cost.pipeline, 10.0 + 0.1);
    EXPECT_DOUBLE_EQ(best.cost.pipeline, 0.2);
    EXPECT_EQ(best.order[1], 2) << "group {1} (index 2) belongs in the middle";
    EXPECT_EQ(best.cost.dataParallel, 0.0) << "one device per group exchanges nothing";
}

TEST(CostModelTest, MissingAndAsymmetricLinks)
{
    Problem problem = twoSites();
    problem.bandwidthBytesPerSecond[0 * 4 + 1] = 0.0; // 0 -> 1 missing
    problem.bandwidthBytesPerSecond[0 * 4 + 2] = 1e9; // 0 -> 2 fast one way only
    const CostModel model(problem, 2, 2);
    EXPECT_EQ(model.pipelineEdge(0, 1), kMissingLinkSeconds);
    EXPECT_EQ(model.pipelineEdge(1, 0), kMissingLinkSeconds);
    EXPECT_EQ(model.dataParallelEdge(0, 1), kMissingLinkSeconds);
    // Activations go one way, gradients back: the slower direction counts.
    EXPECT_DOUBLE_EQ(model.pipelineEdge(0, 2), 1.05);
    EXPECT_DOUBLE_EQ(model.pipelineEdge(2, 0), 1.05);
}

TEST(CostModelTest, ComputeTermFollowsTheSlowestDeviceOfTheSlowestStage)
{
    Problem problem = twoSites();
    problem.terms.compute = true;
    problem.model.flopsPerLayerPerMicrobatch = 1e12;
    problem.model.microbatches = 4;
    problem.devices[3].flopsPerSecond = 5e11;
    const CostModel model(problem, 2, 2);
    int slowest = -1;
    EXPECT_DOUBLE_EQ(model.stageComputeSeconds(std::vector<int>{1, 3}, &slowest), 4e12 / 5e11);
    EXPECT_EQ(slowest, 3);
    const Evaluation evaluation = model.evaluate({{0, 1}, {2, 3}}, StageOrder::Optimal);
    EXPECT_DOUBLE_EQ(evaluation.cost.compute, (4 + 2 - 1) * 8.0);
    EXPECT_DOUBLE_EQ(evaluation.cost.total, 0.402 + 2 * 1.05 + 40.0);
    EXPECT_EQ(evaluation.slowestComputeDevice, 3);
    problem.terms.compute = false;
    EXPECT_EQ(CostModel(problem, 2, 2).evaluate({{0, 1}, {2, 3}}, StageOrder::Optimal).cost.compute, 0.0);
}

TEST(CostModelTest, MemoryTermPenalisesDevicesThatCannotHoldTheirStage)
{
    Problem problem = twoSites();
    problem.terms.memory = true;
    problem.model.memoryBytesPerParameterByte = 4.0; // a stage needs 4 x 4e8 bytes
    problem.devices[1].memoryBytes = 1.6e9;
    problem.devices[2].memoryBytes = 1.0e9;
    const CostModel model(problem, 2, 2);
    EXPECT_DOUBLE_EQ(model.stageMemoryBytes(), 1.6e9);
    EXPECT_FALSE(model.shortOfMemory(0)) << "unknown memory is not checked";
    EXPECT_FALSE(model.shortOfMemory(1));
    EXPECT_TRUE(model.shortOfMemory(2));
    const Evaluation evaluation = model.evaluate({{0, 1}, {2, 3}}, StageOrder::Optimal);
    EXPECT_EQ(evaluation.devicesShortOfMemory, std::vector<int>{2});
    EXPECT_DOUBLE_EQ(evaluation.cost.memoryPenalty, kMemoryPenaltySeconds);
    EXPECT_DOUBLE_EQ(evaluation.cost.total, 0.402 + 2 * 1.05 + kMemoryPenaltySeconds);
}
