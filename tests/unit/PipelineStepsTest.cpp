// PipelineSteps (issue 17), the coordinator's side of pipeline-stage mode, on a real SQLite store
// with a clock the test moves: placement, the phases of a step, agreement on hashes, resyncs,
// offline members, reports that cannot be true, a stage left empty, and a restart mid-step.
#include "PipelineSteps.h"
#include "SqlCoordinatorStore.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <memory>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

QString hashOf(char c) { return QString(64, QLatin1Char(c)); }

class PipelineStepsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        options.settings.stages = 3;
        options.settings.microbatchesPerStep = 4;
        options.stageCosts = {1.0, 1.0, 1.0};
        options.minPeers = 3;
        options.restartGraceMs = 0;
        options.rebalanceEveryMs = 1'000'000'000; // moves only for an empty stage, unless a test says so
        reopen();
    }

    void reopen()
    {
        steps.reset();
        store.reset();
        store = std::move(SqlCoordinatorStore::openSqlite(dir.path() / "c.db")).value();
        steps = std::make_unique<PipelineSteps>(
            *store, [this](const PeerRecord &peer) { return now - peer.lastSeenMs <= 3000; }, [this] { return now; });
        ASSERT_TRUE(steps->start(options).ok());
    }

    void addPeer(const QString &id)
    {
        PeerRecord peer;
        peer.keyId = id;
        peer.publicKey = QByteArray(32, 'k');
        peer.endpoint = QStringLiteral("127.0.0.1:1");
        peer.reachable = true;
        peer.ordinal = qint64(store->peers()->size());
        peer.lastSeenMs = now;
        ASSERT_TRUE(store->savePeer(peer).ok());
    }

    // A request from `id` as POST /v1/pipeline makes it: seen now, then handled.
    PipelineAnswer poll(const QString &id, PipelineRequest request)
    {
        EXPECT_TRUE(store->recordHeartbeat(id, QStringLiteral("training"), {}, 0.0, -1, 0, now).ok());
        Result<PipelineAnswer> answer = steps->handle(store->peer(id).value().value(), request);
        EXPECT_TRUE(answer.ok()) << (answer ? "" : answer.error().message);
        return answer ? *answer : PipelineAnswer{};
    }

    // What a peer holding `stage` at `hash` after `stateSteps` steps says, with no report.
    static PipelineRequest holding(int stage, const QString &hash, qint64 stateSteps = 0)
    {
        PipelineRequest r;
        r.stage = stage;
        r.hash = hash;
        r.stateSteps = stateSteps;
        return r;
    }

    static PipelineRequest report(PipelineRequest r, qint64 step, const QString &kind, int microbatches = 0)
    {
        r.step = step;
        r.report = kind;
        r.microbatches = microbatches;
        return r;
    }

    // Three peers placed on stages 0, 1, 2, each holding its fresh stage: step 0 opens.
    void threeFreshPeers()
    {
        for (const QString &id : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
            addPeer(id);
            EXPECT_EQ(poll(id, PipelineRequest{}).stage, int(id.at(0).unicode() - 'a'));
        }
        poll(QStringLiteral("a"), holding(0, hashOf('0')));
        poll(QStringLiteral("b"), holding(1, hashOf('1')));
        poll(QStringLiteral("c"), holding(2, hashOf('2')));
    }

    // Five peers: a and d on stage 0 (the trainers), b and e on stage 1, c on stage 2, each
    // holding its fresh stage, so step 0 opens (--min-peers 5).
    void fivePeers()
    {
        options.minPeers = 5;
        ASSERT_NO_FATAL_FAILURE(reopen());
        const QStringList ids{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d"), QStringLiteral("e")};
        const int stageOf[] = {0, 1, 2, 0, 1}; // each to the stage with the least capacity, the first of equals
        for (qsizetype i = 0; i < ids.size(); ++i) {
            addPeer(ids[i]);
            ASSERT_EQ(poll(ids[i], PipelineRequest{}).stage, stageOf[i]);
        }
        for (qsizetype i = 0; i < ids.size(); ++i)
            poll(ids[i], holding(stageOf[i], hashOf(char('0' + stageOf[i]))));
    }

    // Runs the open step with every member reporting, stage s ending at `after[s]`.
    void runStep(qint64 step, const std::vector<QString> &after)
    {
        poll(QStringLiteral("a"), report(holding(0, hashOf('0')), step, QStringLiteral("closed"), 4));
        for (const QString &id : {QStringLiteral("b"), QStringLiteral("c")})
            poll(id, report(holding(id == QLatin1StringView("b") ? 1 : 2, {}), step, QStringLiteral("ready")));
        const QString ids[] = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
        for (int s = 0; s < 3; ++s)
            poll(ids[s], report(holding(s, after[std::size_t(s)], step + 1), step, QStringLiteral("stepped"), 4));
    }

    TempDir dir;
    qint64 now = 1'000'000;
    PipelineStepsOptions options;
    std::unique_ptr<SqlCoordinatorStore> store;
    std::unique_ptr<PipelineSteps> steps;
};

} // namespace

TEST_F(PipelineStepsTest, PlacesPeersAndOpensTheFirstStepOnceEveryStageHoldsItsState)
{
    addPeer(QStringLiteral("a"));
    addPeer(QStringLiteral("b"));
    EXPECT_EQ(poll(QStringLiteral("a"), PipelineRequest{}).stage, 0);
    const PipelineAnswer second = poll(QStringLiteral("b"), holding(-1, {}));
    EXPECT_EQ(second.stage, 1);
    EXPECT_EQ(second.phase, QStringLiteral("waiting"));
    threeFreshPeers();
    const PipelineAnswer trainer = poll(QStringLiteral("a"), holding(0, hashOf('0')));
    EXPECT_EQ(trainer.phase, QStringLiteral("training"));
    EXPECT_TRUE(trainer.member);
    EXPECT_EQ(trainer.share, 4); // the only trainer drives the whole step
    EXPECT_EQ(trainer.peers.size(), 3u);
}

