// Attacks on the coordinator's verification endpoints (issue 16: every new endpoint comes with
// its adversary test), in-process: a real CoordinatorServer on loopback and its SQLite store in a
// temp dir, peers signing their own requests. Commitments that name the wrong owners or come from
// the wrong key, replayed commitments, uploads and reports from the wrong peer, oversized or
// equivocating uploads, the choice of verifiers, a ban's forfeit and a verifier that leaves.
#include "InProcessCoordinatorTest.h"
#include "Reputation.h"
#include "Verification.h"

#include <QTest>

#include <set>

using namespace swarmtrain;
using namespace swarmtrain::test;

namespace {

class VerificationAttackTest : public InProcessCoordinatorTest {
protected:
    HttpAnswer upload(Peer &peer, qint64 round, const QByteArray &bytes)
    {
        return send("POST", "/v1/round/update?round=" + QByteArray::number(round), bytes, peer);
    }

    HttpAnswer report(Peer &peer, qint64 round, const Peer &member, double cosine)
    {
        return post(peer, "/v1/round/check", SpotCheckReport{round, member.keyId(), cosine, 1.0, {}}.toJson());
    }

    SpotCheckRecord check(qint64 round, const Peer &member)
    {
        const std::optional<SpotCheckRecord> found = setup->store->spotCheck(round, member.keyId()).value();
        EXPECT_TRUE(found.has_value()) << "no check of that member and round";
        return found.value_or(SpotCheckRecord{});
    }

    // Past probation, as if it had agreed and been verified for enough rounds.
    void makeEstablished(const Peer &peer)
    {
        PeerRecord stored = record(peer);
        stored.acceptedRounds = options.trust.probationRounds;
        stored.verifiedRounds = 1;
        ASSERT_TRUE(setup->store->savePeer(stored).ok());
    }

    // The speed its heartbeats last gave (tokens a second).
    void setSpeed(const Peer &peer, double tokensPerSecond)
    {
        PeerRecord stored = record(peer);
        stored.tokensPerSecond = tokensPerSecond;
        ASSERT_TRUE(setup->store->savePeer(stored).ok());
    }

    // Two owners a and b and an outbound-only member m (three newcomers: anyone may verify)
    // finish round 0, whose work of m alone is drawn for a spot check. `mUpdate`: what m committed.
    void drawCheckOfM()
    {
        options.trust.spotCheckRate = 1.0;
        options.trust.spotCheckRateNew = 1.0;
        startServer();
        for (Peer *peer : {&a, &b, &m})
            join(*peer);
        startRound({&a, &b, &m}, 0);
        mUpdate = makeUpdate();
        ASSERT_EQ(commit(m, mUpdate.commitment).status, 200);
        finishRound({&a, &b, &m}, 0); // a and b committed nothing: only m's work can be checked
        const SpotCheckRecord drawn = check(0, m);
        ASSERT_EQ(drawn.state, SpotCheckState::AwaitingUpdate);
        verifier = byKey(drawn.verifierKeyId);
        ASSERT_TRUE(verifier == &a || verifier == &b) << drawn.verifierKeyId.toStdString();
        bystander = verifier == &a ? &b : &a;
    }

    // a and b established, m a newcomer unless `mEstablished`: they finish round 0, and m's work
    // alone is drawn for a check, which `verifier` (a or b) takes; returns m's update.
    Update drawCheckOfMByAnEstablished(bool mEstablished)
    {
        startServer();
        for (Peer *peer : {&a, &b, &m})
            join(*peer);
        makeEstablished(a);
        makeEstablished(b);
        if (mEstablished)
            makeEstablished(m);
        startRound({&a, &b, &m}, 0);
        const Update work = makeUpdate();
        EXPECT_EQ(commit(m, work.commitment).status, 200);
        finishRound({&a, &b, &m}, 0);
        verifier = byKey(check(0, m).verifierKeyId);
        EXPECT_TRUE(verifier == &a || verifier == &b);
        bystander = verifier == &a ? &b : &a;
        return work;
    }

    // a and b established at these speeds (tokens a second), m a newcomer at 1,500 (its
    // heartbeats'): they finish round 0, and m's work alone is drawn for a check.
    void drawCheckOfMAtSpeeds(double aSpeed, double bSpeed)
    {
        options.trust.spotCheckRateNew = 1.0;
        startServer();
        for (Peer *peer : {&a, &b, &m})
            join(*peer);
        makeEstablished(a);
        makeEstablished(b);
        startRound({&a, &b, &m}, 0);
        ASSERT_NO_FATAL_FAILURE(setSpeed(a, aSpeed));
        ASSERT_NO_FATAL_FAILURE(setSpeed(b, bSpeed));
        const Update work = makeUpdate();
        ASSERT_EQ(commit(m, work.commitment).status, 200);
        finishRound({&a, &b, &m}, 0);
    }

