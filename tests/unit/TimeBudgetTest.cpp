// Time-budgeted rounds (issue 18), the coordinator's side: the budget it sets, the steps it
// believes, the round it starts without waiting, and the credit and weights that follow.
#include "ControlMessages.h"
#include "CoordinatorConfig.h"
#include "CoordinatorRounds.h"
#include "SqlCoordinatorStore.h"
#include "TempDir.h"

#include <QJsonDocument>

#include <gtest/gtest.h>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

// H = 100 steps of 1,000 tokens, 6,000 FLOPs a token: a step is 6e6 FLOPs.
RoundBudget budget()
{
    RoundBudget b;
    b.enabled = true;
    b.nominalSteps = 100;
    b.minSteps = 10;
    b.maxSteps = 400;
    b.tokensPerStep = 1000;
    b.flopsPerToken = 6000.0;
    return b;
}

} // namespace

TEST(RoundBudgetTest, TheBudgetIsWhatHStepsTakeTheMedianPeer)
{
    const RoundBudget b = budget();
    // Speeds 1 : 1 : 2 : 4 (tokens a second); the median is 1.5k: H steps of 1k tokens take 66.7 s.
    EXPECT_EQ(b.budgetMs({1000.0, 1000.0, 2000.0, 4000.0}), 66'667);
    EXPECT_EQ(b.budgetMs({1000.0, 5000.0, 2000.0}), 50'000) << "odd count: the middle one";
    // Peers not measured yet have no say; one absurd claim cannot drag the median far.
    EXPECT_EQ(b.budgetMs({0.0, 2000.0, std::numeric_limits<double>::quiet_NaN(), 1e30, 2000.0}), 50'000);
    EXPECT_EQ(b.budgetMs({}), 0) << "no speed known: H steps, as a fixed-H round";
    EXPECT_EQ(b.budgetMs({1e12}), b.smallestMs);
    EXPECT_EQ(b.budgetMs({1e-3}), b.largestMs);
    RoundBudget pinned = b;
    pinned.pinnedMs = 30'000;
    EXPECT_EQ(pinned.budgetMs({1000.0}), 30'000);
    RoundBudget off = b;
    off.enabled = false;
    EXPECT_EQ(off.budgetMs({1000.0}), 0);
}

TEST(RoundBudgetTest, ClaimedStepsMustFitTheCapAndWhatTheDevicesSpeedAllows)
{
    const RoundBudget b = budget();
    // 6e8 FLOPs a second measured: 100 steps a second at most, twice that with the slack, over
    // the elapsed time plus a 5 s head start.
    EXPECT_EQ(b.stepsAllowed(6e8, 0), 400) << "capped";
    EXPECT_EQ(b.stepsAllowed(6e6, 10'000), 30);
    EXPECT_EQ(b.stepsAllowed(0.0, 3'600'000), 100) << "no measured speed: nothing past H is believed";
    EXPECT_EQ(b.stepsAllowed(std::numeric_limits<double>::infinity(), 1000), 100);

    EXPECT_TRUE(b.checkSteps(30, 6e6, 10'000).ok());
    const Result<void> fast = b.checkSteps(31, 6e6, 10'000);
    ASSERT_FALSE(fast.ok());
    EXPECT_NE(fast.error().message.find("more than its measured speed allows (30)"), std::string::npos)
        << fast.error().message;
    EXPECT_NE(b.checkSteps(9, 6e8, 60'000).error().message.find("fewer than the round's minimum of 10"), std::string::npos);
    EXPECT_NE(b.checkSteps(401, 6e8, 60'000).error().message.find("more than the round's cap of 400"), std::string::npos);
    EXPECT_TRUE(b.checkSteps(100, 0.0, 0).ok()) << "H steps need no measurement";
    EXPECT_FALSE(b.checkSteps(101, 0.0, 3'600'000).ok());
}

// A peer whose measured speed cannot fit the minimum steps into the budget is a straggler: told
// so, it checks others' work instead of holding rounds up.
TEST(RoundBudgetTest, AStragglerCannotFitTheMinimumStepsIntoTheBudget)
{
    const RoundBudget b = budget(); // minimum 10 steps of 1,000 tokens
    EXPECT_FALSE(b.straggler(1000.0, 10'000)) << "exactly the minimum fits";
    EXPECT_TRUE(b.straggler(999.0, 10'000));
    EXPECT_FALSE(b.straggler(0.0, 10'000)) << "not measured yet: not judged";
    EXPECT_FALSE(b.straggler(1.0, 0)) << "no budget yet: H steps, no one is too slow";
    RoundBudget off = b;
    off.enabled = false;
    EXPECT_FALSE(off.straggler(1.0, 10'000));
}

TEST(RoundBudgetTest, TheCoordinatorsFlagsChooseTheRounds)
{
    const std::vector<std::string> base = {"--state-dir", "/tmp/x", "--data", "/tmp/d", "--inner-steps", "80"};
    Result<CoordinatorConfig> byDefault = parseCoordinatorArguments(base);
    ASSERT_TRUE(byDefault.ok()) << byDefault.error().message;
    EXPECT_TRUE(byDefault->training.timeBudgeted) << "time-budgeted rounds are the default";
    EXPECT_EQ(byDefault->training.minInnerSteps, 10);
    EXPECT_EQ(byDefault->training.maxInnerSteps, 320);
    EXPECT_EQ(byDefault->roundSeconds, 0.0);

    std::vector<std::string> fixed = base;
    fixed.insert(fixed.end(), {"--rounds", "fixed"});
    EXPECT_FALSE(parseCoordinatorArguments(fixed)->training.timeBudgeted);
    EXPECT_EQ(parseCoordinatorArguments(fixed)->training.stepCap(), 80);

    std::vector<std::string> pinned = base;
    pinned.insert(pinned.end(), {"--round-seconds", "12.5", "--min-inner-steps", "4", "--max-inner-steps", "100"});
    Result<CoordinatorConfig> set = parseCoordinatorArguments(pinned);
    ASSERT_TRUE(set.ok()) << set.error().message;
    EXPECT_EQ(set->roundSeconds, 12.5);
    EXPECT_EQ(set->training.stepCap(), 100);

    for (const std::vector<std::string> &bad : {std::vector<std::string>{"--rounds", "sometimes"},
                                                std::vector<std::string>{"--min-inner-steps", "81"},
                                                std::vector<std::string>{"--max-inner-steps", "79"},
                                                std::vector<std::string>{"--round-seconds", "-1"}}) {
        std::vector<std::string> args = base;
        args.insert(args.end(), bad.begin(), bad.end());
        EXPECT_FALSE(parseCoordinatorArguments(args).ok()) << bad[0] << " " << bad[1];
    }
}

namespace {

class BudgetedRoundsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        settings.parameterCount = 1000;
        settings.heartbeatIntervalMs = 1000;
        settings.gatherTimeoutMs = 600'000; // never what a budgeted round waits for
        settings.roundDeadlineMs = 60'000;
        settings.minPeers = 2;
        settings.work.tokensPerMember = 100'000;
        settings.budget = budget();
        settings.budget.pinnedMs = 20'000;
        store = std::move(SqlCoordinatorStore::openSqlite(dir.path() / "c.db")).value();
        rounds = std::make_unique<CoordinatorRounds>(*store, settings, [this]() { return now; });
        ASSERT_TRUE(rounds->initialize(0).ok());
        holdState(0);
    }

    // The coordinator holds state `round` (a round starts only from a state it holds).
    void holdState(qint64 round)
    {
        const QString name = QStringLiteral("round-%1.safetensors").arg(round);
        ASSERT_TRUE(store->addCheckpoint({round, name, QString(64, QLatin1Char('c')), 1, QString(64, QLatin1Char('a')), std::nullopt}).ok());
    }

    // A peer whose device measured `flops` a second, in `state` on state `base` after `steps` steps.
    void beat(const QString &keyId, const QString &state, qint64 steps, double flops = 6e8, qint64 base = 0)
    {
        PeerRecord peer;
        if (Result<std::optional<PeerRecord>> known = store->peer(keyId); known && *known) {
            peer = **known;
        } else {
            peer.keyId = keyId;
            peer.reachable = true;
            peer.ordinal = qint64(store->peers()->size());
            DeviceReport device;
            device.kind = QStringLiteral("cpu");
            device.flopsPerSecond = flops;
            peer.deviceJson = QJsonDocument(device.toJson()).toJson(QJsonDocument::Compact);
        }
        peer.state = state;
        peer.baseRound = base;
        peer.innerSteps = steps;
        peer.lastSeenMs = now;
        ASSERT_TRUE(store->savePeer(peer).ok());
    }

    Result<ContributionVerdict> report(const QString &keyId, qint64 round = 0)
    {
        ContributionRecord c;
        c.round = round;
        c.keyId = keyId;
        c.tokens = 1; // what it claims is not what it is credited
        c.paramsHash = QString(64, QLatin1Char('a'));
        return rounds->contribute(c);
    }

    RoundRecord current() { return rounds->current().value(); }

    // The current round runs with `keyId` alone, trained `staleness` rounds back for `steps` steps.
    void expectRunsAlone(const QString &keyId, qint64 staleness, qint64 steps)
    {
        const RoundRecord round = current();
        ASSERT_EQ(round.state, RoundState::Running);
        ASSERT_EQ(round.members.size(), 1u);
        EXPECT_EQ(round.members[0].keyId, keyId);
        EXPECT_EQ(round.members[0].staleness, staleness);
        EXPECT_EQ(round.members[0].steps, steps);
    }

    TempDir dir;
    RoundSettings settings;
    std::unique_ptr<SqlCoordinatorStore> store;
    std::unique_ptr<CoordinatorRounds> rounds;
    qint64 now = 1'000'000;
};

} // namespace

// Speeds 1 : 2 : 4: each trains what fits the budget and says ready; the round takes each with
// its steps, which weigh its piece and its credit.
TEST_F(BudgetedRoundsTest, EachMemberCountsByTheStepsItFittedIntoTheBudget)
{
    EXPECT_EQ(rounds->budgetMs(), 20'000);
    now += 20'000;
    beat(QStringLiteral("slow"), QStringLiteral("ready"), 50);
    beat(QStringLiteral("mid"), QStringLiteral("ready"), 100);
    beat(QStringLiteral("fast"), QStringLiteral("ready"), 200);
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord round = current();
    ASSERT_EQ(round.state, RoundState::Running);
    ASSERT_EQ(round.members.size(), 3u);
    EXPECT_EQ(round.members[0].steps, 50);
    EXPECT_EQ(round.members[1].steps, 100);
    EXPECT_EQ(round.members[2].steps, 200);
    EXPECT_EQ(round.scheduleAdvance, 117) << "the inner schedule counts the swarm's tokens: 350 steps over 3 peers";
    for (const char *name : {"slow", "mid", "fast"})
        ASSERT_TRUE(report(QString::fromLatin1(name)).ok());
    Result<std::vector<ContributionRecord>> verdicts = store->contributions(0, 0);
    ASSERT_TRUE(verdicts.ok());
    ASSERT_EQ(verdicts->size(), 3u);
    for (const ContributionRecord &c : *verdicts) {
        const qint64 steps = c.keyId == QStringLiteral("slow") ? 50 : c.keyId == QStringLiteral("mid") ? 100 : 200;
        EXPECT_EQ(c.tokens, steps * 1000) << c.keyId.toStdString();
        EXPECT_DOUBLE_EQ(c.credit, double(steps * 1000) * settings.creditPerToken) << c.keyId.toStdString();
    }
}

// A member still training when the budget and its grace are spent is not waited for (a paused
// one never was), nor is one below the minimum or one claiming more than its device can do.
TEST_F(BudgetedRoundsTest, NoRoundWaitsPastItsBudgetForASlowPausedOrLyingPeer)
{
    beat(QStringLiteral("a"), QStringLiteral("ready"), 120);
    beat(QStringLiteral("b"), QStringLiteral("ready"), 90);
    beat(QStringLiteral("late"), QStringLiteral("training"), 40);
    beat(QStringLiteral("gamer"), QStringLiteral("paused"), 30);
    beat(QStringLiteral("straggler"), QStringLiteral("ready"), 9);
    beat(QStringLiteral("liar"), QStringLiteral("ready"), 400, 6e6); // 6e6 FLOPs/s: one step a second
    // Time passes; every one of them heartbeats as it was.
    const auto later = [&](qint64 ms) {
        now += ms;
        for (const char *name : {"a", "b", "late", "gamer", "straggler", "liar"}) {
            const PeerRecord peer = store->peer(QString::fromLatin1(name))->value();
            beat(peer.keyId, peer.state, peer.innerSteps);
        }
        ASSERT_TRUE(rounds->advance().ok());
    };
    later(20'000); // the budget: "late" still trains
    EXPECT_EQ(current().state, RoundState::Gathering) << "within the grace, a member still training is waited for";
    later(4'000); // the grace: a fifth of the budget
    const RoundRecord round = current();
    ASSERT_EQ(round.state, RoundState::Running) << "held past its budget";
    ASSERT_EQ(round.members.size(), 2u);
    EXPECT_EQ(round.members[0].keyId, QStringLiteral("a"));
    EXPECT_EQ(round.members[1].keyId, QStringLiteral("b"));
}

// Everyone the round would take is ready: it starts at once, budget or not. Nor does it wait for
// a peer sitting rounds out (a straggler, heartbeat "idle").
TEST_F(BudgetedRoundsTest, ARoundStartsAsSoonAsEveryoneItWaitsForIsReady)
{
    beat(QStringLiteral("a"), QStringLiteral("ready"), 100);
    beat(QStringLiteral("b"), QStringLiteral("ready"), 100);
    beat(QStringLiteral("straggler"), QStringLiteral("ready"), 3);
    beat(QStringLiteral("gamer"), QStringLiteral("paused"), 50);
    beat(QStringLiteral("slowpoke"), QStringLiteral("idle"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    EXPECT_EQ(current().members.size(), 2u);
    EXPECT_TRUE(rounds->isStraggler(400.0)) << "400 tokens/s x 20 s < 10 steps of 1,000";
    EXPECT_FALSE(rounds->isStraggler(600.0));
}

// Asynchronous rounds (issue 18, --rounds async): the first peer ready waits a short window for
// others finishing with it, never for one still training or checking others' work; the round's update is scaled by its
// members' share of the swarm's work (the steps the others will bring counted at H while their
// speed is unknown).
TEST_F(BudgetedRoundsTest, AnAsynchronousRoundWaitsForNoOneStillTraining)
{
    settings.budget.async = true;
    settings.minPeers = 1;
    rounds = std::make_unique<CoordinatorRounds>(*store, settings, [this]() { return now; });
    EXPECT_EQ(settings.budget.asyncWindowMs(20'000), 500);
    beat(QStringLiteral("fast"), QStringLiteral("ready"), 200);
    beat(QStringLiteral("slow"), QStringLiteral("training"), 30);
    beat(QStringLiteral("gamer"), QStringLiteral("paused"), 30);
    // A verifier checking a newcomer's work holds a budgeted round, not an asynchronous one.
    beat(QStringLiteral("verifier"), QStringLiteral("verifying"), 0);
    rounds->holdGathering(QStringLiteral("verifier"), now + 600'000);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering) << "the window for others finishing now";
    now += 499;
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering);
    now += 1;
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord round = current();
    ASSERT_EQ(round.state, RoundState::Running) << "waited for a peer still training";
    ASSERT_EQ(round.members.size(), 1u);
    EXPECT_EQ(round.members[0].keyId, QStringLiteral("fast"));
    EXPECT_EQ(round.members[0].staleness, 0);
    EXPECT_DOUBLE_EQ(round.share, 200.0 / 300.0) << "200 steps here, H = 100 to come from the one training";
    EXPECT_EQ(round.scheduleAdvance, 100) << "200 steps over the 2 peers of the swarm that train";
    EXPECT_DOUBLE_EQ(store->round(0)->value().share, round.share) << "kept with the round";
}

// An asynchronous round takes a member that trained on an older state, within --max-staleness
// and once the round's own state is served (the member fetches it to apply the round's step);
// its speed is judged over the time since its state's round began gathering. A claim of a state
// beyond the round's, or too old, is not taken.
TEST_F(BudgetedRoundsTest, AnAsynchronousRoundTakesAStaleMemberOnlyWithinTheBoundAndTheServedState)
{
    settings.budget.async = true;
    settings.budget.maxStaleness = 4;
    settings.minPeers = 1;
    store = std::move(SqlCoordinatorStore::openSqlite(dir.path() / "async.db")).value();
    rounds = std::make_unique<CoordinatorRounds>(*store, settings, [this]() { return now; });
    ASSERT_TRUE(rounds->initialize(10).ok());
    // Rounds 7..9 are done; round 10 began gathering now. 6e6 FLOPs/s: one step a second.
    for (qint64 r = 5; r < 10; ++r) {
        RoundRecord done;
        done.number = r;
        done.state = RoundState::Done;
        done.gatheringSinceMs = now - (10 - r) * 30'000;
        ASSERT_TRUE(store->saveRound(done).ok());
    }
    RoundRecord gathering = current();
    gathering.gatheringSinceMs = now;
    ASSERT_TRUE(store->saveRound(gathering).ok());
    beat(QStringLiteral("stale"), QStringLiteral("ready"), 60, 6e6, 8);     // 2 rounds old, 60 s to train
    beat(QStringLiteral("tooOld"), QStringLiteral("ready"), 50, 6e8, 5);    // 5 rounds old
    beat(QStringLiteral("future"), QStringLiteral("ready"), 50, 6e8, 11);   // a state not made yet
    beat(QStringLiteral("liar"), QStringLiteral("ready"), 200, 6e6, 9);     // 30 s at one step a second
    now += 1'000;
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering) << "stale members before state 10 is served";

    CheckpointRecord served;
    served.round = 10;
    served.fileName = QStringLiteral("state-10.safetensors");
    served.sha256 = QString(64, QLatin1Char('b'));
    ASSERT_TRUE(store->addCheckpoint(served).ok());
    ASSERT_TRUE(rounds->advance().ok());
    now += 1'000;
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_NO_FATAL_FAILURE(expectRunsAlone(QStringLiteral("stale"), 2, 60));
    // Its report counts like anyone's: the steps admitted, not what it says.
    ASSERT_TRUE(report(QStringLiteral("stale"), 10).ok());
    const std::vector<ContributionRecord> verdicts = store->contributions(10, 0).value();
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_EQ(verdicts[0].tokens, 60 * 1000);
}

// The "ready" that made a peer a member is spent once its round is done: until it heartbeats again
// it counts as training on the state after the round. Otherwise the next asynchronous round took
// it again as a stale member, with that work's steps and base, and a spot check of the new
// round replayed steps it never ran from a state it did not train on (an honest peer refuted).
TEST_F(BudgetedRoundsTest, AnAsynchronousRoundDoesNotTakeAMembersSpentReadinessAgain)
{
    settings.budget.async = true;
    settings.minPeers = 1;
    store = std::move(SqlCoordinatorStore::openSqlite(dir.path() / "spent.db")).value();
    rounds = std::make_unique<CoordinatorRounds>(*store, settings, [this]() { return now; });
    ASSERT_TRUE(rounds->initialize(0).ok());
    holdState(0);
    beat(QStringLiteral("a"), QStringLiteral("ready"), 100);
    beat(QStringLiteral("b"), QStringLiteral("ready"), 100);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    ASSERT_EQ(current().members.size(), 2u);
    ASSERT_TRUE(report(QStringLiteral("a")).ok());
    ASSERT_TRUE(report(QStringLiteral("b")).ok());
    holdState(1);
    now += 1'000;
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().number, 1);
    EXPECT_EQ(current().state, RoundState::Gathering) << "taken again on the work of round 0";
    const PeerRecord a = store->peer(QStringLiteral("a"))->value();
    EXPECT_EQ(a.state, QStringLiteral("training"));
    EXPECT_EQ(a.baseRound, 1);
    EXPECT_EQ(a.innerSteps, 0);

    // What it says next stands: ready on state 1 after 80 steps.
    beat(QStringLiteral("a"), QStringLiteral("ready"), 80, 6e8, 1);
    ASSERT_TRUE(rounds->advance().ok());
    now += settings.budget.pinnedMs / 40; // the window for others finishing
    beat(QStringLiteral("a"), QStringLiteral("ready"), 80, 6e8, 1);
    ASSERT_TRUE(rounds->advance().ok());
    expectRunsAlone(QStringLiteral("a"), 0, 80);
}

// The steps a peer brings from a budget, by its measured speed (an asynchronous round's share).
TEST(RoundBudgetTest, APeersExpectedStepsFollowItsSpeedWithinTheMinimumAndTheCap)
{
    RoundBudget b = budget();
    EXPECT_EQ(b.expectedSteps(0.0, 20'000), 100) << "speed unknown: H";
    EXPECT_EQ(b.expectedSteps(5'000.0, 20'000), 100) << "5 steps a second for 20 s";
    EXPECT_EQ(b.expectedSteps(100.0, 20'000), 10) << "the minimum";
    EXPECT_EQ(b.expectedSteps(1e9, 20'000), 400) << "the cap";
    EXPECT_EQ(b.expectedSteps(5'000.0, 0), 100) << "budget unknown: H";
}