TEST_F(PipelineStepsTest, AStepGoesThroughItsPhasesAndRecordsItsCounts)
{
    threeFreshPeers();
    runStep(0, {hashOf('3'), hashOf('4'), hashOf('5')});
    const PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].issued, 4);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4}));
    EXPECT_TRUE(status.history[0].agreed);
    // The peers hold the agreed states: step 1 opens with all three.
    poll(QStringLiteral("b"), holding(1, hashOf('4'), 1));
    poll(QStringLiteral("c"), holding(2, hashOf('5'), 1));
    const PipelineAnswer next = poll(QStringLiteral("a"), holding(0, hashOf('3'), 1));
    EXPECT_EQ(next.step, 1);
    EXPECT_EQ(next.phase, QStringLiteral("training"));
}

TEST_F(PipelineStepsTest, ADisagreeingReplicaSitsOutAndResyncsFromAnAgreeingOne)
{
    threeFreshPeers();
    addPeer(QStringLiteral("d")); // placed on stage 0 or 1 or 2: the first with the least capacity
    const int dStage = poll(QStringLiteral("d"), PipelineRequest{}).stage;
    ASSERT_EQ(dStage, 0);
    // d holds its fresh stage too late for step 0, and steps with nobody.
    runStep(0, {hashOf('3'), hashOf('4'), hashOf('5')});
    const PipelineAnswer d = poll(QStringLiteral("d"), holding(0, hashOf('0')));
    EXPECT_FALSE(d.member);
    EXPECT_EQ(d.resyncFrom, QStringLiteral("a")); // the stage's agreed state is a's
}

TEST_F(PipelineStepsTest, ReportsThatCannotBeTrueChangeNothing)
{
    threeFreshPeers();
    // More microbatches than the trainer's share, a report of another step, a stage peer
    // claiming a trainer's close: none is taken, the step stays in training.
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 1000));
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 7, QStringLiteral("closed"), 4));
    EXPECT_EQ(poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("closed"), 4)).phase,
              QStringLiteral("training"));
    // A stranger's report about the step is ignored.
    addPeer(QStringLiteral("x"));
    poll(QStringLiteral("x"), report(holding(-1, {}), 0, QStringLiteral("stepped"), 4));
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 4));
    poll(QStringLiteral("b"), report(holding(1, {}), 0, QStringLiteral("ready")));
    poll(QStringLiteral("c"), report(holding(2, {}), 0, QStringLiteral("ready")));
    // A step that counts more microbatches than the trainers closed is not taken either.
    EXPECT_EQ(poll(QStringLiteral("b"), report(holding(1, hashOf('4'), 1), 0, QStringLiteral("stepped"), 5)).phase,
              QStringLiteral("stepping"));
    EXPECT_TRUE(steps->status().history.empty());
}

TEST_F(PipelineStepsTest, AnOfflineMemberIsLeftOutOfThePhaseItHoldsUp)
{
    ASSERT_NO_FATAL_FAILURE(fivePeers());
    const PipelineAnswer a = poll(QStringLiteral("a"), holding(0, hashOf('0')));
    ASSERT_EQ(a.phase, QStringLiteral("training"));
    EXPECT_EQ(a.share, 2); // two trainers share the step's four microbatches
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("d"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 2));
    // e never says: the closing waits for it while it is online...
    EXPECT_EQ(poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4)).phase,
              QStringLiteral("closing"));
    // ...and once it is not, for its work to be replayed on b: the stage's counts add up to the
    // step's four microbatches then.
    now += 5000;
    poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4));
    EXPECT_EQ(poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 2)).phase,
              QStringLiteral("closing"));
    const PipelineAnswer b = poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 4));
    EXPECT_EQ(b.phase, QStringLiteral("stepping"));
    EXPECT_EQ(b.group, QStringList{QStringLiteral("b")});
    EXPECT_EQ(b.microbatches, 4);
}

// A member online that never says it holds the step's work (too busy to answer, or it missed a
// trainer's close), or that says it cannot, must not take its confirmed microbatches out of the
// step: it sits the step out, the trainers are told to replay its work, and its stage steps once
// its ready members hold all of the step's microbatches.
TEST_F(PipelineStepsTest, AMemberThatDoesNotSayReadyHasItsWorkReplayedOnItsStage)
{
    ASSERT_NO_FATAL_FAILURE(fivePeers());
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("d"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 3));
    poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4));
    // e stays online and says nothing, past the close timeout.
    const auto everyone = [&] {
        for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
            poll(id, report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
        poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 3));
        poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4));
        return poll(QStringLiteral("e"), holding(1, hashOf('1')));
    };
    for (qint64 waited = 2000; waited <= options.closeTimeoutMs; waited += 2000) {
        now += 2000;
        const PipelineAnswer e = everyone();
        ASSERT_EQ(e.phase, QStringLiteral("closing"));
        ASSERT_TRUE(e.leftOut.isEmpty()) << "left out after " << waited << " ms";
    }
    now += 2000;
    PipelineAnswer a = poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    ASSERT_EQ(a.phase, QStringLiteral("closing")) << "stage 1 holds 3 of the step's 4 microbatches";
    EXPECT_EQ(a.leftOut, QStringList{QStringLiteral("e")});
    // Its late "ready" does not bring it back (its work is being replayed elsewhere).
    poll(QStringLiteral("e"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 1));
    EXPECT_EQ(poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 3)).phase,
              QStringLiteral("closing"));
    // The replay lands on b.
    const PipelineAnswer b = poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 4));
    ASSERT_EQ(b.phase, QStringLiteral("stepping"));
    EXPECT_EQ(b.group, QStringList{QStringLiteral("b")});
    EXPECT_TRUE(b.leftOut.isEmpty()) << "said while closing only";
    EXPECT_TRUE(poll(QStringLiteral("e"), holding(1, hashOf('1'))).group.isEmpty());

    // Step 1: e says "unready" at once. The stage waits for b to hold the whole step.
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        poll(id, report(holding(0, hashOf('5'), 1), 0, QStringLiteral("stepped"), 2));
    poll(QStringLiteral("c"), report(holding(2, hashOf('7'), 1), 0, QStringLiteral("stepped"), 4));
    poll(QStringLiteral("e"), holding(1, hashOf('6'), 1)); // it took b's new state (a resync)
    poll(QStringLiteral("b"), report(holding(1, hashOf('6'), 1), 0, QStringLiteral("stepped"), 4));
    const PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4})) << "a microbatch lost or counted twice";
    ASSERT_EQ(poll(QStringLiteral("a"), holding(0, hashOf('5'), 1)).phase, QStringLiteral("training"));
    poll(QStringLiteral("a"), report(holding(0, hashOf('5'), 1), 1, QStringLiteral("closed"), 2));
    poll(QStringLiteral("d"), report(holding(0, hashOf('5'), 1), 1, QStringLiteral("closed"), 2));
    poll(QStringLiteral("c"), report(holding(2, hashOf('7'), 1), 1, QStringLiteral("ready"), 4));
    poll(QStringLiteral("b"), report(holding(1, hashOf('6'), 1), 1, QStringLiteral("ready"), 2));
    a = poll(QStringLiteral("e"), report(holding(1, hashOf('6'), 1), 1, QStringLiteral("unready")));
    ASSERT_EQ(a.phase, QStringLiteral("closing")) << "b holds 2 of the step's 4 microbatches";
    EXPECT_EQ(a.leftOut, QStringList{QStringLiteral("e")});
    ASSERT_EQ(poll(QStringLiteral("b"), report(holding(1, hashOf('6'), 1), 1, QStringLiteral("ready"), 4)).phase,
              QStringLiteral("stepping"));
}