    Peer &a = newPeer(true);
    Peer &b = newPeer(true);
    Peer &m = newPeer(false);
    Update mUpdate;
    Peer *verifier = nullptr;
    Peer *bystander = nullptr;
};

} // namespace

// A member commits to pieces for owners of its choosing, to make owners accept what it likes.
TEST_F(VerificationAttackTest, ACommitmentNamingOtherThanTheRoundsOwnersIsRefused)
{
    startServer();
    for (Peer *peer : {&a, &b, &m})
        join(*peer);
    startRound({&a, &b, &m}, 0);
    const Update honest = makeUpdate();
    ASSERT_EQ(honest.commitment.pieces.size(), 2u) << "a and b own the ranges";
    const PieceHash forA = honest.commitment.pieces[0], forB = honest.commitment.pieces[1];
    const QString hash = forA.sha256;
    const std::vector<std::vector<PieceHash>> forged = {
        {forA, {m.keyId(), hash}},                     // m owns no range
        {forA, forB, {m.keyId(), hash}},               // one too many
        {forA, forA, forB},                            // an owner twice
        {forA, forA},                                  // one left out, the count made up
        {forA},                                        // one left out
        {forA, {QString(43, QLatin1Char('k')), hash}}, // a stranger
    };
    for (const std::vector<PieceHash> &pieces : forged) {
        const HttpAnswer refused = commit(m, CommitRequest{0, pieces});
        EXPECT_EQ(refused.status, 400) << refused.body.constData();
    }
    EXPECT_TRUE(setup->store->commitments(0, 0)->empty()) << "nothing of a refused commitment is kept";
    EXPECT_EQ(commit(m, honest.commitment).status, 200);
    EXPECT_EQ(setup->store->commitments(0, 0)->size(), 2u);
}

// A key outside the round, or a round not running, tries to plant commitments.
TEST_F(VerificationAttackTest, ACommitmentFromANonMemberOrForARoundNotRunningIsRefused)
{
    startServer();
    for (Peer *peer : {&a, &b, &m})
        join(*peer);
    ASSERT_EQ(currentRound().state, RoundState::Gathering);
    const HttpAnswer early = commit(a, CommitRequest{0, {{a.keyId(), QString(64, QLatin1Char('0'))}}});
    EXPECT_EQ(early.status, 409) << early.body.constData();
    startRound({&a, &b, &m}, 0);
    const Update update = makeUpdate();
    Peer &late = newPeer(false);
    join(late);
    const HttpAnswer outsider = commit(late, update.commitment);
    EXPECT_EQ(outsider.status, 403) << outsider.body.constData();
    const HttpAnswer ahead = commit(a, CommitRequest{1, update.commitment.pieces});
    EXPECT_EQ(ahead.status, 409) << ahead.body.constData();
    EXPECT_TRUE(setup->store->commitments(0, 0)->empty());
    EXPECT_TRUE(setup->store->commitments(1, 0)->empty());
}

// A member re-sends last round's update as this round's work, and retries when refused.
TEST_F(VerificationAttackTest, AReplayedCommitmentIsRefusedAndCountsOneOffenceHoweverOftenRetried)
{
    startServer();
    for (Peer *peer : {&a, &b, &m})
        join(*peer);
    startRound({&a, &b, &m}, 0);
    const Update first = makeUpdate();
    ASSERT_EQ(commit(a, first.commitment).status, 200);
    finishRound({&a, &b, &m}, 0);
    startRound({&a, &b, &m}, 1);

    CommitRequest replay = first.commitment;
    replay.round = 1;
    for (int attempt = 0; attempt < 4; ++attempt) {
        const HttpAnswer refused = commit(a, replay);
        EXPECT_EQ(refused.status, 400) << refused.body.constData();
        EXPECT_NE(refused.error().indexOf(QLatin1StringView("round 1")), -1) << refused.body.constData();
    }
    EXPECT_EQ(record(a).offences, 1) << "a retried request is one offence";
    EXPECT_FALSE(record(a).banned());
    EXPECT_TRUE(setup->store->commitments(1, 0)->empty());
    EXPECT_EQ(commit(a, makeUpdate().commitment).status, 200) << "new work is still taken";
    EXPECT_EQ(record(a).offences, 1);
}

// A member that is not the verifier reports on another's work, to refute it (or clear itself).
TEST_F(VerificationAttackTest, ASpotCheckReportFromAnyoneButTheVerifierChangesNothing)
{
    ASSERT_NO_FATAL_FAILURE(drawCheckOfM());
    ASSERT_EQ(upload(m, 0, mUpdate.bytes).status, 200);
    ASSERT_EQ(check(0, m).state, SpotCheckState::Checking);
    const HttpAnswer framed = report(*bystander, 0, m, 0.0);
    EXPECT_EQ(framed.status, 409) << framed.body.constData();
    EXPECT_EQ(report(m, 0, m, 1.0).status, 409) << "nor the checked member itself";
    EXPECT_EQ(check(0, m).state, SpotCheckState::Checking);
    EXPECT_DOUBLE_EQ(record(m).credit, roundCredit());
    EXPECT_EQ(record(m).offences, 0);
    EXPECT_EQ(record(m).verifiedRounds, 0);

    EXPECT_EQ(report(*verifier, 0, m, 1.0).status, 200) << "the verifier's report is the one that counts";
    EXPECT_EQ(check(0, m).state, SpotCheckState::Agreed);
    EXPECT_EQ(record(m).verifiedRounds, 1);
}

