// HopChooser: SWARM's stochastic wiring, the next stage's peer for each microbatch.
#include "HopChooser.h"

#include <gtest/gtest.h>

#include <map>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

using Clock = HopChooser::Clock;

// Serves `microbatches` through a stage of peers that each take `seconds[i]` per microbatch,
// `parallel` at a time in flight (a trainer keeps its pipeline full): how many each one got.
std::map<std::string, int> serve(HopChooser &chooser, const std::map<std::string, double> &seconds, int microbatches,
                                 int parallel)
{
    std::map<std::string, int> served;
    // Each peer works through its queue one microbatch at a time: (finish time, peer).
    std::map<std::string, double> busyUntil;
    std::multimap<double, std::pair<std::string, double>> finishing; // finish -> (peer, sent at)
    double now = 0.0;
    const auto send = [&] {
        const std::string peer = chooser.choose(Clock::time_point{} + std::chrono::duration_cast<Clock::duration>(
                                                                         std::chrono::duration<double>(now)))
                                     .value();
        const double start = std::max(now, busyUntil[peer]);
        busyUntil[peer] = start + seconds.at(peer);
        finishing.emplace(busyUntil[peer], std::make_pair(peer, now));
    };
    for (int i = 0; i < parallel; ++i)
        send();
    for (int done = 0; done < microbatches; ++done) {
        const auto next = finishing.begin();
        now = next->first;
        const auto [peer, sentAt] = next->second;
        finishing.erase(next);
        chooser.succeeded(peer, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(now - sentAt)));
        ++served[peer];
        send();
    }
    return served;
}

} // namespace

TEST(HopChooserTest, EqualPeersShareTheLoadAndAFasterOneGetsMore)
{
    HopChooser equal({}, 1);
    equal.setPeers({"a", "b"});
    const auto shared = serve(equal, {{"a", 0.1}, {"b", 0.1}}, 2000, 4);
    EXPECT_NEAR(shared.at("a") / 2000.0, 0.5, 0.05);

    // SWARM's acceptance setting: a fast peer and one three times slower in one stage.
    HopChooser unequal({}, 2);
    unequal.setPeers({"fast", "slow"});
    const auto split = serve(unequal, {{"fast", 0.1}, {"slow", 0.3}}, 4000, 4);
    const double fastShare = split.at("fast") / 4000.0;
    EXPECT_NEAR(fastShare, 0.75, 0.1);
    std::cout << "fast peer's share of its stage: " << fastShare << std::endl;
}

TEST(HopChooserTest, AFailedPeerIsSkippedForADoublingBackoffThatASuccessEnds)
{
    HopChooserSettings settings;
    settings.backoff = 1s;
    settings.maxBackoff = 5s;
    HopChooser chooser(settings, 3);
    chooser.setPeers({"a", "b"});
    const Clock::time_point t0{};
    chooser.failed("a", t0);
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(chooser.choose(t0 + 999ms).value(), "b");
        chooser.succeeded("b", 100ms);
    }
    EXPECT_FALSE(chooser.backingOff("a", t0 + 1s));
    chooser.failed("a", t0 + 1s); // a second failure in a row: 2 s
    EXPECT_TRUE(chooser.backingOff("a", t0 + 2999ms));
    EXPECT_FALSE(chooser.backingOff("a", t0 + 3s));
    for (int i = 0; i < 10; ++i)
        chooser.failed("a", t0 + 3s);
    EXPECT_TRUE(chooser.backingOff("a", t0 + 7999ms)) << "capped at maxBackoff, not overflowing";
    EXPECT_FALSE(chooser.backingOff("a", t0 + 8s));
    chooser.succeeded("a", 100ms);
    EXPECT_FALSE(chooser.backingOff("a", t0 + 3s)) << "a success ends the backoff";
}