TEST_F(PipelineStepsTest, AStageLeftWithNoPeerGetsOneAtOnce)
{
    threeFreshPeers();
    addPeer(QStringLiteral("d"));
    ASSERT_EQ(poll(QStringLiteral("d"), PipelineRequest{}).stage, 0);
    runStep(0, {hashOf('3'), hashOf('4'), hashOf('5')});
    // c, stage 2's only peer, goes away in step 1.
    now += 5000;
    poll(QStringLiteral("a"), report(holding(0, hashOf('3'), 1), 1, QStringLiteral("closed"), 4));
    poll(QStringLiteral("b"), report(holding(1, hashOf('4'), 1), 1, QStringLiteral("ready")));
    poll(QStringLiteral("d"), PipelineRequest{});
    // Without the last stage the tied group cannot step; stage 1 steps alone.
    const PipelineAnswer stepping = poll(QStringLiteral("b"), holding(1, hashOf('4'), 1));
    ASSERT_EQ(stepping.phase, QStringLiteral("stepping"));
    EXPECT_EQ(stepping.group, QStringList{QStringLiteral("b")});
    poll(QStringLiteral("b"), report(holding(1, hashOf('6'), 2), 1, QStringLiteral("stepped"), 4));
    // The next step finds stage 2 empty and moves one of stage 0's two peers there at once.
    const PipelineAnswer d = poll(QStringLiteral("d"), PipelineRequest{});
    const PipelineAnswer a = poll(QStringLiteral("a"), holding(0, hashOf('3'), 1));
    ASSERT_TRUE((d.stage == 2) != (a.stage == 2)) << "d at " << d.stage << ", a at " << a.stage;
    const PipelineStatus status = steps->status();
    EXPECT_EQ(status.history.back().applied, (std::vector<int>{0, 4, 0})); // what step 1 counted, honestly
    if (d.stage == 2) {
        // No online peer holds stage 2's state any more: it goes on from the moved peer's.
        EXPECT_EQ(poll(QStringLiteral("d"), holding(2, hashOf('9'))).phase, QStringLiteral("training"));
    }
}

TEST_F(PipelineStepsTest, ARestartedCoordinatorCarriesOnTheOpenStep)
{
    threeFreshPeers();
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 4));
    poll(QStringLiteral("b"), report(holding(1, {}), 0, QStringLiteral("ready")));
    ASSERT_NO_FATAL_FAILURE(reopen());
    // The placement and the step's reports survived: c's ready report finishes the closing.
    EXPECT_EQ(poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"))).phase,
              QStringLiteral("stepping"));
    for (const auto &[id, stage] : {std::pair{QStringLiteral("a"), 0}, std::pair{QStringLiteral("b"), 1}, std::pair{QStringLiteral("c"), 2}})
        poll(id, report(holding(stage, hashOf(char('3' + stage)), 1), 0, QStringLiteral("stepped"), 4));
    ASSERT_NO_FATAL_FAILURE(reopen());
    const PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4}));
    EXPECT_EQ(status.step, 1);
}

TEST_F(PipelineStepsTest, AStoreWithAnotherStageCountIsRefused)
{
    threeFreshPeers();
    options.settings.stages = 2;
    options.stageCosts = {1.0, 1.0};
    steps.reset();
    steps = std::make_unique<PipelineSteps>(*store, [](const PeerRecord &) { return true; }, [this] { return now; });
    const Result<void> started = steps->start(options);
    ASSERT_FALSE(started.ok());
    EXPECT_NE(started.error().message.find("--stages"), std::string::npos);
}