// A peer downloads another member's update to learn or copy it.
TEST_F(VerificationAttackTest, AnUpdateIsGivenToItsVerifierOnly)
{
    ASSERT_NO_FATAL_FAILURE(drawCheckOfM());
    ASSERT_EQ(upload(m, 0, mUpdate.bytes).status, 200);
    Peer &outsider = newPeer(false);
    join(outsider);
    const QByteArray target = "/v1/round/update?round=0&peer=" + m.keyId().toLatin1();
    EXPECT_EQ(send("GET", target, {}, *bystander).status, 404);
    EXPECT_EQ(send("GET", target, {}, m).status, 404);
    EXPECT_EQ(send("GET", target, {}, outsider).status, 404);
    const HttpAnswer given = send("GET", target, {}, *verifier);
    EXPECT_EQ(given.status, 200);
    EXPECT_EQ(given.body, mUpdate.bytes);
}

// A checked member sends a body larger than any update, to fill the coordinator's disk.
TEST_F(VerificationAttackTest, AnOversizedUploadIsRefusedBeforeItIsStored)
{
    ASSERT_NO_FATAL_FAILURE(drawCheckOfM());
    Reputation reputation(*setup->store, options.trust, [this] { return now; });
    const Verification sizes(*setup->store, server->rounds(), reputation, options.trust, dir.path() / "unused",
                             [this] { return now; });
    const HttpAnswer refused = upload(m, 0, QByteArray(sizes.maxUpdateBytes() + 1, 'x'));
    EXPECT_EQ(refused.status, 413) << refused.body.constData();
    EXPECT_EQ(check(0, m).state, SpotCheckState::AwaitingUpdate);
    EXPECT_TRUE(check(0, m).updateFile.isEmpty());
    EXPECT_FALSE(std::filesystem::exists(setup->stateDir / "updates")
                 && !std::filesystem::is_empty(setup->stateDir / "updates"));
    for (const auto &entry : std::filesystem::directory_iterator(setup->checkpointsDir()))
        EXPECT_EQ(entry.path().filename().string().rfind("incoming-", 0), std::string::npos) << entry.path();
    EXPECT_DOUBLE_EQ(record(m).credit, roundCredit()) << "too large is refused, not judged";
}

// A checked member uploads pieces other than those it committed to (equivocation).
TEST_F(VerificationAttackTest, AnUploadThatDiffersFromTheCommitmentRefutesTheMember)
{
    ASSERT_NO_FATAL_FAILURE(drawCheckOfM());
    ASSERT_DOUBLE_EQ(record(m).credit, roundCredit());
    QByteArray other = mUpdate.bytes;
    other.back() = char(other.back() ^ 1);
    const HttpAnswer refuted = upload(m, 0, other);
    EXPECT_EQ(refuted.status, 400) << refuted.body.constData();
    EXPECT_EQ(check(0, m).state, SpotCheckState::Refuted);
    EXPECT_DOUBLE_EQ(record(m).credit, 0.0) << "the round's credit is taken back";
    EXPECT_EQ(record(m).tokens, 0);
    EXPECT_EQ(record(m).offences, 1);
    EXPECT_FALSE(setup->store->lastContribution(m.keyId())->value().accepted.value_or(true));
    EXPECT_EQ(upload(m, 0, mUpdate.bytes).status, 409) << "a second try after the refutation";
}

