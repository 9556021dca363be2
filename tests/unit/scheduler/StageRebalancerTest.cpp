#include "StageRebalancer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace swarmtrain::scheduler;

namespace {

std::vector<StagePeer> placed(const std::vector<int> &counts, double rate = 1.0)
{
    std::vector<StagePeer> peers;
    for (std::size_t stage = 0; stage < counts.size(); ++stage) {
        for (int i = 0; i < counts[stage]; ++i)
            peers.push_back({"p" + std::to_string(peers.size()), int(stage), rate});
    }
    return peers;
}

std::vector<int> countsOf(const std::vector<StagePeer> &peers, int stages)
{
    std::vector<int> counts(std::size_t(stages), 0);
    for (const StagePeer &peer : peers)
        ++counts[std::size_t(peer.stage)];
    return counts;
}

// Moves the peer; its rate at the new stage is its FLOP/s (`flops`) over that stage's cost.
void apply(std::vector<StagePeer> &peers, const StageMove &move, const std::vector<double> &costs, double flops)
{
    for (StagePeer &peer : peers) {
        if (peer.id == move.peer) {
            EXPECT_EQ(peer.stage, move.from);
            peer.stage = move.to;
            peer.microbatchesPerSecond = flops / costs[std::size_t(move.to)];
        }
    }
}

} // namespace

// The case: 6 equal peers placed 1 / 1 / 4 reach 2 / 2 / 2 within 5 periods, measured
// with 5% noise, then do not move for 5 more; the pipeline's throughput doubles.
TEST(StageRebalancerTest, EqualPeersFromOneOneFourReachTwoTwoTwoAndStay)
{
    const std::vector<double> costs{1, 1, 1};
    std::vector<StagePeer> peers = placed({1, 1, 4});
    const std::vector<double> initial = stageThroughputs(peers, 3);
    const double before = *std::min_element(initial.begin(), initial.end());
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> noise(0.95, 1.05);
    int balancedAt = -1, movesAfter = 0;
    for (int period = 0; period < 10; ++period) {
        std::vector<StagePeer> measured = peers;
        for (StagePeer &peer : measured)
            peer.microbatchesPerSecond *= noise(rng);
        if (const std::optional<StageMove> move = chooseStageMove(measured, costs)) {
            movesAfter += balancedAt >= 0;
            apply(peers, *move, costs, 1.0);
        }
        if (balancedAt < 0 && countsOf(peers, 3) == std::vector<int>{2, 2, 2})
            balancedAt = period;
    }
    ASSERT_GE(balancedAt, 0) << "never reached 2 / 2 / 2";
    EXPECT_LT(balancedAt, 5);
    EXPECT_EQ(movesAfter, 0) << "a balanced placement kept moving";
    const std::vector<double> after = stageThroughputs(peers, 3);
    EXPECT_GE(*std::min_element(after.begin(), after.end()), 1.8 * before);
}

// A stage left with no peer gets one at once, whatever the gain rules say, and from a stage that
// can spare one.
TEST(StageRebalancerTest, AnEmptyStageGetsAPeerAtOnce)
{
    const std::vector<double> costs{1, 1, 1};
    std::vector<StagePeer> peers = placed({1, 0, 3});
    peers[0].microbatchesPerSecond = 5.0; // the single peer of stage 0 is fast: still not taken
    const std::optional<StageMove> move = chooseStageMove(peers, costs);
    ASSERT_TRUE(move.has_value());
    EXPECT_EQ(move->to, 1);
    EXPECT_EQ(move->from, 2);
    EXPECT_EQ(move->throughputBefore, 0.0);
    EXPECT_GT(move->throughputAfter, 0.0);
}