// A lying range owner in a stage group of three: its checker disputes it each step, it disputes
// its checker back, and the partners rotate; after two steps it has two distinct dispute
// partners, each of them only it, and it is named. A dispute naming anyone but the reporter's
// range partner of that step (here: a peer of another group) counts for nothing.
TEST_F(PipelineStepsTest, ALyingOwnerOfAStageGroupIsNamedOnceItsPartnersRotateAcrossARestart)
{
    options.placeHints = {{QStringLiteral("a"), 0}, {QStringLiteral("b"), 1}, {QStringLiteral("d"), 1},
                          {QStringLiteral("e"), 1}, {QStringLiteral("c"), 2}};
    options.minPeers = 5; // no stage is filled from another while they come
    reopen();
    std::vector<QString> named;
    steps->setOnLyingOwner([&](const QString &keyId, const QString &) { named.push_back(keyId); });
    const std::vector<std::pair<QString, int>> peers{{QStringLiteral("a"), 0}, {QStringLiteral("b"), 1}, {QStringLiteral("d"), 1},
                                                     {QStringLiteral("e"), 1}, {QStringLiteral("c"), 2}};
    for (const auto &[id, stage] : peers) {
        addPeer(id);
        EXPECT_EQ(poll(id, PipelineRequest{}).stage, stage) << id.toStdString();
    }
    const auto stageHash = [](int stage, qint64 steps) { return hashOf(char('0' + stage + 3 * int(steps))); };
    // The middle group is [b, d, e] (its ready members, in order): in step 0's round e checks b's
    // range, in step 1's d does.
    const std::map<QString, QStringList> disputesByStep[2] = {
        {{QStringLiteral("b"), {QStringLiteral("e")}}, {QStringLiteral("e"), {QStringLiteral("b")}}, {QStringLiteral("c"), {QStringLiteral("d")}}},
        {{QStringLiteral("b"), {QStringLiteral("d")}}, {QStringLiteral("d"), {QStringLiteral("b")}}},
    };
    for (qint64 step = 0; step < 2; ++step) {
        for (const auto &[id, stage] : peers)
            poll(id, holding(stage, stageHash(stage, step), step));
        ASSERT_EQ(poll(QStringLiteral("a"), holding(0, stageHash(0, step), step)).phase, QStringLiteral("training"));
        poll(QStringLiteral("a"), report(holding(0, stageHash(0, step), step), step, QStringLiteral("closed"), 4));
        for (const auto &[id, stage] : peers) {
            if (stage > 0)
                poll(id, report(holding(stage, stageHash(stage, step), step), step, QStringLiteral("ready")));
        }
        const std::map<QString, QStringList> &disputes = disputesByStep[step];
        for (const auto &[id, stage] : peers) {
            PipelineRequest stepped = report(holding(stage, stageHash(stage, step + 1), step + 1), step, QStringLiteral("stepped"),
                                             stage == 1 ? 1 : 4);
            if (const auto found = disputes.find(id); found != disputes.end())
                stepped.disputed = found->second;
            poll(id, stepped);
        }
        ASSERT_EQ(steps->status().history.size(), std::size_t(step + 1));
        EXPECT_EQ(named, step == 0 ? std::vector<QString>{} : std::vector<QString>{QStringLiteral("b")}) << "after step " << step;
        // The coordinator restarts between the two steps: the window of disputes is in the store.
        reopen();
        steps->setOnLyingOwner([&](const QString &keyId, const QString &) { named.push_back(keyId); });
    }
}

// A middle replica vanishes during its stage's all-reduce: the survivor, missing its work, applies
// nothing and says "incomplete". The coordinator sends that stage (only) back to closing for a
// second attempt, waits for the trainers' replays to bring the survivor's count up to the step's
// microbatches, and steps it again: every stage then counts the step's microbatches once. The
// tied group, which stepped, is not asked to step again; the attempt survives a restart; reports
// on the abandoned attempt are ignored; and a second attempt that is incomplete too ends the step.
TEST_F(PipelineStepsTest, AGroupThatLostAMemberDuringItsAllReduceStepsAgainOnceItsWorkIsReplayed)
{
    ASSERT_NO_FATAL_FAILURE(fivePeers());
    const auto say = [&](const QString &id, int stage, const QString &kind, int microbatches, int attempt = 0,
                         const QString &hash = {}) {
        PipelineRequest r = report(holding(stage, hash.isEmpty() ? hashOf(char('0' + stage)) : hash, hash.isEmpty() ? 0 : 1),
                                   0, kind, microbatches);
        r.attempt = attempt;
        return poll(id, r);
    };
    say(QStringLiteral("a"), 0, QStringLiteral("closed"), 2);
    say(QStringLiteral("d"), 0, QStringLiteral("closed"), 2);
    say(QStringLiteral("b"), 1, QStringLiteral("ready"), 2);
    say(QStringLiteral("e"), 1, QStringLiteral("ready"), 2);
    ASSERT_EQ(say(QStringLiteral("c"), 2, QStringLiteral("ready"), 4).phase, QStringLiteral("stepping"));
    // The tied group steps; b's all-reduce lost e's work.
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        say(id, 0, QStringLiteral("stepped"), 2, 0, hashOf('5'));
    say(QStringLiteral("c"), 2, QStringLiteral("stepped"), 4, 0, hashOf('7'));
    EXPECT_EQ(say(QStringLiteral("b"), 1, QStringLiteral("incomplete"), 2).phase, QStringLiteral("stepping"))
        << "e is online still: its report may yet come";
    now += 5000; // e is gone
    PipelineAnswer b = say(QStringLiteral("b"), 1, QStringLiteral("incomplete"), 2);
    ASSERT_EQ(b.phase, QStringLiteral("closing"));
    EXPECT_EQ(b.attempt, 1);
    EXPECT_TRUE(b.member);
    EXPECT_TRUE(steps->status().history.empty());
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        say(id, 0, QStringLiteral("stepped"), 2, 0, hashOf('5'));
    say(QStringLiteral("c"), 2, QStringLiteral("stepped"), 4, 0, hashOf('7'));

    // A restart keeps the attempt; reports on attempt 0 count for nothing in it.
    ASSERT_NO_FATAL_FAILURE(reopen());
    EXPECT_EQ(say(QStringLiteral("b"), 1, QStringLiteral("ready"), 4).attempt, 1);
    EXPECT_EQ(say(QStringLiteral("b"), 1, QStringLiteral("ready"), 2, 1).phase, QStringLiteral("closing"))
        << "b holds 2 of the step's 4 microbatches: e's are not replayed yet";
    b = say(QStringLiteral("b"), 1, QStringLiteral("ready"), 4, 1);
    ASSERT_EQ(b.phase, QStringLiteral("stepping"));
    EXPECT_EQ(b.group, QStringList{QStringLiteral("b")});
    EXPECT_EQ(b.microbatches, 4);
    EXPECT_TRUE(say(QStringLiteral("a"), 0, QStringLiteral("stepped"), 2, 0, hashOf('5')).group.isEmpty())
        << "the tied group stepped already";
    EXPECT_TRUE(say(QStringLiteral("c"), 2, QStringLiteral("stepped"), 4, 0, hashOf('7')).group.isEmpty());
    EXPECT_EQ(say(QStringLiteral("b"), 1, QStringLiteral("stepped"), 4, 0, hashOf('6')).phase, QStringLiteral("stepping"))
        << "a report on the abandoned attempt";
    say(QStringLiteral("d"), 0, QStringLiteral("stepped"), 2, 0, hashOf('5'));
    say(QStringLiteral("b"), 1, QStringLiteral("stepped"), 4, 1, hashOf('6'));
    PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].issued, 4);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4})) << "a microbatch lost or counted twice";
    EXPECT_TRUE(status.history[0].agreed);

    // Step 1: b's group is incomplete on both attempts (its peer vanished again): the step ends
    // after the second, without b's stage.
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        poll(id, holding(0, hashOf('5'), 1));
    poll(QStringLiteral("c"), holding(2, hashOf('7'), 1));
    ASSERT_EQ(poll(QStringLiteral("b"), holding(1, hashOf('6'), 1)).phase, QStringLiteral("training"));
    const auto sayAt = [&](const QString &id, int stage, const QString &kind, int microbatches, int attempt, char hash) {
        PipelineRequest r = report(holding(stage, hashOf(hash), 1), 1, kind, microbatches);
        r.attempt = attempt;
        return poll(id, r);
    };
    sayAt(QStringLiteral("a"), 0, QStringLiteral("closed"), 2, 0, '5');
    sayAt(QStringLiteral("d"), 0, QStringLiteral("closed"), 2, 0, '5');
    sayAt(QStringLiteral("b"), 1, QStringLiteral("ready"), 4, 0, '6');
    ASSERT_EQ(sayAt(QStringLiteral("c"), 2, QStringLiteral("ready"), 4, 0, '7').phase, QStringLiteral("stepping"));
    ASSERT_EQ(sayAt(QStringLiteral("b"), 1, QStringLiteral("incomplete"), 4, 0, '6').attempt, 0)
        << "the tied group has not reported yet";
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        sayAt(id, 0, QStringLiteral("stepped"), 2, 0, '8');
    ASSERT_EQ(sayAt(QStringLiteral("c"), 2, QStringLiteral("stepped"), 4, 0, '9').attempt, 1);
    ASSERT_EQ(sayAt(QStringLiteral("b"), 1, QStringLiteral("ready"), 4, 1, '6').phase, QStringLiteral("stepping"));
    const PipelineAnswer last = sayAt(QStringLiteral("b"), 1, QStringLiteral("incomplete"), 4, 1, '6');
    EXPECT_EQ(last.step, 2) << "no third attempt";
    status = steps->status();
    ASSERT_EQ(status.history.size(), 2u);
    EXPECT_EQ(status.history[1].applied, (std::vector<int>{4, 0, 4}));
}