// A noise freeloader joins under a fresh key, knowing each check of its work takes an honest
// verifier out of a round: an established member refutes its first checked round, and it is banned
// at once. A refutation of a member whose work was found honest before counts one offence, and
// so does a newcomer's refutation of a newcomer (below).
TEST_F(VerificationAttackTest, AStrangerRefutedByAnEstablishedVerifierIsBannedAtOnce)
{
    options.trust.spotCheckRate = 1.0;
    options.trust.spotCheckRateNew = 1.0;
    options.tickMs = 20; // hands the second check to a verifier once one is free
    startServer();
    Peer &known = newPeer(false);
    const std::vector<Peer *> members{&a, &b, &m, &known};
    for (Peer *peer : members)
        join(*peer);
    for (Peer *peer : {&a, &b, &known})
        makeEstablished(*peer);
    startRound(members, 0);
    const Update mWork = makeUpdate(), knownWork = makeUpdate();
    ASSERT_EQ(commit(m, mWork.commitment).status, 200);
    ASSERT_EQ(commit(known, knownWork.commitment).status, 200);
    finishRound(members, 0); // a and b committed nothing: only m's and known's work is drawn

    // One check at a time (a third of the three established): each refuted as its verifier comes.
    const auto refute = [&](Peer &member, const Update &work) {
        ASSERT_TRUE(QTest::qWaitFor([&] { return !check(0, member).verifierKeyId.isEmpty(); }, 60'000));
        ASSERT_EQ(upload(member, 0, work.bytes).status, 200);
        Peer *checker = byKey(check(0, member).verifierKeyId);
        ASSERT_NE(checker, nullptr);
        ASSERT_NE(checker, &m) << "a newcomer verified";
        EXPECT_EQ(report(*checker, 0, member, 0.1).status, 200);
        EXPECT_EQ(check(0, member).state, SpotCheckState::Refuted);
    };
    const bool mFirst = !check(0, m).verifierKeyId.isEmpty();
    ASSERT_NO_FATAL_FAILURE(mFirst ? refute(m, mWork) : refute(known, knownWork));
    ASSERT_NO_FATAL_FAILURE(mFirst ? refute(known, knownWork) : refute(m, mWork));

    EXPECT_EQ(record(m).offences, 1);
    EXPECT_TRUE(record(m).banned()) << "a stranger's first refuted round bans it";
    EXPECT_DOUBLE_EQ(record(m).credit, 0.0);
    EXPECT_EQ(record(known).offences, 1);
    EXPECT_FALSE(record(known).banned()) << "it had work found honest: offences count";
    EXPECT_EQ(record(known).verifiedRounds, 0) << "and now it has none";
}

// Three newcomers and no one established: a newcomer's word alone bans no one.
TEST_F(VerificationAttackTest, ANewcomersRefutationOfANewcomerCountsOneOffence)
{
    ASSERT_NO_FATAL_FAILURE(drawCheckOfM());
    ASSERT_EQ(upload(m, 0, mUpdate.bytes).status, 200);
    EXPECT_EQ(report(*verifier, 0, m, 0.1).status, 200);
    EXPECT_EQ(check(0, m).state, SpotCheckState::Refuted);
    EXPECT_EQ(record(m).offences, 1);
    EXPECT_FALSE(record(m).banned());
}

// Newcomers (sybils) get drawn in numbers to become verifiers or to tie up every established one.
TEST_F(VerificationAttackTest, NewcomersNeverVerifyAndAtMostAThirdOfTheEstablishedDo)
{
    options.trust.spotCheckRateNew = 1.0;
    startServer();
    Peer &owner = newPeer(true);
    std::vector<Peer *> established{&owner}, newcomers, members;
    for (int i = 0; i < 5; ++i)
        established.push_back(&newPeer(false));
    for (int i = 0; i < 3; ++i)
        newcomers.push_back(&newPeer(false));
    members = established;
    members.insert(members.end(), newcomers.begin(), newcomers.end());
    for (Peer *peer : members)
        join(*peer);
    for (Peer *peer : established)
        makeEstablished(*peer);
    startRound(members, 0);
    for (Peer *peer : newcomers)
        ASSERT_EQ(commit(*peer, makeUpdate().commitment).status, 200);
    finishRound(members, 0);

    const std::vector<SpotCheckRecord> open = setup->store->openSpotChecks().value();
    ASSERT_EQ(open.size(), newcomers.size()) << "each newcomer's round is drawn";
    std::set<QString> verifiers;
    for (const SpotCheckRecord &c : open) {
        if (c.verifierKeyId.isEmpty())
            continue;
        verifiers.insert(c.verifierKeyId);
        Peer *chosen = byKey(c.verifierKeyId);
        ASSERT_NE(chosen, nullptr);
        EXPECT_NE(std::find(established.begin(), established.end(), chosen), established.end())
            << "a newcomer was made verifier";
    }
    EXPECT_EQ(verifiers.size(), 2u) << "six established online: two verify at once, the third check waits";
    int told = 0;
    for (Peer *peer : members)
        told += tasks(*peer).spotCheck.has_value() ? 1 : 0;
    EXPECT_EQ(told, 2);
}

// A sign-flipper the owners leave out of their averages, and a freeloader whose pieces they
// refuse, at the highest check rates: neither earns the round, and no one spends a round
// recomputing work already taken back; only the refused one is counted an offence. The one left
// out is quarantined: on probation (its pieces out of the average) and uncredited, even with no
// probation rounds set, until a spot check agrees with its work; its next round is drawn for one.
TEST_F(VerificationAttackTest, AMemberTheOwnersLeftOutOrRefusedEarnsNothingAndCostsNoCheck)
{
    options.trust.spotCheckRate = 1.0;
    options.trust.spotCheckRateNew = 1.0;
    options.trust.probationRounds = 0;
    startServer();
    Peer &flipper = newPeer(false);
    Peer &freeloader = newPeer(false);
    const std::vector<Peer *> members{&a, &b, &flipper, &freeloader};
    for (Peer *peer : members)
        join(*peer);
    for (Peer *peer : members)
        makeEstablished(*peer);
    startRound(members, 0);
    for (Peer *peer : {&flipper, &freeloader})
        ASSERT_EQ(commit(*peer, makeUpdate().commitment).status, 200);
    for (Peer *owner : {&a, &b}) {
        ContributionRequest request = contribution(0);
        request.leftOut = {flipper.keyId()};
        request.refused = {freeloader.keyId()};
        ASSERT_EQ(contribute(*owner, request).status, 200);
    }
    for (Peer *peer : {&flipper, &freeloader})
        ASSERT_EQ(contribute(*peer, 0).status, 200);
    ASSERT_EQ(currentRound().number, 1);

    for (Peer *peer : {&flipper, &freeloader}) {
        const ContributionRecord last = setup->store->lastContribution(peer->keyId())->value();
        EXPECT_FALSE(last.accepted.value_or(true));
        EXPECT_EQ(last.credit, 0.0);
        EXPECT_EQ(record(*peer).acceptedRounds, 0) << "back on probation";
        EXPECT_FALSE(setup->store->spotCheck(0, peer->keyId())->has_value()) << "a check of work taken back";
    }
    EXPECT_EQ(record(flipper).offences, 0) << "being far from the others proves nothing";
    EXPECT_EQ(record(freeloader).offences, 1);
    for (Peer *owner : {&a, &b})
        EXPECT_TRUE(setup->store->lastContribution(owner->keyId())->value().accepted.value_or(false));

    EXPECT_TRUE(record(flipper).quarantined);
    EXPECT_FALSE(record(freeloader).quarantined);

    makeEstablished(freeloader); // as if verified again: only the quarantine holds the flipper back
    startRound(members, 1);
    for (const RoundMember &member : currentRound().members)
        EXPECT_EQ(member.probation, member.keyId == flipper.keyId()) << member.keyId.toStdString();
    ASSERT_EQ(commit(flipper, makeUpdate().commitment).status, 200);
    for (Peer *peer : members)
        ASSERT_EQ(contribute(*peer, 1).status, 200);
    ASSERT_EQ(currentRound().number, 2);
    const ContributionRecord quarantined = setup->store->lastContribution(flipper.keyId())->value();
    EXPECT_EQ(quarantined.round, 1);
    EXPECT_EQ(quarantined.credit, 0.0) << "a quarantined member's rounds earn nothing";
    EXPECT_TRUE(setup->store->spotCheck(1, flipper.keyId())->has_value()) << "the check that could end it is drawn";
    EXPECT_TRUE(record(flipper).quarantined);
}

// A key piles up offences after earning credit, hoping to keep what it earned.
TEST_F(VerificationAttackTest, ABanForfeitsTheKeysCredit)
{
    options.trust.banAfterOffences = 2;
    startServer();
    for (Peer *peer : {&a, &b, &m})
        join(*peer);
    startRound({&a, &b, &m}, 0);
    finishRound({&a, &b, &m}, 0);
    startRound({&a, &b, &m}, 1);
    const Update last = makeUpdate();
    ASSERT_EQ(commit(a, last.commitment).status, 200);
    finishRound({&a, &b, &m}, 1);
    ASSERT_DOUBLE_EQ(record(a).credit, 2 * roundCredit());
    ASSERT_GT(record(a).tokens, 0);

    startRound({&a, &b, &m}, 2);
    CommitRequest replay = last.commitment;
    replay.round = 2;
    EXPECT_EQ(commit(a, replay).status, 400);
    const qint64 work = server->rounds().settings().work.tokensPerMember;
    EXPECT_EQ(contribute(a, 2, work * 1000).status, 400); // an inflated claim: the second offence
    EXPECT_TRUE(record(a).banned());
    EXPECT_DOUBLE_EQ(record(a).credit, 0.0);
    EXPECT_EQ(record(a).tokens, 0);
    EXPECT_DOUBLE_EQ(record(b).credit, 2 * roundCredit()) << "honest members keep theirs";
}

// A verifier takes a check and disappears, hoping the checked work goes unchecked (and credited).
TEST_F(VerificationAttackTest, ACheckWhoseVerifierLeftGoesToAnotherOnTheTick)
{
    options.trust.spotCheckRateNew = 1.0;
    options.tickMs = 20;
    startServer();
    Peer &newcomer = newPeer(false);
    Peer &c = newPeer(false);
    const std::vector<Peer *> established{&a, &b, &c}, members{&a, &b, &c, &newcomer};
    for (Peer *peer : members)
        join(*peer);
    for (Peer *peer : established)
        makeEstablished(*peer);
    startRound(members, 0);
    ASSERT_EQ(commit(newcomer, makeUpdate().commitment).status, 200);
    finishRound(members, 0);
    Peer *gone = byKey(check(0, newcomer).verifierKeyId);
    ASSERT_NE(gone, nullptr);
    ASSERT_NE(gone, &newcomer);

    // The verifier misses its heartbeats; everyone else stays.
    now += qint64(options.rounds.missedHeartbeats + 1) * options.rounds.heartbeatIntervalMs;
    for (Peer *peer : members) {
        if (peer != gone) {
            ASSERT_EQ(heartbeat(*peer, QStringLiteral("idle"), 1).status, 200);
        }
    }
    const bool reassigned = QTest::qWaitFor(
        [&] {
            const QString current = check(0, newcomer).verifierKeyId;
            return !current.isEmpty() && current != gone->keyId();
        },
        60'000);
    ASSERT_TRUE(reassigned) << "still " << check(0, newcomer).verifierKeyId.toStdString();
    const SpotCheckRecord taken = check(0, newcomer);
    EXPECT_EQ(taken.state, SpotCheckState::AwaitingUpdate) << "given on, not expired";
    Peer *next = byKey(taken.verifierKeyId);
    EXPECT_NE(std::find(established.begin(), established.end(), next), established.end());
    const std::optional<SpotCheckTask> task = tasks(*next).spotCheck;
    ASSERT_TRUE(task.has_value());
    EXPECT_EQ(task->peerId, newcomer.keyId());
    EXPECT_EQ(tasks(newcomer).uploadUpdateRound, std::optional<qint64>(0));
}

// More newcomers than verifiers: a check waiting for one must not lapse into credited, unchecked
// work, and when a verifier takes it on it gets the whole time to do it.
TEST_F(VerificationAttackTest, ACheckWaitingForAVerifierNeverLapsesAndGetsTheWholeTime)
{
    options.trust.spotCheckRate = 1.0;
    options.trust.spotCheckRateNew = 1.0;
    options.tickMs = 20;
    startServer();
    Peer &e = newPeer(false);
    const std::vector<Peer *> members{&a, &e, &m};
    for (Peer *peer : members)
        join(*peer);
    makeEstablished(a);
    makeEstablished(e); // a and e may verify, one at a time (a third of them, at least one)
    // Round 0: e's work is checked, by a (no one checks their own), and its update is in: a is at work.
    startRound(members, 0);
    const Update eWork = makeUpdate();
    ASSERT_EQ(commit(e, eWork.commitment).status, 200);
    finishRound(members, 0);
    ASSERT_EQ(check(0, e).verifierKeyId, a.keyId());
    ASSERT_EQ(upload(e, 0, eWork.bytes).status, 200);
    // Round 1 (an established member's check holds no round): m's work is drawn and waits.
    startRound(members, 1);
    ASSERT_EQ(commit(m, makeUpdate().commitment).status, 200);
    finishRound(members, 1);
    ASSERT_TRUE(check(1, m).verifierKeyId.isEmpty());
    const double credit = record(m).credit;
    ASSERT_GT(credit, 0.0);

    // Past the time: a never reported e's check, which expires; a is then free.
    now += options.trust.spotCheckTimeoutMs + 1;
    for (Peer *peer : members)
        ASSERT_EQ(heartbeat(*peer, QStringLiteral("idle"), 2).status, 200);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !check(1, m).verifierKeyId.isEmpty(); }, 60'000));
    EXPECT_EQ(check(0, e).state, SpotCheckState::Expired);
    const SpotCheckRecord taken = check(1, m);
    EXPECT_TRUE(taken.verifierKeyId == a.keyId() || taken.verifierKeyId == e.keyId());
    EXPECT_EQ(taken.state, SpotCheckState::AwaitingUpdate) << "waited, did not lapse";
    EXPECT_EQ(taken.assignedMs, now) << "the verifier's time starts when it is given the check";
    EXPECT_DOUBLE_EQ(record(m).credit, credit);
}

// The member asked for the round's new state has its work taken back as the round closes (two
// owners refused its pieces), and may be banned before it sends it: the state is asked of an
// accepted owner instead, or the coordinator might never hold (nor validate) that state.
TEST_F(VerificationAttackTest, TheNewStateIsNotAskedOfAMemberWhoseWorkWasTakenBack)
{
    options.trust.probationRounds = 0;
    startServer();
    Peer &c = newPeer(true);
    const std::vector<Peer *> members{&a, &b, &c};
    for (Peer *peer : members)
        join(*peer);
    for (Peer *peer : members)
        makeEstablished(*peer);
    startRound(members, 0);
    // c reports first, so it is the first accepted owner, the one the state is asked of.
    ASSERT_EQ(contribute(c, 0).status, 200);
    now += 1000;
    for (Peer *owner : {&a, &b}) {
        ContributionRequest request = contribution(0);
        request.refused = {c.keyId()};
        ASSERT_EQ(contribute(*owner, request).status, 200);
    }
    ASSERT_EQ(currentRound().number, 1);
    EXPECT_FALSE(setup->store->lastContribution(c.keyId())->value().accepted.value_or(true));
    EXPECT_EQ(record(c).offences, 1);
    const std::optional<RoundRecord> closed = setup->store->round(0).value();
    ASSERT_TRUE(closed.has_value());
    EXPECT_NE(closed->uploaderKeyId.toStdString(), c.keyId().toStdString());
    EXPECT_TRUE(closed->uploaderKeyId == a.keyId() || closed->uploaderKeyId == b.keyId()) << closed->uploaderKeyId.toStdString();
}

// A newcomer's check costs the swarm time, never an honest round: the next round waits for the
// verifier (ready before it heard of the check, then checking, then training), and runs with it
// once it is ready again. A verifier that never comes back holds it for the round deadline after
// the update came, no longer.
TEST_F(VerificationAttackTest, ANewcomersCheckHoldsTheNextRoundUntilItsVerifierIsReadyAgain)
{
    options.trust.spotCheckRateNew = 1.0;
    const Update work = drawCheckOfMByAnEstablished(false);
    ASSERT_FALSE(HasFailure());
    ASSERT_NO_FATAL_FAILURE(holdState(1)); // its uploader sent it

    // Everyone ready on state 1, the verifier too (it has not heard of the check yet).
    for (Peer *peer : {bystander, &m, verifier})
        ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Gathering) << "the round went on without the verifier";
    ASSERT_EQ(heartbeat(*verifier, QStringLiteral("verifying"), 1).status, 200);
    ASSERT_EQ(upload(m, 0, work.bytes).status, 200);
    ASSERT_EQ(report(*verifier, 0, m, 1.0).status, 200);
    ASSERT_EQ(check(0, m).state, SpotCheckState::Agreed);
    ASSERT_EQ(heartbeat(*bystander, QStringLiteral("ready"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Gathering) << "the verifier is still checking";
    ASSERT_EQ(heartbeat(*verifier, QStringLiteral("training"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Gathering) << "the verifier is training its own round";
    ASSERT_EQ(heartbeat(*verifier, QStringLiteral("ready"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Running);
    EXPECT_EQ(currentRound().members.size(), 3u) << "the verifier kept its round";

    // Round 2's check of m (its second probation round): this verifier never comes back.
    const Update again = makeUpdate();
    ASSERT_EQ(commit(m, again.commitment).status, 200);
    finishRound({&a, &b, &m}, 1);
    ASSERT_NO_FATAL_FAILURE(holdState(2));
    Peer *gone = byKey(check(1, m).verifierKeyId);
    ASSERT_NE(gone, nullptr);
    now += 1000;
    ASSERT_EQ(upload(m, 1, again.bytes).status, 200);
    ASSERT_EQ(heartbeat(*gone, QStringLiteral("verifying"), 2).status, 200);
    for (Peer *peer : {&a, &b, &m}) {
        if (peer == gone)
            continue;
        ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 2).status, 200);
    }
    // The verifier's heartbeat first: a peer not heard from for so long is offline, and holds nothing.
    const auto beat = [&] {
        ASSERT_EQ(heartbeat(*gone, QStringLiteral("verifying"), 2).status, 200);
        for (Peer *peer : {&a, &b, &m}) {
            if (peer == gone)
                continue;
            ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 2).status, 200);
        }
    };
    now += options.rounds.roundDeadlineMs - 1;
    ASSERT_NO_FATAL_FAILURE(beat());
    EXPECT_EQ(currentRound().state, RoundState::Gathering);
    now += 1;
    ASSERT_NO_FATAL_FAILURE(beat());
    const RoundRecord running = currentRound();
    EXPECT_EQ(running.state, RoundState::Running) << "held past the round deadline";
    EXPECT_TRUE(std::none_of(running.members.begin(), running.members.end(),
                             [&](const RoundMember &member) { return member.keyId == gone->keyId(); }));
}

// An established member's (rare) check costs its verifier the next round instead, the cheaper
// way in a swarm of many: the round does not wait.
TEST_F(VerificationAttackTest, AnEstablishedMembersCheckTakesItsVerifierOutOfTheNextRound)
{
    options.trust.spotCheckRate = 1.0;
    drawCheckOfMByAnEstablished(true);
    ASSERT_FALSE(HasFailure());
    ASSERT_NO_FATAL_FAILURE(holdState(1)); // its uploader sent it
    ASSERT_EQ(heartbeat(*verifier, QStringLiteral("verifying"), 1).status, 200);
    for (Peer *peer : {bystander, &m})
        ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Running);
    EXPECT_EQ(currentRound().members.size(), 2u);
}

// A check goes to a verifier that replays the round in reasonable time (issue 43): of two free
// established members, not b, five times slower than the member, though a owes the swarm state 1
// (it uploads it), which would otherwise leave the check to b.
TEST_F(VerificationAttackTest, ANewcomersCheckGoesToAVerifierThatReplaysItInTime)
{
    drawCheckOfMAtSpeeds(1500.0, 300.0);
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(setup->store->round(0).value()->uploaderKeyId, a.keyId());
    EXPECT_EQ(check(0, m).verifierKeyId, a.keyId());
}

// Verification does not stall (issue 43): the only verifiers free are five times slower than the
// newcomer they check, so the replay would hold the swarm for five of its rounds. The check goes
// on, but the next round does not wait for it: the verifier sits it out.
TEST_F(VerificationAttackTest, ANewcomersCheckBySlowerVerifiersHoldsNoRound)
{
    drawCheckOfMAtSpeeds(300.0, 300.0);
    ASSERT_FALSE(HasFailure());
    verifier = byKey(check(0, m).verifierKeyId);
    ASSERT_TRUE(verifier == &a || verifier == &b);
    bystander = verifier == &a ? &b : &a;
    ASSERT_NO_FATAL_FAILURE(holdState(1));
    ASSERT_EQ(heartbeat(*verifier, QStringLiteral("verifying"), 1).status, 200);
    for (Peer *peer : {bystander, &m})
        ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 1).status, 200);
    EXPECT_EQ(currentRound().state, RoundState::Running) << "the round waited for a slow replay";
    EXPECT_EQ(currentRound().members.size(), 2u);
}

