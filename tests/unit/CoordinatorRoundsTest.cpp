#include "CoordinatorRounds.h"
#include "SqlCoordinatorStore.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

const QString kHashA = QString(64, QLatin1Char('a'));
const QString kHashB = QString(64, QLatin1Char('b'));

class CoordinatorRoundsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        settings.parameterCount = 1000;
        settings.heartbeatIntervalMs = 1000;
        settings.gatherTimeoutMs = 10'000;
        settings.roundDeadlineMs = 60'000;
        settings.minPeers = 2;
        reopen();
    }

    void reopen()
    {
        rounds.reset();
        store.reset();
        store = std::move(SqlCoordinatorStore::openSqlite(dir.path() / "c.db")).value();
        rounds = std::make_unique<CoordinatorRounds>(*store, settings, [this]() { return now; });
        ASSERT_TRUE(rounds->initialize(0).ok());
        if (!store->checkpoint(0).value())
            holdState(0); // the swarm's initial state, as CoordinatorSetup writes it
    }

    // The coordinator holds state `round` (an uploader sent it and it was recomputed).
    void holdState(qint64 round)
    {
        const QString name = QStringLiteral("round-%1.safetensors").arg(round);
        ASSERT_TRUE(store->addCheckpoint({round, name, QString(64, QLatin1Char('c')), 1, kHashA, std::nullopt}).ok());
    }

    void addPeer(const QString &keyId, bool reachable, const QString &state, qint64 baseRound)
    {
        PeerRecord peer;
        peer.keyId = keyId;
        peer.reachable = reachable;
        peer.ordinal = qint64(store->peers()->size());
        peer.state = state;
        peer.baseRound = baseRound;
        peer.lastSeenMs = now;
        ASSERT_TRUE(store->savePeer(peer).ok());
    }

    Result<ContributionVerdict> report(const QString &keyId, const QString &hash, qint64 tokens = 1000)
    {
        ContributionRecord c;
        c.round = rounds->current()->number;
        c.keyId = keyId;
        c.tokens = tokens;
        c.paramsHash = hash;
        return rounds->contribute(c);
    }

    RoundRecord current() { return rounds->current().value(); }

    TempDir dir;
    qint64 now = 1'000'000;
    RoundSettings settings;
    std::unique_ptr<SqlCoordinatorStore> store;
    std::unique_ptr<CoordinatorRounds> rounds;
};

} // namespace

TEST(CoordinatorRoundsRanges, SplitEvenlyAmongReachableMembers)
{
    const std::vector<RoundMember> members = CoordinatorRounds::assignRanges(
        {{QStringLiteral("a"), true, 0, 0}, {QStringLiteral("nat"), false, 0, 0}, {QStringLiteral("b"), true, 0, 0},
         {QStringLiteral("c"), true, 0, 0}},
        10);
    EXPECT_EQ(members[0].begin, 0);
    EXPECT_EQ(members[0].end, 4);
    EXPECT_EQ(members[1].begin, members[1].end);
    EXPECT_EQ(members[2].begin, 4);
    EXPECT_EQ(members[2].end, 7);
    EXPECT_EQ(members[3].begin, 7);
    EXPECT_EQ(members[3].end, 10);
}

TEST(CoordinatorRoundsRanges, LoneOutboundOnlyMemberOwnsEverything)
{
    const std::vector<RoundMember> members =
        CoordinatorRounds::assignRanges({{QStringLiteral("nat"), false, 0, 0}}, 10);
    EXPECT_EQ(members[0].begin, 0);
    EXPECT_EQ(members[0].end, 10);
}

TEST(CoordinatorRoundsMajority, NeedsMoreThanHalf)
{
    EXPECT_EQ(CoordinatorRounds::majorityHash({kHashA, kHashB, kHashA}), std::optional<QString>(kHashA));
    EXPECT_EQ(CoordinatorRounds::majorityHash({kHashA}), std::optional<QString>(kHashA));
    EXPECT_FALSE(CoordinatorRounds::majorityHash({kHashA, kHashB}).has_value());
    EXPECT_FALSE(CoordinatorRounds::majorityHash({}).has_value());
}

TEST_F(CoordinatorRoundsTest, StartsWhenEveryOnlinePeerIsReady)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("b"), true, QStringLiteral("training"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering);
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord round = current();
    EXPECT_EQ(round.state, RoundState::Running);
    EXPECT_EQ(round.members.size(), 2u);
    EXPECT_EQ(round.deadlineMs, now + settings.roundDeadlineMs);
}