// A stage whose peer vanished mid-step waits for the replay of that peer's work on its survivor for
// as long as the survivor keeps serving it, even past the close timeout (a busy machine computes a
// replay slower); a survivor that stops serving is given up on a close timeout after its last
// progress.
TEST_F(PipelineStepsTest, ClosingWaitsForAReplayThatKeepsMakingProgress)
{
    ASSERT_NO_FATAL_FAILURE(fivePeers());
    const auto others = [&] {
        poll(QStringLiteral("a"), holding(0, hashOf('0')));
        poll(QStringLiteral("d"), holding(0, hashOf('0')));
        poll(QStringLiteral("c"), holding(2, hashOf('2')));
    };
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("d"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4));
    // e vanished before it said ready; b computes e's microbatches again, a few seconds each.
    PipelineRequest replaying = holding(1, hashOf('1'));
    replaying.served = 1;
    for (int seconds = 5; seconds <= 60; seconds += 5) {
        now += 5000;
        ASSERT_EQ(poll(QStringLiteral("b"), replaying).phase, QStringLiteral("closing"))
            << "given up " << seconds << " s into a replay that still makes progress";
        others();
    }
    ASSERT_GT(60'000, options.closeTimeoutMs) << "the replay ran past the close timeout";
    // Then nothing more arrives: the close timeout runs from b's last progress.
    const qint64 lastProgress = now;
    while (now - lastProgress + 2000 <= options.closeTimeoutMs) {
        now += 2000;
        ASSERT_EQ(poll(QStringLiteral("b"), holding(1, hashOf('1'))).phase, QStringLiteral("closing"));
        others();
    }
    now = lastProgress + options.closeTimeoutMs + 1;
    EXPECT_EQ(poll(QStringLiteral("b"), holding(1, hashOf('1'))).phase, QStringLiteral("stepping"));
}

// A replica gone after its group applied the step (on an attempt that had to be complete) but
// before it reported: its work is in what the others applied, and the step counts it.
TEST_F(PipelineStepsTest, AMemberGoneAfterItsGroupAppliedTheStepStillCounts)
{
    ASSERT_NO_FATAL_FAILURE(fivePeers());
    poll(QStringLiteral("a"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("d"), report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 2));
    poll(QStringLiteral("b"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 1));
    poll(QStringLiteral("e"), report(holding(1, hashOf('1')), 0, QStringLiteral("ready"), 3));
    ASSERT_EQ(poll(QStringLiteral("c"), report(holding(2, hashOf('2')), 0, QStringLiteral("ready"), 4)).phase,
              QStringLiteral("stepping"));
    poll(QStringLiteral("b"), report(holding(1, hashOf('6'), 1), 0, QStringLiteral("stepped"), 1));
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        poll(id, report(holding(0, hashOf('5'), 1), 0, QStringLiteral("stepped"), 2));
    now += 2000;
    poll(QStringLiteral("b"), holding(1, hashOf('6'), 1));
    now += 2000; // e is gone before it reported
    EXPECT_TRUE(steps->status().history.empty()) << "the tied group has not stepped";
    poll(QStringLiteral("c"), report(holding(2, hashOf('7'), 1), 0, QStringLiteral("stepped"), 4));
    const PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4})) << "e's three microbatches, applied by b, went uncounted";
    EXPECT_TRUE(status.history[0].agreed);
}