// A stranger drawn for a check that never sends its update gains nothing by it: the next round
// waits for the verifier no longer than it waits for any peer not ready, the gather timeout.
TEST_F(VerificationAttackTest, AStrangerWithholdingItsUpdateHoldsTheNextRoundNoLongerThanTheGatherTimeout)
{
    options.trust.spotCheckRateNew = 1.0;
    options.rounds.gatherTimeoutMs = 10'000;
    drawCheckOfMByAnEstablished(false);
    ASSERT_FALSE(HasFailure());
    ASSERT_NO_FATAL_FAILURE(holdState(1)); // its uploader sent it
    const auto beat = [&] {
        ASSERT_EQ(heartbeat(*verifier, QStringLiteral("verifying"), 1).status, 200);
        for (Peer *peer : {bystander, &m})
            ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), 1).status, 200);
    };
    ASSERT_NO_FATAL_FAILURE(beat());
    now += options.rounds.gatherTimeoutMs - 1;
    ASSERT_NO_FATAL_FAILURE(beat());
    EXPECT_EQ(currentRound().state, RoundState::Gathering) << "the verifier waits for the update";
    now += 1;
    ASSERT_NO_FATAL_FAILURE(beat());
    EXPECT_EQ(currentRound().state, RoundState::Running) << "held past the gather timeout";
    EXPECT_EQ(currentRound().members.size(), 2u);
}

