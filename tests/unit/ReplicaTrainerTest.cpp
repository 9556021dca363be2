#include "ReplicaTrainer.h"
#include "SwarmState.h"
#include "TempDir.h"
#include "TinyGpt.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace swarmtrain;

namespace {

class ReplicaTrainerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(writeInitialSwarmState(stateFile, config, tokenizer, 5).ok());
    }

    static ReplicaOptions options(std::uint64_t seed)
    {
        ReplicaOptions o;
        o.batchSize = 2;
        o.innerSteps = 3;
        o.schedule = {1e-2, 1e-3, 0, 30};
        o.seed = seed;
        o.device = "cpu";
        return o;
    }

    std::unique_ptr<ReplicaTrainer> replica(const ReplicaOptions &o, unsigned textSeed,
                                            const std::filesystem::path &from)
    {
        Result<std::unique_ptr<ReplicaTrainer>> r = ReplicaTrainer::create(from, o);
        EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
        EXPECT_TRUE((*r)->setTrainingTokens(tokenizer.encode(test::generatedText(3000, textSeed)).value()).ok());
        return std::move(r).value();
    }
    std::unique_ptr<ReplicaTrainer> replica(std::uint64_t seed, unsigned textSeed)
    {
        return replica(options(seed), textSeed, stateFile);
    }

    // Trains `a` through the rounds before `round`, each closed by an outer step with its own
    // pseudo-gradient (so that its optimizer has moments and the global state momentum), saves
    // the global state of `round` and trains that round. Returns the saved state's file.
    std::filesystem::path trainRound(ReplicaTrainer &a, std::int64_t round)
    {
        for (std::int64_t r = a.round(); r < round; ++r) {
            EXPECT_TRUE(a.trainInner().ok());
            EXPECT_TRUE(a.applyOuterStep(a.pseudoGradient()).ok());
        }
        const std::filesystem::path saved = dir.path() / ("round-" + std::to_string(round) + ".safetensors");
        EXPECT_TRUE(a.saveGlobalState(saved).ok());
        EXPECT_TRUE(a.trainInner().ok());
        return saved;
    }

    void expectAFreshTrainerReplaysAMembersRound();

    static std::vector<float> average(const std::vector<float> &a, const std::vector<float> &b)
    {
        std::vector<float> out(a.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            out[i] = (a[i] + b[i]) / 2.0f;
        return out;
    }

    test::TempDir dir;
    Tokenizer tokenizer = Tokenizer::buildCharacter(test::generatedText(3000)).value();
    ModelConfig config = test::tinyGptConfig(tokenizer.vocabSize(), 2, 2, 16, 8);
    std::filesystem::path stateFile = dir.path() / "round-0.safetensors";
};

} // namespace

TEST_F(ReplicaTrainerTest, PeersThatApplyTheSameAverageEndWithTheSameParameters)
{
    auto a = replica(1, 1), b = replica(2, 2);
    ASSERT_EQ(a->globalHash(), b->globalHash());
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(b->trainInner().ok());
    const std::vector<float> ga = a->pseudoGradient(), gb = b->pseudoGradient();
    ASSERT_EQ(std::int64_t(ga.size()), a->parameterCount());
    EXPECT_NE(ga, gb); // different data, different pseudo-gradients

    const std::string before = a->globalHash();
    const std::vector<float> mean = average(ga, gb);
    ASSERT_TRUE(a->applyOuterStep(mean).ok());
    ASSERT_TRUE(b->applyOuterStep(mean).ok());
    EXPECT_EQ(a->round(), 1);
    EXPECT_NE(a->globalHash(), before);
    EXPECT_EQ(a->globalHash(), b->globalHash());
    // After the outer step the local copy is the new global one: no pseudo-gradient is left.
    for (float v : a->pseudoGradient())
        ASSERT_EQ(v, 0.0f);
}