TEST_F(CoordinatorRoundsTest, FewerReadyPeersThanMinPeersWaitEvenWhenNoOneElseIsOnline)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering) << "--min-peers 2";
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Running);
}

TEST_F(CoordinatorRoundsTest, ReadyOnAnOldStateDoesNotCount)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 7);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering);
}

TEST_F(CoordinatorRoundsTest, GatherTimeoutStartsWithMinPeersAndIgnoresOfflinePeers)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("slow"), true, QStringLiteral("training"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering);
    now += settings.gatherTimeoutMs;
    // "a" and "b" stay online by heartbeating; "slow" keeps training.
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("a"), QStringLiteral("ready"), {}, 0, 0, 0, now).ok());
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("b"), QStringLiteral("ready"), {}, 0, 0, 0, now).ok());
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("slow"), QStringLiteral("training"), {}, 0, 0, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord round = current();
    ASSERT_EQ(round.state, RoundState::Running);
    ASSERT_EQ(round.members.size(), 2u);
    EXPECT_EQ(round.members[1].keyId, QStringLiteral("b"));
}

// A volunteer who paused (the person plays a game) keeps heartbeating, but no round waits for it:
// the others start at once, not at the gather timeout. Once it trains for a round again, that
// round waits for it like for anyone.
TEST_F(CoordinatorRoundsTest, APausedPeerHoldsNoRoundUntilItTrainsAgain)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("gamer"), true, QStringLiteral("paused"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord round = current();
    ASSERT_EQ(round.state, RoundState::Running) << "waited for a paused peer";
    ASSERT_EQ(round.members.size(), 2u);
    EXPECT_EQ(round.members[0].keyId, QStringLiteral("a"));
    EXPECT_EQ(round.members[1].keyId, QStringLiteral("b"));
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("b"), kHashA).ok());
    ASSERT_EQ(current().number, 1);
    holdState(1);

    now += 500;
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("a"), QStringLiteral("ready"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("b"), QStringLiteral("ready"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("gamer"), QStringLiteral("training"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().state, RoundState::Gathering) << "it trains for round 1: round 1 waits for it";
    ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("gamer"), QStringLiteral("ready"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    EXPECT_EQ(current().members.size(), 3u);
}

TEST_F(CoordinatorRoundsTest, MajorityHashIsAcceptedAndCredited)
{
    for (const char *name : {"a", "b", "c"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);

    Result<ContributionVerdict> first = report(QStringLiteral("a"), kHashA, 2000);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_FALSE(first->accepted.has_value());
    EXPECT_FALSE(report(QStringLiteral("a"), kHashA).ok()) << "a second report for the same round";
    ASSERT_TRUE(report(QStringLiteral("b"), kHashB).ok());
    Result<ContributionVerdict> last = report(QStringLiteral("c"), kHashA, 3000);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(last->accepted, std::optional<bool>(true));
    EXPECT_DOUBLE_EQ(last->credit, 3.0);
    EXPECT_FALSE(last->uploadCheckpoint) << "the first accepted member is asked to upload";

    const RoundRecord done = store->round(0)->value();
    EXPECT_EQ(done.state, RoundState::Done);
    EXPECT_EQ(done.agreedHash, kHashA);
    EXPECT_EQ(done.uploaderKeyId, QStringLiteral("a"));
    EXPECT_EQ(current().number, 1);
    EXPECT_EQ(current().state, RoundState::Gathering);

    auto verdictOf = [&](const char *name) { return rounds->lastVerdict(QString::fromLatin1(name))->value().second; };
    EXPECT_EQ(verdictOf("a").accepted, std::optional<bool>(true));
    EXPECT_TRUE(verdictOf("a").uploadCheckpoint);
    EXPECT_EQ(verdictOf("b").accepted, std::optional<bool>(false));
    EXPECT_DOUBLE_EQ(verdictOf("b").credit, 0.0);
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("a"))->value().credit, 2.0);
    EXPECT_EQ(store->peer(QStringLiteral("b"))->value().tokens, 0);
}

// Bootstrapping a public swarm (issue 43): before anyone is established, five fresh identities
// made behind one subnet report a hash of their own against two from two other subnets. Each
// subnet has one vote, so theirs weighs one against two: the two are accepted, the five are not.
// With one vote an identity (the defence off) the five would have moved the state.
TEST_F(CoordinatorRoundsTest, FreshIdentitiesOfOneSubnetVoteAsOneBeforeAnyoneIsEstablished)
{
    const auto run = [&](bool votePerSubnet) -> RoundRecord {
        settings.votePerSubnet = votePerSubnet;
        rounds.reset();
        store.reset();
        for (const char *file : {"c.db", "c.db-wal", "c.db-shm"})
            std::filesystem::remove(dir.path() / file); // a new swarm each run
        reopen();
        rounds->setEstablished([](const PeerRecord &) { return false; });
        std::vector<std::pair<QString, QString>> peers = {{QStringLiteral("h1"), QStringLiteral("198.51.100.7")},
                                                          {QStringLiteral("h2"), QStringLiteral("203.0.113.9")}};
        for (int i = 1; i <= 5; ++i)
            peers.emplace_back(QStringLiteral("s%1").arg(i), QStringLiteral("192.0.2.%1").arg(i));
        for (const auto &[key, address] : peers) {
            addPeer(key, true, QStringLiteral("ready"), 0);
            PeerRecord peer = store->peer(key).value().value();
            peer.address = address;
            EXPECT_TRUE(store->savePeer(peer).ok());
        }
        EXPECT_TRUE(rounds->advance().ok());
        EXPECT_EQ(current().members.size(), peers.size());
        for (const auto &[key, address] : peers)
            EXPECT_TRUE(report(key, key.startsWith(QLatin1Char('h')) ? kHashA : kHashB).ok());
        return store->round(0)->value();
    };
    const RoundRecord defended = run(true);
    EXPECT_EQ(defended.state, RoundState::Done);
    EXPECT_EQ(defended.agreedHash, kHashA);
    EXPECT_EQ(rounds->lastVerdict(QStringLiteral("h1"))->value().second.accepted, std::optional<bool>(true));
    EXPECT_EQ(rounds->lastVerdict(QStringLiteral("s1"))->value().second.accepted, std::optional<bool>(false));
    EXPECT_DOUBLE_EQ(store->peer(QStringLiteral("s1"))->value().credit, 0.0);

    const RoundRecord undefended = run(false);
    EXPECT_EQ(undefended.agreedHash, kHashB) << "one vote an identity: the five outvote the two";
}

TEST_F(CoordinatorRoundsTest, DeadlineLeavesOutMembersThatDidNotReport)
{
    for (const char *name : {"a", "b"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 0) << "waits for b until the deadline";
    now += settings.roundDeadlineMs;
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 1);
    EXPECT_EQ(store->round(0)->value().agreedHash, kHashA);
    EXPECT_FALSE(report(QStringLiteral("b"), kHashA).ok()) << "too late";
}

TEST_F(CoordinatorRoundsTest, NoMajorityGathersTheRoundAgain)
{
    for (const char *name : {"a", "b"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    Result<ContributionVerdict> last = report(QStringLiteral("b"), kHashB);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(last->accepted, std::optional<bool>(false));
    const RoundRecord again = current();
    EXPECT_EQ(again.number, 0);
    EXPECT_EQ(again.attempt, 1);
    EXPECT_EQ(again.state, RoundState::Running) << "both peers are still ready on state 0, so it starts again";
}

TEST_F(CoordinatorRoundsTest, NonMemberCannotReport)
{
    settings.minPeers = 1;
    reopen();
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    addPeer(QStringLiteral("late"), true, QStringLiteral("ready"), 0);
    Result<ContributionVerdict> verdict = report(QStringLiteral("late"), kHashA);
    ASSERT_FALSE(verdict.ok());
    EXPECT_NE(verdict.error().message.find("not a member"), std::string::npos);
}

TEST_F(CoordinatorRoundsTest, ResumesAfterReopen)
{
    for (const char *name : {"a", "b"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    reopen();
    const RoundRecord round = current();
    EXPECT_EQ(round.state, RoundState::Running);
    EXPECT_EQ(round.members.size(), 2u);
    Result<ContributionVerdict> last = report(QStringLiteral("b"), kHashA);
    ASSERT_TRUE(last.ok()) << last.error().message;
    EXPECT_EQ(last->accepted, std::optional<bool>(true));
    EXPECT_EQ(current().number, 1);
}

TEST_F(CoordinatorRoundsTest, AMemberThatStopsSendingHeartbeatsIsNotWaitedFor)
{
    for (const char *name : {"a", "b", "c"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("c"), kHashA).ok());
    EXPECT_EQ(current().number, 0) << "b is still online";

    // b was killed: a and c go on sending heartbeats, b does not.
    now += settings.missedHeartbeats * settings.heartbeatIntervalMs + 1;
    for (const char *name : {"a", "c"})
        ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(name), QStringLiteral("training"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 1) << "long before the deadline";
    EXPECT_EQ(store->round(0)->value().agreedHash, kHashA);
}

// A member online that commits to nothing (a stranger stalling the swarm) holds its round no
// longer than the commit timeout, not the deadline; it is reported, and sits the next round out.
// One that committed is waited for: its pieces are on their way.
TEST_F(CoordinatorRoundsTest, AMemberThatCommitsNothingIsWaitedForNoLongerThanTheCommitTimeout)
{
    settings.commitTimeoutMs = 5'000;
    ASSERT_NO_FATAL_FAILURE(reopen());
    std::vector<std::pair<QString, qint64>> stalled;
    rounds->setOnStalled([&](const QString &keyId, qint64 round) { stalled.emplace_back(keyId, round); });
    for (const char *name : {"a", "b", "c", "s"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord running = current();
    ASSERT_EQ(running.state, RoundState::Running);
    ASSERT_EQ(running.members.size(), 4u);
    std::vector<CommitmentRecord> pieces;
    for (const RoundMember &owner : running.members)
        pieces.push_back({0, 0, QStringLiteral("c"), owner.keyId, QString(64, QLatin1Char('0'))});
    ASSERT_TRUE(store->addCommitments(pieces).ok()); // c committed, and is slow to report
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("b"), kHashA).ok());
    const auto heartbeats = [&] {
        for (const char *name : {"a", "b", "c", "s"})
            ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(name), QStringLiteral("training"), {}, 0, 0, 0, now).ok());
    };
    now += settings.commitTimeoutMs - 1;
    heartbeats();
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 0) << "s has until the commit timeout";
    now += 2;
    heartbeats();
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 0) << "c committed: it is waited for";
    ASSERT_TRUE(report(QStringLiteral("c"), kHashA).ok());
    EXPECT_EQ(current().number, 1) << "s held the round past the commit timeout";
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(stalled, (std::vector<std::pair<QString, qint64>>{{QStringLiteral("s"), 0}}));

    // Round 1: everyone ready on state 1; s sits it out, and the round does not wait for it.
    holdState(1);
    for (const char *name : {"a", "b", "c", "s"})
        ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(name), QStringLiteral("ready"), {}, 0, 1, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    std::vector<QString> members;
    for (const RoundMember &member : current().members)
        members.push_back(member.keyId);
    EXPECT_EQ(members, (std::vector<QString>{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
}

// A round often closes moments after its commitments do, before a staller's next heartbeat: the
// staller is judged on what follows. Heard from after the commitments closed, it is reported;
// one never heard from again within a minute is gone, not stalling, and is not reported even if
// it comes back later.
TEST_F(CoordinatorRoundsTest, AStallerIsReportedOnceHeardFromAfterTheCommitmentsClosed)
{
    settings.commitTimeoutMs = 5'000;
    ASSERT_NO_FATAL_FAILURE(reopen());
    std::vector<std::pair<QString, qint64>> stalled;
    rounds->setOnStalled([&](const QString &keyId, qint64 round) { stalled.emplace_back(keyId, round); });
    for (const char *name : {"a", "b", "s", "g"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().members.size(), 4u);
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("b"), kHashA).ok());
    const auto say = [&](std::initializer_list<const char *> names) {
        for (const char *name : names)
            ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(name), QStringLiteral("training"), {}, 0, 0, 0, now).ok());
    };
    now += settings.commitTimeoutMs - 1;
    say({"a", "b", "s", "g"});
    now += 2;
    say({"a", "b"});
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 1) << "s and g held the round past the commit timeout";
    EXPECT_TRUE(stalled.empty()) << "neither heard from since the commitments closed";
    now += 1'000;
    say({"s"});
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(stalled, (std::vector<std::pair<QString, qint64>>{{QStringLiteral("s"), 0}}));
    now += 61'000;
    ASSERT_TRUE(rounds->advance().ok());
    say({"g"});
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(stalled.size(), 1u) << "g was gone for a minute: not a staller";
}