// A move never empties a stage, and none happens when the bottleneck would gain too little.
TEST(StageRebalancerTest, NoMoveThatEmptiesAStageOrGainsTooLittle)
{
    const std::vector<double> costs{1, 1, 1};
    std::vector<StagePeer> single = placed({1, 1, 1});
    single[2].microbatchesPerSecond = 10.0;
    EXPECT_FALSE(chooseStageMove(single, costs).has_value());

    // Stage 1 (1.0) is the bottleneck. Stage 2's slow peer would add only 0.2 (1.2x < 1/0.75),
    // and taking its fast one would leave stage 2 at 0.2, the new bottleneck: neither moves.
    std::vector<StagePeer> peers = placed({2, 1, 2});
    peers[3].microbatchesPerSecond = 0.2;
    peers[4].microbatchesPerSecond = 3.0;
    EXPECT_FALSE(chooseStageMove(peers, costs).has_value());

    // With a third peer in stage 2, the move that leaves the best pipeline is taken: the 1.5
    // peer (2.0 after), not the 3.0 one (1.7 after).
    peers.push_back({"p5", 2, 1.5});
    const std::optional<StageMove> move = chooseStageMove(peers, costs);
    ASSERT_TRUE(move.has_value());
    EXPECT_EQ(move->peer, "p5");
    EXPECT_DOUBLE_EQ(move->throughputAfter, 2.0);
    EXPECT_FALSE(chooseStageMove(peers, costs, RebalanceOptions{100.0}).has_value()) << "a gain below minGain";
}

// A peer's rate is its FLOP/s over the stage's cost: a stage three times as costly serves it a
// third as often, and gets more peers.
TEST(StageRebalancerTest, RatesScaleWithStageCosts)
{
    const std::vector<double> costs{1, 3, 1};
    const StagePeer peer{"p", 0, 3.0};
    EXPECT_DOUBLE_EQ(rateAt(peer, 1, costs), 1.0);
    EXPECT_DOUBLE_EQ(rateAt(peer, 2, costs), 3.0);
    // Equal peers of 1 FLOP/s-unit each, a middle stage three times as costly: it ends with twice
    // the peers of the others (2 / 4 / 2 serves 2, 1.33 and 2 microbatches a second; one more
    // peer in the middle would gain it only 1.25x).
    std::vector<StagePeer> peers;
    for (int i = 0; i < 8; ++i) {
        const int stage = i < 3 ? 0 : i < 5 ? 1 : 2;
        peers.push_back({"p" + std::to_string(i), stage, 1.0 / costs[std::size_t(stage)]});
    }
    for (int period = 0; period < 10; ++period) {
        if (const std::optional<StageMove> move = chooseStageMove(peers, costs))
            apply(peers, *move, costs, 1.0);
    }
    EXPECT_EQ(countsOf(peers, 3), (std::vector<int>{2, 4, 2}));
}

// Without noise, any placement of any peers stops moving: every move takes a stage off the
// slowest level or raises it, so there is no cycle.
TEST(StageRebalancerTest, MovesStopForRandomSwarms)
{
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        const int stages = 2 + int(rng() % 4);
        std::vector<double> costs;
        for (int s = 0; s < stages; ++s)
            costs.push_back(1.0 + double(rng() % 3));
        std::vector<StagePeer> peers;
        std::vector<double> flops;
        const int count = stages + int(rng() % 8);
        for (int i = 0; i < count; ++i) {
            const int stage = i < stages ? i : int(rng() % unsigned(stages));
            flops.push_back(0.5 + double(rng() % 100) / 20.0);
            peers.push_back({"p" + std::to_string(i), stage, flops.back() / costs[std::size_t(stage)]});
        }
        int moves = 0;
        while (const std::optional<StageMove> move = chooseStageMove(peers, costs)) {
            ASSERT_LT(++moves, 1000) << "trial " << trial << " keeps moving";
            EXPECT_GE(move->throughputAfter, move->throughputBefore);
            for (std::size_t i = 0; i < peers.size(); ++i) {
                if (peers[i].id == move->peer) {
                    peers[i].stage = move->to;
                    peers[i].microbatchesPerSecond = flops[i] / costs[std::size_t(move->to)];
                }
            }
        }
        for (const int c : countsOf(peers, stages))
            EXPECT_GE(c, 1) << "trial " << trial << " left a stage empty";
    }
}
