#include "SwapPlanner.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

std::vector<StageCost> uniformStages(int count, std::int64_t bytes, double computeMs, double copyMs)
{
    return std::vector<StageCost>(std::size_t(count), StageCost{bytes, computeMs / 3, computeMs * 2 / 3, copyMs, copyMs});
}

void expectCovers(const SwapPlan &plan, int stages, std::int64_t capacity)
{
    ASSERT_FALSE(plan.groups.empty());
    EXPECT_EQ(plan.groups.front().firstStage, 0);
    EXPECT_EQ(plan.groups.back().lastStage, stages - 1);
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        EXPECT_LE(plan.groups[g].bytes, capacity) << "group " << g;
        if (g > 0)
            EXPECT_EQ(plan.groups[g].firstStage, plan.groups[g - 1].lastStage + 1);
    }
}

} // namespace

TEST(SwapPlannerTest, BudgetBelowTheLargestStageIsAnError)
{
    std::vector<StageCost> stages = uniformStages(4, 100, 1.0, 1.0);
    stages[2].bytes = 300;
    const Result<SwapPlan> plan = planSwapping(stages, 299);
    ASSERT_FALSE(plan);
    EXPECT_NE(plan.error().message.find("smaller than the largest stage"), std::string::npos) << plan.error().message;
    EXPECT_NE(plan.error().message.find("stage 2"), std::string::npos) << plan.error().message;
    EXPECT_TRUE(planSwapping(stages, 300));
}

TEST(SwapPlannerTest, PrefetchesWhenTwoGroupsFitAndStaysInTheBudget)
{
    const auto stages = uniformStages(8, 100, 4.0, 1.0);
    const Result<SwapPlan> plan = planSwapping(stages, 400);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_TRUE(plan->prefetch);
    expectCovers(*plan, 8, 200);
    EXPECT_NE(plan->why.find("copied while one computes"), std::string::npos) << plan->why;
    // Copies hide behind compute: only the first group's copy in and the last's copy out show.
    EXPECT_LT(plan->estimatedMs, plan->computeOnlyMs * 1.2);
}

TEST(SwapPlannerTest, WithoutRoomForTwoStagesCopiesWaitForCompute)
{
    const auto stages = uniformStages(4, 100, 4.0, 1.0);
    const Result<SwapPlan> plan = planSwapping(stages, 150);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_FALSE(plan->prefetch);
    expectCovers(*plan, 4, 150);
    EXPECT_NE(plan->why.find("no room for two"), std::string::npos) << plan->why;
    // Serial: every copy adds to the step, except the last group's, which stays for the turn.
    EXPECT_NEAR(plan->estimatedMs, 16.0 + 4 * 1.0 + 3 * 1.0 + 4 * 1.0, 1e-9);
}

TEST(SwapPlannerTest, FreeCopiesMeanFewerLargerGroups)
{
    const auto stages = uniformStages(6, 100, 2.0, 0.0);
    const Result<SwapPlan> plan = planSwapping(stages, 600);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->groups.size(), 1u);
    EXPECT_NEAR(plan->estimatedMs, plan->computeOnlyMs, 1e-9);
}

TEST(SwapPlannerTest, SimulationChargesExposedCopies)
{
    // Copies slower than compute cannot hide: the copy queue sets the pace.
    const auto stages = uniformStages(4, 100, 1.0, 5.0);
    const std::vector<SwapGroup> groups = {{0, 0, 100}, {1, 1, 100}, {2, 2, 100}, {3, 3, 100}};
    const double prefetched = simulateSwappedStep(stages, groups, true);
    const double serial = simulateSwappedStep(stages, groups, false);
    EXPECT_LT(prefetched, serial);
    // 7 copies in, 4 out, all on one copy queue: at least 55 ms whatever overlaps.
    EXPECT_GE(prefetched, 55.0);
}

TEST(SwapPlannerTest, FormatsBytes)
{
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(3 * 1024 * 1024 / 2), "1.5 MiB");
}