// A peer that says "training" round after round and is never ready (a stranger delaying a
// budgeted or gathered round by the grace each time) is waited for twice, then no more until it
// is ready; once ready it is a member again.
TEST_F(CoordinatorRoundsTest, APeerThatIsNeverReadyStopsDelayingTheRounds)
{
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("b"), true, QStringLiteral("ready"), 0);
    addPeer(QStringLiteral("t"), true, QStringLiteral("training"), 0);
    const auto say = [&](const char *name, const char *state, qint64 base) {
        ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(name), QString::fromLatin1(state), {}, 0, base, 0, now).ok());
    };
    for (qint64 round = 0; round < 4; ++round) {
        if (round > 0)
            holdState(round);
        say("a", "ready", round);
        say("b", "ready", round);
        say("t", "training", round);
        ASSERT_TRUE(rounds->advance().ok());
        if (round < 2) {
            EXPECT_EQ(current().state, RoundState::Gathering) << "round " << round << " waits for t";
            now += settings.gatherTimeoutMs;
            say("a", "ready", round);
            say("b", "ready", round);
            say("t", "training", round);
            ASSERT_TRUE(rounds->advance().ok());
        }
        ASSERT_EQ(current().state, RoundState::Running) << "round " << round << " waited for t after it was left behind twice";
        ASSERT_EQ(current().members.size(), 2u);
        ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
        ASSERT_TRUE(report(QStringLiteral("b"), kHashA).ok());
        ASSERT_EQ(current().number, round + 1);
        now += 1000;
    }
    holdState(4);
    say("a", "ready", 4);
    say("b", "ready", 4);
    say("t", "ready", 4);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_EQ(current().state, RoundState::Running);
    EXPECT_EQ(current().members.size(), 3u) << "ready at last: a member again";
}