TEST(HopChooserTest, ARetryGoesToAnotherPeerAndNoneWhenAllAreOut)
{
    HopChooser chooser({}, 4);
    chooser.setPeers({"a", "b"});
    const Clock::time_point t0{};
    for (int i = 0; i < 10; ++i) {
        const std::string first = chooser.choose(t0).value();
        const std::optional<std::string> retry = chooser.choose(t0, {first});
        ASSERT_TRUE(retry.has_value());
        EXPECT_NE(*retry, first);
        EXPECT_FALSE(chooser.choose(t0, {"a", "b"}).has_value());
    }
    chooser.failed("a", t0);
    chooser.failed("b", t0);
    EXPECT_FALSE(chooser.choose(t0 + 1ms).has_value()) << "every peer backing off";
    HopChooser empty;
    EXPECT_FALSE(empty.choose(t0).has_value());
}

TEST(HopChooserTest, TimeoutsFollowMeasuredTimes)
{
    HopChooserSettings settings;
    settings.timeoutFactor = 4.0;
    settings.minTimeout = 500ms;
    settings.maxTimeout = 60s;
    HopChooser chooser(settings, 5);
    chooser.setPeers({"a", "b"});
    EXPECT_EQ(chooser.timeout("a"), 60s) << "never measured";
    chooser.succeeded("a", 2s);
    EXPECT_EQ(chooser.timeout("a"), 8s);
    chooser.succeeded("b", 10ms);
    EXPECT_EQ(chooser.timeout("b"), 500ms) << "no less than the floor";
    for (int i = 0; i < 50; ++i)
        chooser.succeeded("a", 200ms);
    EXPECT_NEAR(double(chooser.timeout("a").count()), 800.0, 20.0) << "the moving average follows the peer";
}

TEST(HopChooserTest, ANewPeerIsTriedAndAPeerThatLeftIsForgotten)
{
    HopChooser chooser({}, 6);
    chooser.setPeers({"a"});
    chooser.succeeded("a", 300ms);
    chooser.setPeers({"a", "new"});
    // The newcomer is assumed as fast as the fastest measured, so it is drawn at once.
    int toNew = 0;
    for (int i = 0; i < 20; ++i) {
        const std::string peer = chooser.choose(Clock::time_point{}).value();
        toNew += peer == "new" ? 1 : 0;
        chooser.succeeded(peer, 300ms);
    }
    EXPECT_GT(toNew, 0);
    EXPECT_EQ(chooser.timeout("a"), 2s) << "its figures survived the new placement (floor 2 s)";
    (void)chooser.choose(Clock::time_point{});
    chooser.setPeers({"new"});
    EXPECT_EQ(chooser.inFlight("a"), 0);
    EXPECT_FALSE(std::isfinite(chooser.expectedSeconds("a")));
    chooser.succeeded("a", 1s); // a late answer from a peer that left changes nothing
    EXPECT_EQ(chooser.choose(Clock::time_point{}).value(), "new");
}

// A peer at capacity that says so is only no longer counted in flight: no backoff, its measured
// time unchanged.
TEST(HopChooserTest, ABusyPeerIsReleasedWithoutBackingOff)
{
    HopChooser chooser({}, 5);
    chooser.setPeers({"a"});
    const Clock::time_point t0{};
    chooser.succeeded("a", 100ms);
    ASSERT_EQ(chooser.choose(t0).value(), "a");
    ASSERT_EQ(chooser.choose(t0).value(), "a");
    EXPECT_EQ(chooser.inFlight("a"), 2);
    const double before = chooser.expectedSeconds("a");
    chooser.released("a");
    EXPECT_EQ(chooser.inFlight("a"), 1);
    EXPECT_FALSE(chooser.backingOff("a", t0));
    EXPECT_LT(chooser.expectedSeconds("a"), before) << "one fewer in flight, the same time per microbatch";
    EXPECT_DOUBLE_EQ(chooser.expectedSeconds("a"), 2 * 0.1);
    chooser.released("gone"); // a peer that left: nothing to do
}