TEST(SwapPlannerTest, EachGroupStepsTheOptimizerWhereItMeasuredCheaper)
{
    // Room for one stage at a time: four groups, of which 1 and 3 step faster on the device.
    std::vector<StageCost> stages = uniformStages(4, 100, 4.0, 1.0);
    for (StageCost &stage : stages) {
        stage.hostStepMs = 2.0;
        stage.deviceStepMs = 3.0;
    }
    stages[1].deviceStepMs = 1.2;
    stages[3].deviceStepMs = 0.5;
    const Result<SwapPlan> plan = planSwapping(stages, 150);
    ASSERT_TRUE(plan) << plan.error().message;
    ASSERT_EQ(plan->groups.size(), 4u);
    const std::vector<OptimizerPlacement> expected = {OptimizerPlacement::Host, OptimizerPlacement::Device,
                                                      OptimizerPlacement::Host, OptimizerPlacement::Device};
    for (std::size_t g = 0; g < 4; ++g)
        EXPECT_EQ(plan->groups[g].optimizer, expected[g]) << "group " << g << ": " << plan->why;
    EXPECT_NE(plan->why.find("group 1 on device (1.20 ms vs 2.00 ms on host)"), std::string::npos) << plan->why;
    EXPECT_NE(plan->why.find("group 3 on device"), std::string::npos) << plan->why;
    EXPECT_EQ(plan->why.find("group 0 on device"), std::string::npos) << plan->why;
    EXPECT_NE(plan->why.find("the rest on host"), std::string::npos) << plan->why;

    // Free copies, so the fewest groups win: two stages a group, where stages 2 and 3 together
    // cost 4 ms on the host against 3.5 on the device, and stages 0 and 1 4 ms against 4.2.
    for (StageCost &stage : stages)
        stage.uploadMs = stage.downloadMs = 0.0;
    const Result<SwapPlan> paired = planSwapping(stages, 200);
    ASSERT_TRUE(paired) << paired.error().message;
    ASSERT_EQ(paired->groups.size(), 2u) << paired->why;
    EXPECT_EQ(paired->groups[0].optimizer, OptimizerPlacement::Host) << paired->why;
    EXPECT_EQ(paired->groups[1].optimizer, OptimizerPlacement::Device) << paired->why;
}

TEST(SwapPlannerTest, AnOptimizerPlacementAskedForOverridesTheMeasurement)
{
    std::vector<StageCost> stages = uniformStages(3, 100, 4.0, 1.0);
    for (StageCost &stage : stages) {
        stage.hostStepMs = 1.0;
        stage.deviceStepMs = 0.5;
    }
    const Result<SwapPlan> measured = planSwapping(stages, 150);
    ASSERT_TRUE(measured);
    EXPECT_NE(measured->why.find("group 0 on device"), std::string::npos) << measured->why;
    EXPECT_EQ(measured->why.find("the rest"), std::string::npos) << measured->why;
    for (const OptimizerPlacement asked : {OptimizerPlacement::Host, OptimizerPlacement::Device}) {
        const Result<SwapPlan> plan = planSwapping(stages, 150, asked);
        ASSERT_TRUE(plan);
        for (const SwapGroup &group : plan->groups)
            EXPECT_EQ(group.optimizer, asked) << plan->why;
        EXPECT_NE(plan->why.find("as asked"), std::string::npos) << plan->why;
    }
    // Equal costs stay on the host, which needs no copies.
    for (StageCost &stage : stages)
        stage.deviceStepMs = stage.hostStepMs;
    const Result<SwapPlan> tie = planSwapping(stages, 150);
    ASSERT_TRUE(tie);
    for (const SwapGroup &group : tie->groups)
        EXPECT_EQ(group.optimizer, OptimizerPlacement::Host) << tie->why;
    EXPECT_NE(tie->why.find("optimizer on host for every group"), std::string::npos) << tie->why;
}

// Half precision under autocast keeps a copy of every stage's matmul weights from its forward
// to its backward; at the turn all of them are held, so the plan sets their sum aside.
TEST(SwapPlannerTest, HalfPrecisionCopiesComeOffTheBudgetFirst)
{
    std::vector<StageCost> stages = uniformStages(4, 100, 1.0, 1.0);
    for (StageCost &stage : stages)
        stage.retainedBytes = 25; // bfloat16 copies: a quarter of float32 weights and gradients
    // 400 of stages, 100 retained: a budget of 200 leaves 100, one stage at a time.
    const Result<SwapPlan> plan = planSwapping(stages, 200);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    expectCovers(*plan, 4, 100);
    EXPECT_FALSE(plan->prefetch);
    EXPECT_NE(plan->why.find("kept for half-precision weight copies"), std::string::npos) << plan->why;
    // Without the copies the same budget prefetches two stages at a time.
    std::vector<StageCost> float32 = uniformStages(4, 100, 1.0, 1.0);
    EXPECT_TRUE(planSwapping(float32, 200)->prefetch);
    // 199 leaves 99, less than a stage: an error that names the copies and what would do.
    const Result<SwapPlan> tight = planSwapping(stages, 199);
    ASSERT_FALSE(tight.ok());
    EXPECT_NE(tight.error().message.find("half-precision copies"), std::string::npos) << tight.error().message;
    EXPECT_NE(tight.error().message.find("give at least 200 B"), std::string::npos) << tight.error().message;
}