// The only member of a round dies before uploading the state it made: no one can continue from
// it, so after the gather timeout the round runs again from the state it started on, with the
// peers that joined meanwhile.
TEST_F(CoordinatorRoundsTest, AStateLostWithItsOnlyHolderSendsTheSwarmBackARound)
{
    settings.minPeers = 1;
    reopen();
    addPeer(QStringLiteral("a"), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    addPeer(QStringLiteral("b"), true, QStringLiteral("training"), 0); // joined during round 0
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_EQ(current().number, 1);
    EXPECT_EQ(store->round(0).value()->uploaderKeyId, QStringLiteral("a"));

    now += 5'000; // a is gone (no heartbeat); b waits on state 0
    PeerRecord b = store->peer(QStringLiteral("b")).value().value();
    b.state = QStringLiteral("ready");
    b.lastSeenMs = now;
    ASSERT_TRUE(store->savePeer(b).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 1) << "before the gather timeout it waits for the upload";

    now += settings.gatherTimeoutMs;
    b.lastSeenMs = now;
    ASSERT_TRUE(store->savePeer(b).ok());
    ASSERT_TRUE(rounds->advance().ok());
    const RoundRecord again = current();
    EXPECT_EQ(again.number, 0);
    EXPECT_EQ(again.attempt, 1);
    EXPECT_EQ(again.state, RoundState::Running) << "b is ready on state 0";
    ASSERT_EQ(again.members.size(), 1u);
    EXPECT_EQ(again.members[0].keyId, QStringLiteral("b"));
    EXPECT_FALSE(store->round(1).value().has_value());
}

// The member asked for the state is gone but another accepted member holds it: that one is asked.
TEST_F(CoordinatorRoundsTest, AnotherHolderIsAskedForTheStateWhenTheUploaderIsGone)
{
    for (const char *name : {"a", "c"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("c"), kHashA).ok());
    ASSERT_EQ(current().number, 1);
    const QString first = store->round(0).value()->uploaderKeyId;
    const QString other = first == QStringLiteral("a") ? QStringLiteral("c") : QStringLiteral("a");

    now += 5'000; // the uploader is gone; the other holder keeps sending heartbeats
    PeerRecord holder = store->peer(other).value().value();
    holder.lastSeenMs = now;
    holder.baseRound = 1;
    ASSERT_TRUE(store->savePeer(holder).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(store->round(0).value()->uploaderKeyId, other);
    Result<std::optional<std::pair<ContributionRecord, ContributionVerdict>>> verdict = rounds->lastVerdict(other);
    ASSERT_TRUE(verdict.ok() && verdict->has_value());
    EXPECT_TRUE((*verdict)->second.uploadCheckpoint);
    EXPECT_EQ(current().number, 1) << "the round waits for the state, it does not go back";
}

// A stranger asked for the state stays online and never sends it (or is banned): after its turn
// (the gather timeout, for a model this small), or at once when banned, another holder is asked.
// The next round waits for the state meanwhile, however ready its members are; once every holder
// had its turn, it waits no more.
TEST_F(CoordinatorRoundsTest, AnUploaderThatWithholdsTheStateIsReplaced)
{
    for (const char *name : {"a", "c"})
        addPeer(QString::fromLatin1(name), true, QStringLiteral("ready"), 0);
    ASSERT_TRUE(rounds->advance().ok());
    ASSERT_TRUE(report(QStringLiteral("a"), kHashA).ok());
    ASSERT_TRUE(report(QStringLiteral("c"), kHashA).ok());
    const QString first = store->round(0).value()->uploaderKeyId;
    const QString other = first == QStringLiteral("a") ? QStringLiteral("c") : QStringLiteral("a");
    const auto heartbeats = [&] {
        for (const QString &key : {first, other}) {
            PeerRecord peer = store->peer(key).value().value();
            peer.lastSeenMs = now;
            peer.state = QStringLiteral("idle");
            ASSERT_TRUE(store->savePeer(peer).ok());
        }
    };
    ASSERT_EQ(rounds->stateUploadTurnMs(), settings.gatherTimeoutMs);
    now += settings.gatherTimeoutMs / 2;
    heartbeats();
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(store->round(0).value()->uploaderKeyId, first) << "within its turn its upload may be on the way";
    now += settings.gatherTimeoutMs / 2 + 1;
    heartbeats();
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(store->round(0).value()->uploaderKeyId, other);
    for (const QString &key : {first, other}) {
        ASSERT_TRUE(store->recordHeartbeat(key, QStringLiteral("ready"), {}, 0, 1, 0, now).ok());
    }
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 1);
    EXPECT_EQ(current().state, RoundState::Gathering) << "round 1 started without its state";

    ASSERT_TRUE(store->banPeer(other, QStringLiteral("test")).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(store->round(0).value()->uploaderKeyId, first) << "a banned uploader is replaced at once";

    // Every accepted member had its turn and none sent the state (withheld, or an honest member
    // that lost the averages it needs to post it): the swarm runs round 0 again, never waits on.
    now += settings.gatherTimeoutMs;
    ASSERT_TRUE(store->recordHeartbeat(first, QStringLiteral("ready"), {}, 0, 0, 0, now).ok());
    ASSERT_TRUE(rounds->advance().ok());
    EXPECT_EQ(current().number, 0);
    EXPECT_EQ(current().attempt, 1);
}

TEST(CoordinatorRoundsRanges, AWeightedSplitFollowsTheOwnersBandwidth)
{
    // b's links carry a quarter of the others': it owns a quarter as much.
    const std::vector<RoundMember> members = CoordinatorRounds::assignRanges(
        {{QStringLiteral("a"), true, 0, 0}, {QStringLiteral("nat"), false, 0, 0}, {QStringLiteral("b"), true, 0, 0},
         {QStringLiteral("c"), true, 0, 0}},
        900, {4e6, 0.0, 1e6, 4e6});
    EXPECT_EQ(members[0].begin, 0);
    EXPECT_EQ(members[0].end, 400);
    EXPECT_EQ(members[1].begin, members[1].end) << "an outbound-only member owns nothing, whatever its weight";
    EXPECT_EQ(members[2].begin, 400);
    EXPECT_EQ(members[2].end, 500);
    EXPECT_EQ(members[3].begin, 500);
    EXPECT_EQ(members[3].end, 900);

    // An owner whose bandwidth is unknown gets the mean of the others'.
    const std::vector<RoundMember> unknown = CoordinatorRounds::assignRanges(
        {{QStringLiteral("a"), true, 0, 0}, {QStringLiteral("b"), true, 0, 0}, {QStringLiteral("c"), true, 0, 0}}, 8,
        {1e6, std::nan(""), 3e6});
    EXPECT_EQ(unknown[1].end - unknown[1].begin, unknown[0].end - unknown[0].begin + 2);
    EXPECT_EQ(unknown[2].end, 8);
}