// A stranger drawn for a check that withholds its update ties up no verifier: the check waiting
// for the update keeps its verifier free to train and to take another check, and the verifier is
// asked to work only on the check whose update is in.
TEST_F(VerificationAttackTest, AStrangerWithholdingItsUpdateTiesUpNoVerifier)
{
    options.trust.spotCheckRateNew = 1.0;
    options.tickMs = 20; // hands the second check to a verifier on the ticker
    startServer();
    Peer &n = newPeer(false);
    const std::vector<Peer *> members{&a, &m, &n};
    for (Peer *peer : members)
        join(*peer);
    makeEstablished(a); // the only one who may verify
    startRound(members, 0);
    const Update nWork = makeUpdate();
    ASSERT_EQ(commit(m, makeUpdate().commitment).status, 200);
    ASSERT_EQ(commit(n, nWork.commitment).status, 200);
    finishRound(members, 0);
    // m withholds its update; whichever check a got first, a takes the other one too.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return check(0, m).verifierKeyId == a.keyId() && check(0, n).verifierKeyId == a.keyId(); }, 60'000));
    const HeartbeatAnswer before = tasks(a);
    ASSERT_TRUE(before.spotCheck.has_value());
    EXPECT_FALSE(before.spotCheck->updateReady) << "no update is in: a trains on";
    ASSERT_EQ(upload(n, 0, nWork.bytes).status, 200);
    const HeartbeatAnswer after = tasks(a);
    ASSERT_TRUE(after.spotCheck.has_value());
    EXPECT_EQ(after.spotCheck->peerId, n.keyId()) << "the check whose update is in comes first";
    EXPECT_TRUE(after.spotCheck->updateReady);
    EXPECT_EQ(report(a, 0, n, 1.0).status, 200);
    EXPECT_EQ(check(0, n).state, SpotCheckState::Agreed);
    EXPECT_EQ(check(0, m).state, SpotCheckState::AwaitingUpdate);
}