// The tied group (the trainers with the last stage) loses a last-stage replica during its
// all-reduce: the trainers and the last stage's survivor step again together, once the
// survivor holds the step's microbatches; the middle stage, which stepped, is not asked again.
TEST_F(PipelineStepsTest, TheTiedGroupStepsAgainTogetherWhenALastStageReplicaVanishes)
{
    options.minPeers = 6;
    ASSERT_NO_FATAL_FAILURE(reopen());
    const QStringList ids{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                          QStringLiteral("d"), QStringLiteral("e"), QStringLiteral("f")};
    for (qsizetype i = 0; i < ids.size(); ++i) {
        addPeer(ids[i]);
        ASSERT_EQ(poll(ids[i], PipelineRequest{}).stage, int(i % 3));
    }
    for (qsizetype i = 0; i < ids.size(); ++i)
        poll(ids[i], holding(int(i % 3), hashOf(char('0' + i % 3))));
    const auto say = [&](const QString &id, const QString &kind, int microbatches, int attempt = 0, char hash = 0) {
        const int stage = int(ids.indexOf(id) % 3);
        PipelineRequest r = report(holding(stage, hashOf(hash ? hash : char('0' + stage)), hash ? 1 : 0), 0, kind, microbatches);
        r.attempt = attempt;
        return poll(id, r);
    };
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        say(id, QStringLiteral("closed"), 2);
    for (const QString &id : {QStringLiteral("b"), QStringLiteral("e"), QStringLiteral("c"), QStringLiteral("f")})
        say(id, QStringLiteral("ready"), 2);
    ASSERT_EQ(poll(QStringLiteral("a"), holding(0, hashOf('0'))).group.size(), 4);
    for (const QString &id : {QStringLiteral("b"), QStringLiteral("e")})
        say(id, QStringLiteral("stepped"), 2, 0, '6');
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d"), QStringLiteral("c")})
        say(id, QStringLiteral("incomplete"), 2);
    now += 2000;
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d"), QStringLiteral("b"), QStringLiteral("e")})
        poll(id, holding(int(ids.indexOf(id) % 3), hashOf(id == QLatin1StringView("b") || id == QLatin1StringView("e") ? '6' : '0')));
    now += 2000; // f is gone
    PipelineAnswer c = say(QStringLiteral("c"), QStringLiteral("incomplete"), 2);
    ASSERT_EQ(c.phase, QStringLiteral("closing"));
    EXPECT_EQ(c.attempt, 1);
    EXPECT_EQ(say(QStringLiteral("c"), QStringLiteral("ready"), 2, 1).phase, QStringLiteral("closing")) << "f's microbatches are not replayed yet";
    c = say(QStringLiteral("c"), QStringLiteral("ready"), 4, 1);
    ASSERT_EQ(c.phase, QStringLiteral("stepping"));
    EXPECT_EQ(c.group, (QStringList{QStringLiteral("a"), QStringLiteral("d"), QStringLiteral("c")}));
    EXPECT_TRUE(poll(QStringLiteral("b"), holding(1, hashOf('6'), 1)).group.isEmpty()) << "the middle stage stepped already";
    for (const QString &id : {QStringLiteral("a"), QStringLiteral("d")})
        say(id, QStringLiteral("stepped"), 2, 1, '5');
    say(QStringLiteral("c"), QStringLiteral("stepped"), 4, 1, '7');
    const PipelineStatus status = steps->status();
    ASSERT_EQ(status.history.size(), 1u);
    EXPECT_EQ(status.history[0].applied, (std::vector<int>{4, 4, 4}));
    EXPECT_TRUE(status.history[0].agreed);
}

// The model's export (issue 44): after every second step one member of each stage whose state is
// the stage's agreed one is asked to upload it; a member holding another state is not, nor a
// second member of a stage already asked. A member whose upload did not check out is asked no
// more, another is, and the collection is whole when every stage's state of that step is kept.
TEST_F(PipelineStepsTest, OneSyncedMemberOfEachStageIsAskedForItsAgreedStateWhenAnExportIsDue)
{
    options.exportEvery = 2;
    ASSERT_NO_FATAL_FAILURE(reopen());
    threeFreshPeers();
    addPeer(QStringLiteral("d"));
    ASSERT_EQ(poll(QStringLiteral("d"), PipelineRequest{}).stage, 0);
    runStep(0, {hashOf('3'), hashOf('4'), hashOf('5')});
    EXPECT_TRUE(poll(QStringLiteral("a"), holding(0, hashOf('3'), 1)).uploadState.isEmpty()) << "one step done: not due";
    EXPECT_FALSE(steps->stageStateWanted(QStringLiteral("a"), 0).has_value());
    runStep(1, {hashOf('6'), hashOf('7'), hashOf('8')});

    EXPECT_EQ(poll(QStringLiteral("d"), holding(0, hashOf('6'), 2)).uploadState, hashOf('6'));
    EXPECT_TRUE(poll(QStringLiteral("a"), holding(0, hashOf('6'), 2)).uploadState.isEmpty()) << "one member a stage";
    EXPECT_EQ(poll(QStringLiteral("b"), holding(1, hashOf('7'), 2)).uploadState, hashOf('7'));
    EXPECT_TRUE(poll(QStringLiteral("c"), holding(2, hashOf('5'), 1)).uploadState.isEmpty()) << "not the agreed state";
    EXPECT_EQ(poll(QStringLiteral("c"), holding(2, hashOf('8'), 2)).uploadState, hashOf('8'));
    const std::optional<PipelineSteps::StageStateWanted> wanted = steps->stageStateWanted(QStringLiteral("d"), 0);
    ASSERT_TRUE(wanted.has_value());
    EXPECT_EQ(wanted->step, 2);
    EXPECT_EQ(wanted->hash, hashOf('6'));
    EXPECT_FALSE(steps->stageStateWanted(QStringLiteral("a"), 0).has_value()) << "not asked";
    EXPECT_FALSE(steps->stageStateWanted(QStringLiteral("d"), 1).has_value()) << "another stage";

    steps->stageStateRefused(QStringLiteral("d"), 0);
    EXPECT_TRUE(poll(QStringLiteral("d"), holding(0, hashOf('6'), 2)).uploadState.isEmpty()) << "a refused uploader";
    EXPECT_EQ(poll(QStringLiteral("a"), holding(0, hashOf('6'), 2)).uploadState, hashOf('6'));
    EXPECT_FALSE(steps->stageStateTaken(1, 0)) << "another collection's";
    EXPECT_TRUE(steps->stageStateWanted(QStringLiteral("a"), 0).has_value());
    EXPECT_FALSE(steps->stageStateTaken(2, 0));
    EXPECT_FALSE(steps->stageStateWanted(QStringLiteral("a"), 0).has_value()) << "held";
    EXPECT_TRUE(poll(QStringLiteral("a"), holding(0, hashOf('6'), 2)).uploadState.isEmpty());
    EXPECT_FALSE(steps->stageStateTaken(2, 1));
    EXPECT_TRUE(steps->stageStateTaken(2, 2)) << "every stage's state of the step is kept";
}

