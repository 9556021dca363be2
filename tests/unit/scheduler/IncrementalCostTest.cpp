#include "IncrementalCost.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace swarmtrain::scheduler;

namespace {

double near(double expected) { return 1e-9 * std::max(1.0, std::abs(expected)); }

double fullCost(const CostModel &model, const Partition &partition, StageOrder order)
{
    return model.evaluate(partition.groups(), order).cost.total;
}

// Random swaps and 3-cycles, some applied: the cached total must always equal a fresh evaluation,
// and every priced move must equal evaluating the moved partition from scratch.
void checkAgainstFullEvaluation(const Problem &problem, int stages, int dataParallel, StageOrder order,
                                std::uint64_t seed)
{
    const CostModel model(problem, stages, dataParallel);
    std::mt19937_64 rng(seed);
    IncrementalCost state(model, order);
    state.reset(Partition::random(problem.deviceCount(), stages, dataParallel, rng));
    ASSERT_NEAR(state.total(), fullCost(model, state.partition(), order), near(state.total()));
    for (int step = 0; step < 60; ++step) {
        const int size = 2 + int(rng() % 2);
        std::vector<int> move;
        while (int(move.size()) < size) {
            const int d = int(rng() % std::uint64_t(problem.deviceCount()));
            bool newBucket = true;
            for (const int m : move)
                newBucket = newBucket && state.partition().bucketOf(m) != state.partition().bucketOf(d);
            if (newBucket)
                move.push_back(d);
            if (move.size() < std::size_t(size) && state.partition().bucketCount() < size)
                break; // not enough buckets for a 3-cycle
        }
        if (int(move.size()) != size)
            continue;
        Partition moved = state.partition();
        moved.rotate(move);
        const double expected = fullCost(model, moved, order);
        ASSERT_NEAR(state.evaluateRotation(move), expected, near(expected)) << "step " << step;
        EXPECT_EQ(state.improves(move, expected + 1e3 * near(expected)), true);
        EXPECT_EQ(state.improves(move, expected - 1e3 * near(expected)), false);
        if (rng() % 2) {
            state.applyRotation(move);
            ASSERT_NEAR(state.total(), expected, near(expected));
            ASSERT_EQ(state.partition().devices(), moved.devices());
        }
    }
}

} // namespace

TEST(IncrementalCostTest, MatchesFullEvaluationWithOptimalOrder)
{
    checkAgainstFullEvaluation(test::randomProblem(24, 1), 4, 6, StageOrder::Optimal, 1);
    checkAgainstFullEvaluation(test::randomProblem(26, 2), 5, 5, StageOrder::Optimal, 2); // one spare
}

TEST(IncrementalCostTest, MatchesFullEvaluationWithGivenOrder)
{
    checkAgainstFullEvaluation(test::randomProblem(24, 3), 6, 4, StageOrder::Given, 3);
}

TEST(IncrementalCostTest, MatchesFullEvaluationWithTheComputeAndMemoryTerms)
{
    Problem problem = test::randomProblem(20, 4);
    problem.terms = {true, true};
    problem.model.flopsPerLayerPerMicrobatch = 1e12;
    problem.model.microbatches = 3;
    problem.model.memoryBytesPerParameterByte = 4.0;
    for (int d = 0; d < 20; ++d) {
        problem.devices[std::size_t(d)].flopsPerSecond = 1e12 * (1 + d % 5);
        problem.devices[std::size_t(d)].memoryBytes = d % 7 == 0 ? 1e8 : 1e10;
    }
    checkAgainstFullEvaluation(problem, 4, 4, StageOrder::Optimal, 4);
}

TEST(IncrementalCostTest, AboveTwelveGroupsMovesArePricedAlongTheCurrentOrder)
{
    const Problem problem = test::randomProblem(28, 5);
    const CostModel model(problem, 14, 2);
    std::mt19937_64 rng(5);
    IncrementalCost state(model, StageOrder::Optimal);
    state.reset(Partition::random(28, 14, 2, rng));
    // The cached total is the current order's path, which evaluate() must not beat by much and
    // which the order's own links add up to.
    std::vector<std::vector<int>> ordered;
    for (const int g : state.order())
        ordered.push_back(std::vector<int>(state.partition().group(g).begin(), state.partition().group(g).end()));
    EXPECT_NEAR(state.total(), model.evaluate(ordered, StageOrder::Given).cost.total, 1e-9);
    const int move[2] = {state.partition().group(0)[0], state.partition().group(1)[0]};
    Partition moved = state.partition();
    moved.rotate(move);
    std::vector<std::vector<int>> movedOrdered;
    for (const int g : state.order())
        movedOrdered.push_back(std::vector<int>(moved.group(g).begin(), moved.group(g).end()));
    EXPECT_NEAR(state.evaluateRotation(move), model.evaluate(movedOrdered, StageOrder::Given).cost.total, 1e-9);
}