TEST_F(ReplicaTrainerTest, SavedGlobalStateCarriesRoundAndHash)
{
    auto a = replica(1, 1);
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(a->applyOuterStep(a->pseudoGradient()).ok());
    const std::filesystem::path saved = dir.path() / "round-1.safetensors";
    ASSERT_TRUE(a->saveGlobalState(saved).ok());
    const Result<SwarmStateInfo> info = inspectSwarmState(saved);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->round, 1);
    EXPECT_EQ(info->parametersHash, a->globalHash());
}

// The inner schedule counts the swarm's tokens (issue 18): each outer step moves the state's
// schedule step as far as the round says (H by default), and the step travels with the state
// to a replica created from it and to one catching up; so a replay from that state (a spot
// check) trains at the same learning rates.
TEST_F(ReplicaTrainerTest, TheScheduleStepMovesAsTheRoundSaysAndTravelsWithTheState)
{
    auto a = replica(1, 1);
    EXPECT_EQ(a->scheduleStep(), 0);
    ASSERT_TRUE(a->applyOuterStep(a->pseudoGradient()).ok());
    EXPECT_EQ(a->scheduleStep(), options(1).innerSteps) << "H by default";
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(a->applyOuterStep(a->pseudoGradient(), 123).ok());
    EXPECT_EQ(a->scheduleStep(), options(1).innerSteps + 123);
    const std::filesystem::path saved = dir.path() / "round-2.safetensors";
    ASSERT_TRUE(a->saveGlobalState(saved).ok());
    auto fresh = replica(options(2), 2, saved);
    EXPECT_EQ(fresh->scheduleStep(), options(1).innerSteps + 123);
    auto late = replica(3, 3);
    ASSERT_TRUE(late->loadGlobalState(saved).ok());
    EXPECT_EQ(late->scheduleStep(), options(1).innerSteps + 123);
    auto again = replica(options(1), 1, saved);
    ASSERT_TRUE(again->trainInner().ok());
    ASSERT_TRUE(a->trainInner().ok());
    EXPECT_EQ(again->pseudoGradient(), a->pseudoGradient()) << "a replay from the state is the same";

    // The learning rate follows it: the same parameters, round and data at schedule steps 0 and
    // 10,000 (a zero average at round 0 moves nothing) train differently.
    auto early = replica(1, 1), late2 = replica(1, 1);
    const std::vector<float> zero(std::size_t(early->parameterCount()), 0.0f);
    ASSERT_TRUE(early->applyOuterStep(zero, 0).ok());
    ASSERT_TRUE(late2->applyOuterStep(zero, 10'000).ok());
    ASSERT_EQ(early->globalHash(), late2->globalHash());
    ASSERT_TRUE(early->trainInner().ok());
    ASSERT_TRUE(late2->trainInner().ok());
    EXPECT_NE(early->pseudoGradient(), late2->pseudoGradient());
}

TEST_F(ReplicaTrainerTest, ALateMemberCatchesUpByLoadingTheGlobalState)
{
    auto a = replica(1, 1), late = replica(3, 3);
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(a->applyOuterStep(a->pseudoGradient()).ok());
    ASSERT_TRUE(late->trainInner().ok()); // trained on round 0 but missed the round
    const std::filesystem::path saved = dir.path() / "round-1.safetensors";
    ASSERT_TRUE(a->saveGlobalState(saved).ok());

    ASSERT_TRUE(late->loadGlobalState(saved).ok());
    EXPECT_EQ(late->round(), 1);
    EXPECT_EQ(late->innerStepsDone(), 0);
    EXPECT_EQ(late->globalHash(), a->globalHash());
    // Both continue identically from here: the same average gives the same parameters.
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(late->trainInner().ok());
    const std::vector<float> mean = average(a->pseudoGradient(), late->pseudoGradient());
    ASSERT_TRUE(a->applyOuterStep(mean).ok());
    ASSERT_TRUE(late->applyOuterStep(mean).ok());
    EXPECT_EQ(late->globalHash(), a->globalHash());
}

TEST_F(ReplicaTrainerTest, ABadAverageIsRefusedAndChangesNothing)
{
    auto a = replica(1, 1);
    ASSERT_TRUE(a->trainInner().ok());
    const std::string before = a->globalHash();
    std::vector<float> g = a->pseudoGradient();

    EXPECT_FALSE(a->applyOuterStep(std::span<const float>(g.data(), g.size() - 1)).ok());
    g[g.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(a->applyOuterStep(g).ok());
    EXPECT_EQ(a->globalHash(), before);
    EXPECT_EQ(a->round(), 0);
    EXPECT_EQ(a->innerStepsDone(), 3);
}

TEST_F(ReplicaTrainerTest, AStoppedInnerRunContinuesWhereItStopped)
{
    auto a = replica(1, 1);
    int asked = 0;
    const Result<InnerReport> first = a->trainInner([&] { return ++asked > 1; });
    ASSERT_TRUE(first.ok());
    EXPECT_TRUE(first->interrupted);
    EXPECT_EQ(first->steps, 1);
    EXPECT_EQ(first->tokens, 2 * config.blockSize);
    const Result<InnerReport> rest = a->trainInner();
    ASSERT_TRUE(rest.ok());
    EXPECT_FALSE(rest->interrupted);
    EXPECT_EQ(rest->steps, 2);
    EXPECT_EQ(a->innerStepsDone(), 3);
    EXPECT_TRUE(std::isfinite(rest->meanLoss));
}

// A pause or stop lands between two stages of a step: the step is dropped and the replica is
// exactly as it was after the previous step, resident or swapped.
TEST_F(ReplicaTrainerTest, AnInterruptedStepIsAbandonedBetweenStagesAndChangesNothing)
{
    for (const SwapMode swap : {SwapMode::Off, SwapMode::On}) {
        SCOPED_TRACE(swap == SwapMode::On ? "swapped" : "resident");
        ReplicaOptions o;
        o.batchSize = 2;
        o.innerSteps = 3;
        o.schedule = {1e-2, 1e-3, 0, 30};
        o.swap = swap;
        o.deviceMemoryBudget = std::int64_t(1) << 30;
        auto make = [&] {
            auto r = ReplicaTrainer::create(stateFile, o).value();
            EXPECT_TRUE(r->setTrainingTokens(tokenizer.encode(test::generatedText(3000, 1)).value()).ok());
            return r;
        };

        // One whole step, counting the gate's calls.
        auto oneStep = make();
        int steps = 0;
        std::atomic<int> callsPerStep = 0;
        ASSERT_TRUE(oneStep->trainInner([&] { return ++steps > 1; }, [&] { ++callsPerStep; return false; }).ok());
        ASSERT_EQ(oneStep->innerStepsDone(), 1);
        // Before each stage of the forward pass and of the backward pass.
        EXPECT_GE(callsPerStep.load(), 2 * (config.nLayer + 2));

        // The second step is interrupted halfway through its stages.
        auto interrupted = make();
        std::atomic<int> calls = 0;
        const int stopAt = callsPerStep + callsPerStep / 2;
        const Result<InnerReport> report = interrupted->trainInner({}, [&] { return ++calls > stopAt; });
        ASSERT_TRUE(report.ok()) << report.error().message;
        EXPECT_TRUE(report->interrupted);
        EXPECT_EQ(report->steps, 1);
        EXPECT_EQ(interrupted->innerStepsDone(), 1);
        EXPECT_EQ(interrupted->pseudoGradient(), oneStep->pseudoGradient());

        // And it goes on from there.
        ASSERT_TRUE(interrupted->trainInner().ok());
        EXPECT_EQ(interrupted->innerStepsDone(), 3);
    }
}

TEST_F(ReplicaTrainerTest, TooLittleTrainingTextIsAnError)
{
    auto a = replica(1, 1);
    EXPECT_FALSE(a->setTrainingTokens(std::vector<std::int32_t>(std::size_t(config.blockSize), 0)).ok());
    EXPECT_FALSE(a->setTrainingTokens(std::vector<std::int32_t>(100, config.vocabSize)).ok());
}

// The spot check's contract (ReplicaTrainer.h): a fresh trainer on the saved state of round r
// with the member's seed and tokens recomputes the member's pseudo-gradient of round r. On the
// CPU with the same thread count every operation runs in the same order, so bit for bit.
// What a spot check relies on: a fresh trainer on the round's state and the member's seed
// computes the member's pseudo-gradient, bit for bit.
void ReplicaTrainerTest::expectAFreshTrainerReplaysAMembersRound()
{
    auto member = replica(7, 1);
    const std::filesystem::path round2 = trainRound(*member, 2);
    const std::vector<float> sent = member->pseudoGradient();

    auto checker = replica(options(7), 1, round2);
    EXPECT_EQ(checker->round(), 2);
    ASSERT_TRUE(checker->trainInner().ok());
    EXPECT_EQ(checker->pseudoGradient(), sent);

    // A replica that trained other rounds before it caught up by loading the state, too.
    auto late = replica(7, 1);
    ASSERT_TRUE(late->trainInner().ok());
    ASSERT_TRUE(late->loadGlobalState(round2).ok());
    ASSERT_TRUE(late->trainInner().ok());
    EXPECT_EQ(late->pseudoGradient(), sent);
}

TEST_F(ReplicaTrainerTest, AFreshTrainerOnTheRoundsStateReplaysAMembersRound)
{
    expectAFreshTrainerReplaysAMembersRound();
}

// The same for the Llama family (grouped-query attention, its own head), so spot checks hold.
class LlamaReplicaTrainerTest : public ReplicaTrainerTest {
protected:
    LlamaReplicaTrainerTest() { config = test::tinyLlamaConfig(tokenizer.vocabSize(), 2, 2, 1, 16, 40, 8, false); }
};

TEST_F(LlamaReplicaTrainerTest, AFreshTrainerOnTheRoundsStateReplaysAMembersRound)
{
    expectAFreshTrainerReplaysAMembersRound();
}

// The old behaviour, kept for the benchmark: moments carried over from earlier rounds make the
// round's result private to the peer, which is what the test above would catch.
TEST_F(ReplicaTrainerTest, InnerStateKeptAcrossRoundsCannotBeReplayed)
{
    ReplicaOptions keep = options(7);
    keep.keepInnerStateAcrossRounds = true;
    auto member = replica(keep, 1, stateFile);
    const std::filesystem::path round2 = trainRound(*member, 2);

    auto checker = replica(keep, 1, round2);
    ASSERT_TRUE(checker->trainInner().ok());
    EXPECT_NE(checker->pseudoGradient(), member->pseudoGradient());
}

// The benchmark's third way: the second moment and the step count run on, the first moment
// starts from zero each round. Its rounds differ from both the others' after the first.
TEST_F(ReplicaTrainerTest, KeepingOnlyTheSecondMomentIsAThirdWay)
{
    const auto secondRound = [&](bool keep, bool resetFirst) {
        ReplicaOptions o = options(7);
        o.keepInnerStateAcrossRounds = keep;
        o.resetFirstMomentEachRound = resetFirst;
        auto member = replica(o, 1, stateFile);
        trainRound(*member, 1);
        return member->pseudoGradient();
    };
    const std::vector<float> secondOnly = secondRound(true, true);
    EXPECT_NE(secondOnly, secondRound(true, false));
    EXPECT_NE(secondOnly, secondRound(false, false));
}

// A second moment set from outside (a benchmark's shared one) is the one the next round's steps
// divide by; one of the wrong size, negative or not finite is refused and changes nothing.
TEST_F(ReplicaTrainerTest, ASecondMomentSetFromOutsideShapesTheRoundAndBadOnesAreRefused)
{
    ReplicaOptions o = options(7);
    o.keepInnerStateAcrossRounds = true;
    o.resetFirstMomentEachRound = true;
    const auto afterOneRound = [&] {
        auto member = replica(o, 1, stateFile);
        EXPECT_TRUE(member->trainInner().ok());
        EXPECT_TRUE(member->applyOuterStep(member->pseudoGradient()).ok());
        return member;
    };
    auto same = afterOneRound(), scaled = afterOneRound(), untouched = afterOneRound();
    const std::vector<float> v = untouched->innerSecondMoment();
    ASSERT_EQ(std::int64_t(v.size()), untouched->parameterCount());
    EXPECT_GT(*std::max_element(v.begin(), v.end()), 0.0f);

    std::vector<float> bad = v;
    bad.pop_back();
    EXPECT_FALSE(scaled->setInnerSecondMoment(bad).ok());
    bad = v;
    bad[3] = -1e-6f;
    EXPECT_FALSE(scaled->setInnerSecondMoment(bad).ok());
    bad[3] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(scaled->setInnerSecondMoment(bad).ok());
    EXPECT_EQ(scaled->innerSecondMoment(), v);

    ASSERT_TRUE(same->setInnerSecondMoment(v).ok());
    std::vector<float> larger = v;
    for (float &x : larger)
        x *= 4.0f;
    ASSERT_TRUE(scaled->setInnerSecondMoment(larger).ok());
    EXPECT_EQ(scaled->innerSecondMoment(), larger);
    for (auto *member : {same.get(), scaled.get(), untouched.get()})
        ASSERT_TRUE(member->trainInner().ok());
    EXPECT_EQ(same->pseudoGradient(), untouched->pseudoGradient());
    EXPECT_NE(scaled->pseudoGradient(), untouched->pseudoGradient());
}

// The inner AdamW's epsilon (a benchmark's option) reaches the optimizer.
TEST_F(ReplicaTrainerTest, TheInnerEpsilonShapesTheRound)
{
    const auto firstRound = [&](double eps) {
        ReplicaOptions o = options(7);
        o.eps = eps;
        auto member = replica(o, 1, stateFile);
        EXPECT_TRUE(member->trainInner().ok());
        return member->pseudoGradient();
    };
    const std::vector<float> usual = firstRound(ReplicaOptions{}.eps);
    EXPECT_EQ(usual, firstRound(1e-8));
    EXPECT_NE(usual, firstRound(1e-2));
}

// Moment warm-up (a benchmark's option): its steps at learning rate 0 move no parameter, but the
// moments they fill change the round's updates, and a replay from the round's state repeats it.
TEST_F(ReplicaTrainerTest, MomentWarmupStepsMoveNothingButShapeTheRoundAndReplay)
{
    ReplicaOptions warm = options(7);
    warm.momentWarmupSteps = 2;
    auto member = replica(warm, 1, stateFile);
    const std::filesystem::path round1 = trainRound(*member, 1);

    auto warming = replica(warm, 1, round1);
    int asked = 0;
    ASSERT_TRUE(warming->trainInner([&] { return ++asked > 2; }).ok());
    EXPECT_EQ(warming->innerStepsDone(), 0);
    for (float v : warming->pseudoGradient())
        ASSERT_EQ(v, 0.0f);
    ASSERT_TRUE(warming->trainInner().ok());
    EXPECT_EQ(warming->innerStepsDone(), 3);
    EXPECT_EQ(warming->pseudoGradient(), member->pseudoGradient());

    auto cold = replica(options(7), 1, round1);
    ASSERT_TRUE(cold->trainInner().ok());
    EXPECT_NE(cold->pseudoGradient(), member->pseudoGradient());
}

// Stopped between steps and abandoned in the middle of one, then resumed: the same batches and
// the same result as a run that was never stopped.
TEST_F(ReplicaTrainerTest, AnInterruptedRoundEndsAsAnUninterruptedOne)
{
    auto whole = replica(7, 1);
    const std::filesystem::path round1 = trainRound(*whole, 1);

    auto stopped = replica(options(7), 1, round1);
    int asked = 0;
    ASSERT_TRUE(stopped->trainInner([&] { return ++asked > 1; }).ok());
    ASSERT_EQ(stopped->innerStepsDone(), 1);
    std::atomic<int> stages = 0;
    const Result<InnerReport> abandoned = stopped->trainInner({}, [&] { return ++stages > 3; });
    ASSERT_TRUE(abandoned.ok());
    ASSERT_TRUE(abandoned->interrupted);
    ASSERT_EQ(stopped->innerStepsDone(), 1);
    ASSERT_TRUE(stopped->trainInner().ok());
    ASSERT_EQ(stopped->innerStepsDone(), 3);
    EXPECT_EQ(stopped->pseudoGradient(), whole->pseudoGradient());
}

TEST_F(ReplicaTrainerTest, AnotherSeedGivesAnotherPseudoGradient)
{
    auto a = replica(7, 1), b = replica(8, 1); // the same tokens, another order
    ASSERT_TRUE(a->trainInner().ok());
    ASSERT_TRUE(b->trainInner().ok());
    const std::vector<float> ga = a->pseudoGradient(), gb = b->pseudoGradient();
    ASSERT_EQ(ga.size(), gb.size());
    double dot = 0.0, na = 0.0, nb = 0.0;
    for (std::size_t i = 0; i < ga.size(); ++i) {
        dot += double(ga[i]) * gb[i];
        na += double(ga[i]) * ga[i];
        nb += double(gb[i]) * gb[i];
    }
    ASSERT_GT(na * nb, 0.0);
    // Not a bit apart but another update: well outside the tolerance of a replay.
    EXPECT_LT(dot / std::sqrt(na * nb), 0.99);
}

// A time-budgeted round (issue 18) lets a peer stop after fewer steps than its cap, or run
// more than the swarm's H: with scheduleStepsPerRound = H the learning rate follows the swarm's
// clock, so a peer capped at 2H that stops after H steps in round 1 trains exactly as a peer of
// H steps; without it, the schedule counts the cap's steps a round and the update differs.
TEST_F(ReplicaTrainerTest, TheScheduleKeepsTheSwarmsClockWhateverStepsARoundRuns)
{
    auto nominal = replica(7, 1);
    ReplicaOptions capped = options(7);
    capped.innerSteps = 2 * options(7).innerSteps;
    capped.scheduleStepsPerRound = options(7).innerSteps;
    auto budgeted = replica(capped, 1, stateFile);
    ReplicaOptions unclocked = capped;
    unclocked.scheduleStepsPerRound = 0;
    auto ownClock = replica(unclocked, 1, stateFile);
    const std::int64_t h = options(7).innerSteps;
    for (int round = 0; round < 2; ++round) {
        ASSERT_TRUE(nominal->trainInner().ok());
        ASSERT_TRUE(budgeted->trainInner([&] { return budgeted->innerStepsDone() >= h; }).ok());
        ASSERT_TRUE(ownClock->trainInner([&] { return ownClock->innerStepsDone() >= h; }).ok());
        ASSERT_EQ(budgeted->innerStepsDone(), h);
        EXPECT_EQ(budgeted->pseudoGradient(), nominal->pseudoGradient()) << "round " << round;
        if (round == 1) {
            EXPECT_NE(ownClock->pseudoGradient(), nominal->pseudoGradient()) << "the cap's clock gave the same learning rates";
        }
        const std::vector<float> step = nominal->pseudoGradient();
        for (auto *r : {nominal.get(), budgeted.get(), ownClock.get()})
            ASSERT_TRUE(r->applyOuterStep(step).ok());
    }
    // Past H the budgeted peer goes on at the schedule's next steps.
    ASSERT_TRUE(budgeted->trainInner().ok());
    EXPECT_EQ(budgeted->innerStepsDone(), 2 * h);
}