// Issue 43: trainers' closes name the stage peers their cross-checks caught answering wrong. One
// trainer's word of two names nobody (or a hostile trainer could have honest stage peers banned);
// a second trainer's within the window of steps names the peer, once; names that are not the
// step's stage peers (the trainer itself, the other trainer, a stranger) count for nothing; and a
// step's only trainer is believed alone.
TEST_F(PipelineStepsTest, AStagePeerIsNamedForWrongAnswersOnceTwoTrainersCaughtIt)
{
    const std::vector<std::pair<QString, int>> peers{{QStringLiteral("a"), 0}, {QStringLiteral("d"), 0}, {QStringLiteral("b"), 1},
                                                     {QStringLiteral("e"), 1}, {QStringLiteral("c"), 2}};
    for (const auto &[id, stage] : peers)
        options.placeHints[id] = stage;
    options.minPeers = 5;
    reopen();
    std::vector<QString> named;
    steps->setOnWrongAnswers([&](const QString &keyId, const QString &) { named.push_back(keyId); });
    for (const auto &[id, stage] : peers) {
        addPeer(id);
        EXPECT_EQ(poll(id, PipelineRequest{}).stage, stage) << id.toStdString();
    }
    const auto stageHash = [](int stage, qint64 steps) { return hashOf(char('0' + stage + 3 * int(steps))); };
    const std::map<QString, QStringList> accusations[2] = {
        {{QStringLiteral("a"), {QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("d"), QStringLiteral("stranger")}}},
        {{QStringLiteral("d"), {QStringLiteral("b")}}},
    };
    for (qint64 step = 0; step < 2; ++step) {
        for (const auto &[id, stage] : peers)
            poll(id, holding(stage, stageHash(stage, step), step));
        for (const QString &trainer : {QStringLiteral("a"), QStringLiteral("d")}) {
            const PipelineAnswer training = poll(trainer, holding(0, stageHash(0, step), step));
            ASSERT_EQ(training.phase, QStringLiteral("training"));
            PipelineRequest closed = report(holding(0, stageHash(0, step), step), step, QStringLiteral("closed"), training.share);
            if (const auto found = accusations[step].find(trainer); found != accusations[step].end())
                closed.wrongAnswers = found->second;
            poll(trainer, closed);
        }
        EXPECT_EQ(named, step == 0 ? std::vector<QString>{} : std::vector<QString>{QStringLiteral("b")}) << "after step " << step;
        // One trainer's word makes b a suspect that every trainer checks; stage peers are told nothing.
        EXPECT_EQ(poll(QStringLiteral("d"), holding(0, stageHash(0, step), step)).suspects,
                  step == 0 ? QStringList{QStringLiteral("b")} : QStringList{});
        EXPECT_TRUE(poll(QStringLiteral("e"), holding(1, stageHash(1, step), step)).suspects.isEmpty());
        for (const auto &[id, stage] : peers) {
            if (stage > 0)
                poll(id, report(holding(stage, stageHash(stage, step), step), step, QStringLiteral("ready")));
        }
        for (const auto &[id, stage] : peers)
            poll(id, report(holding(stage, stageHash(stage, step + 1), step + 1), step, QStringLiteral("stepped"), stage == 1 ? 2 : 4));
        ASSERT_EQ(steps->status().history.size(), std::size_t(step + 1));
    }
    EXPECT_EQ(named, std::vector<QString>{QStringLiteral("b")}) << "named once";
}

TEST_F(PipelineStepsTest, TheOnlyTrainerOfAStepIsBelievedAloneAboutWrongAnswers)
{
    std::vector<QString> named;
    steps->setOnWrongAnswers([&](const QString &keyId, const QString &) { named.push_back(keyId); });
    threeFreshPeers();
    PipelineRequest closed = report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 4);
    closed.wrongAnswers = {QStringLiteral("c")};
    poll(QStringLiteral("a"), closed);
    EXPECT_EQ(named, std::vector<QString>{QStringLiteral("c")});
}