TEST(IncrementalCostTest, TieBreaksAgreeWithFreshStates)
{
    // Eight instances of three GPUs: most swaps leave the bottlenecks as they are (ties), and the
    // tie-break must then follow the score of the state the move leads to.
    std::vector<int> sites;
    for (int instance = 0; instance < 8; ++instance)
        sites.insert(sites.end(), 3, instance);
    const Problem problem = test::siteProblem(sites, 0.0, 1e10, 0.0, 1e8);
    const CostModel model(problem, 6, 4);
    std::mt19937_64 rng(8);
    IncrementalCost state(model, StageOrder::Optimal);
    state.reset(Partition::random(24, 6, 4, rng));
    int ties = 0, tieWins = 0;
    for (int step = 0; step < 300; ++step) {
        const int a = int(rng() % 24), b = int(rng() % 24);
        if (state.partition().bucketOf(a) == state.partition().bucketOf(b))
            continue;
        const int move[2] = {a, b};
        Partition moved = state.partition();
        moved.rotate(move);
        IncrementalCost fresh(model, StageOrder::Optimal);
        fresh.reset(moved);
        const double tolerance = 1e-9 * state.total();
        const bool tie = std::abs(fresh.total() - state.total()) <= tolerance;
        const bool expected = fresh.total() < state.total() - tolerance
                              || (tie && fresh.tieBreakScore() < state.tieBreakScore() - 1e-9 * state.tieBreakScore());
        ASSERT_EQ(state.improvesOrBreaksTie(move), expected) << "step " << step;
        ties += tie ? 1 : 0;
        tieWins += tie && expected ? 1 : 0;
        if (expected) {
            state.applyRotation(move);
            ASSERT_NEAR(state.tieBreakScore(), fresh.tieBreakScore(), 1e-9 * fresh.tieBreakScore());
        }
    }
    EXPECT_GT(ties, 50) << "the example should be full of plateaus";
    EXPECT_GT(tieWins, 0);
}

TEST(IncrementalCostTest, TieBreakScoreByHand)
{
    // Two sites of two, striped: each group's all-reduce crosses sites (4.1 s each), and the one
    // boundary (0.101 s) needs both devices at that cost: none can be matched below it.
    const Problem problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    const CostModel model(problem, 2, 2);
    IncrementalCost state(model, StageOrder::Optimal);
    state.reset(Partition(2, 2, {0, 2, 1, 3}));
    EXPECT_NEAR(state.tieBreakScore(), 4.1 + 2 * 0.101 * 2 / 2, 1e-12);
}

TEST(IncrementalCostTest, AnchorsChargeEachMovedDevice)
{
    const Problem problem = test::randomProblem(8, 6);
    const CostModel model(problem, 2, 4);
    IncrementalCost state(model, StageOrder::Given);
    state.reset(Partition(2, 4, {0, 1, 2, 3, 4, 5, 6, 7}));
    const double plain = state.total();
    // Device 7 is a newcomer (free); the others are anchored where they are.
    state.anchor({0, 0, 0, 0, 1, 1, 1, -1}, 10.0);
    EXPECT_EQ(state.movedDevices(), 0);
    EXPECT_NEAR(state.total(), plain, 1e-12);
    const int swapAnchored[2] = {0, 4};
    Partition moved = state.partition();
    moved.rotate(swapAnchored);
    EXPECT_NEAR(state.evaluateRotation(swapAnchored), fullCost(model, moved, StageOrder::Given) + 2 * 10.0, 1e-9);
    const int swapNewcomer[2] = {0, 7};
    moved = state.partition();
    moved.rotate(swapNewcomer);
    EXPECT_NEAR(state.evaluateRotation(swapNewcomer), fullCost(model, moved, StageOrder::Given) + 10.0, 1e-9);
    state.applyRotation(swapNewcomer);
    EXPECT_EQ(state.movedDevices(), 1);
}