// Credit for pipeline work (issue 43): each member of a step whose stage applied it earns its
// stage's share (by stageCosts) of the tokens it served, a trainer for its own microbatches and a
// stage peer for those the trainers say it served, never more than it says it holds. Two steps:
// an honest one, then one with a peer named for wrong answers, a peer claiming more than it
// served, and a trainer whose first word on who served it cannot be true.
TEST_F(PipelineStepsTest, StagePeersEarnCreditForTheMicrobatchesTheyServedThatTheStepApplied)
{
    const std::vector<std::pair<QString, int>> peers{{QStringLiteral("a"), 0}, {QStringLiteral("d"), 0}, {QStringLiteral("b"), 1},
                                                     {QStringLiteral("e"), 1}, {QStringLiteral("c"), 2}};
    for (const auto &[id, stage] : peers)
        options.placeHints[id] = stage;
    options.minPeers = 5;
    options.stageCosts = {2.0, 1.0, 1.0};
    options.tokensPerMicrobatch = 100;
    options.creditPerToken = 0.01; // a microbatch through the whole model earns 1
    reopen();
    for (const auto &[id, stage] : peers) {
        addPeer(id);
        EXPECT_EQ(poll(id, PipelineRequest{}).stage, stage) << id.toStdString();
    }
    const auto stageHash = [](int stage, qint64 steps) { return hashOf(char('0' + stage + 3 * int(steps))); };
    const auto creditOf = [&](const QString &id) { return store->peer(id).value()->credit; };
    const auto tokensOf = [&](const QString &id) { return store->peer(id).value()->tokens; };
    const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c"), d = QStringLiteral("d"),
                  e = QStringLiteral("e");
    // One step: the trainers close with `servedBy` (d's first word, then its word when it steps),
    // the stage peers hold and step with `held`, and `accused` is caught by both trainers.
    const auto runCreditedStep = [&](qint64 step, const std::map<QString, std::map<QString, int>> &servedBy,
                                     const std::map<QString, int> &dFirst, const std::map<QString, int> &held,
                                     const QStringList &accused, bool restart) {
        for (const auto &[id, stage] : peers)
            poll(id, holding(stage, stageHash(stage, step), step));
        for (const QString &trainer : {a, d}) {
            const PipelineAnswer training = poll(trainer, holding(0, stageHash(0, step), step));
            ASSERT_EQ(training.phase, QStringLiteral("training"));
            ASSERT_EQ(training.share, 2);
            PipelineRequest closed = report(holding(0, stageHash(0, step), step), step, QStringLiteral("closed"), 2);
            closed.servedBy = trainer == d ? dFirst : servedBy.at(trainer);
            closed.wrongAnswers = accused;
            poll(trainer, closed);
        }
        if (restart) // the coordinator restarts with the step closed: what it was told is kept
            ASSERT_NO_FATAL_FAILURE(reopen());
        for (const auto &[id, stage] : peers) {
            if (stage > 0)
                poll(id, report(holding(stage, stageHash(stage, step), step), step, QStringLiteral("ready"), held.at(id)));
        }
        for (const auto &[id, stage] : peers) {
            PipelineRequest stepped = report(holding(stage, stageHash(stage, step + 1), step + 1), step, QStringLiteral("stepped"),
                                             stage == 0 ? 2 : held.at(id));
            if (stage == 0)
                stepped.servedBy = servedBy.at(id);
            poll(id, stepped);
        }
        ASSERT_EQ(steps->status().history.size(), std::size_t(step + 1));
    };

    const std::map<QString, std::map<QString, int>> honest{{a, {{b, 2}, {c, 2}}}, {d, {{e, 2}, {c, 2}}}};
    ASSERT_NO_FATAL_FAILURE(runCreditedStep(0, honest, honest.at(d), {{b, 2}, {e, 2}, {c, 4}}, {}, false));
    EXPECT_DOUBLE_EQ(creditOf(a), 1.0); // 2 microbatches x 100 tokens x 0.01 x stage 0's half
    EXPECT_DOUBLE_EQ(creditOf(d), 1.0);
    EXPECT_DOUBLE_EQ(creditOf(b), 0.5);
    EXPECT_DOUBLE_EQ(creditOf(e), 0.5);
    EXPECT_DOUBLE_EQ(creditOf(c), 1.0);
    EXPECT_EQ(tokensOf(c), 400);
    EXPECT_DOUBLE_EQ(steps->status().history.back().credit, 4.0); // 4 microbatches through the model
    const PipelineAnswer told = poll(e, holding(1, stageHash(1, 1), 1));
    ASSERT_TRUE(told.credited.has_value());
    EXPECT_EQ(told.credited->step, 0);
    EXPECT_EQ(told.credited->microbatches, 2);
    EXPECT_DOUBLE_EQ(told.credited->credit, 0.5);

    // Step 1: b is caught answering wrong by both trainers; e says it holds 4 where the trainers
    // say it served 2, so stage 1's counts do not add up and the trainers' word caps them; d first
    // says e served 3 of its 2 microbatches, which is not taken, and says it right when it steps;
    // the coordinator restarts after the closes.
    const std::map<QString, std::map<QString, int>> shifted{{a, {{b, 2}, {c, 2}}}, {d, {{e, 2}, {c, 2}}}};
    ASSERT_NO_FATAL_FAILURE(runCreditedStep(1, shifted, {{e, 3}, {c, 2}}, {{b, 2}, {e, 4}, {c, 4}}, {b}, true));
    EXPECT_DOUBLE_EQ(creditOf(a), 2.0);
    EXPECT_DOUBLE_EQ(creditOf(d), 2.0);
    EXPECT_DOUBLE_EQ(creditOf(b), 0.5) << "named for wrong answers: nothing for the step";
    EXPECT_DOUBLE_EQ(creditOf(e), 1.0) << "what the trainers say it served, not what it claims";
    EXPECT_DOUBLE_EQ(creditOf(c), 2.0);
    const PipelineAnswer toB = poll(b, holding(1, stageHash(1, 2), 2));
    ASSERT_TRUE(toB.credited.has_value());
    EXPECT_EQ(toB.credited->step, 1);
    EXPECT_EQ(toB.credited->microbatches, 0);

    // A step is credited once, whoever finishes it again (a new leader after a crash).
    ASSERT_TRUE(store->creditPipelineStep(1, {{c, 5.0, 500}}).ok());
    EXPECT_DOUBLE_EQ(creditOf(c), 2.0);
    ASSERT_TRUE(store->creditPipelineStep(2, {{c, 5.0, 500}}).ok());
    EXPECT_DOUBLE_EQ(creditOf(c), 7.0);
    // The leaderboard ranks by it.
    EXPECT_EQ(store->leaderboard(1).value().front().keyId, c);
}

// A trainer's word on who served its microbatches can name only the step's stage peers, and no
// stage more than it closed with: Sybils of a hostile trainer earn nothing they did not serve.
// And where a stage's counts add up to the step's microbatches, its peers earn for what they
// hold whatever a trainer says: leaving an honest peer out of its word costs that peer nothing.
TEST_F(PipelineStepsTest, ATrainersWordOnWhoServedItCannotMakeWorkUp)
{
    options.tokensPerMicrobatch = 100;
    options.creditPerToken = 0.01;
    reopen();
    threeFreshPeers();
    addPeer(QStringLiteral("sybil")); // placed, but not a member of step 0
    poll(QStringLiteral("sybil"), PipelineRequest{});
    PipelineRequest closed = report(holding(0, hashOf('0')), 0, QStringLiteral("closed"), 4);
    closed.servedBy = {{QStringLiteral("sybil"), 4}};
    poll(QStringLiteral("a"), closed);
    closed.report = QStringLiteral("closed");
    closed.servedBy = {{QStringLiteral("b"), 5}}; // more than its 4
    poll(QStringLiteral("a"), closed);
    poll(QStringLiteral("b"), report(holding(1, {}), 0, QStringLiteral("ready"), 4));
    poll(QStringLiteral("c"), report(holding(2, {}), 0, QStringLiteral("ready"), 4));
    const QString ids[] = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    for (int s = 0; s < 3; ++s)
        poll(ids[s], report(holding(s, hashOf(char('3' + s)), 1), 0, QStringLiteral("stepped"), 4));
    ASSERT_EQ(steps->status().history.size(), 1u);
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("a")).value()->credit, 4.0 / 3.0); // its own stage
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("sybil")).value()->credit, 0.0);
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("b")).value()->credit, 4.0 / 3.0) << "its stage's counts add up";
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("c")).value()->credit, 4.0 / 3.0);
}
