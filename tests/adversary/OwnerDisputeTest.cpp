// Two owners per range (issue 16), the coordinator's side, in-process: each owner's range has a
// checker drawn anew each round (rangeCheckers()); partners that disagree dispute each
// other in their contributions, and the coordinator finds the lying owner as the one disputed by
// more partners than any of its partners. A lying owner, a stranger's accusation, a liar that
// blames the honest, and the commitments a checker needs to recompute the range it checks. And an
// owner's evidence (issue 43, OwnerEvidence.h): an honest one's holds, a liar's does not and names
// it at once, and evidence that cannot be an owner's is refused.
#include "InProcessCoordinatorTest.h"
#include "OwnerDisputes.h"
#include "RangeAggregation.h"

#include <map>
#include <random>
#include <set>

using namespace swarmtrain;
using namespace swarmtrain::test;

namespace {

class OwnerDisputeTest : public InProcessCoordinatorTest {
protected:
    void SetUp() override
    {
        InProcessCoordinatorTest::SetUp();
        // Everyone stays a newcomer, so every member that accepts connections owns a range in
        // every round (with established members there, one whose round was taken back would be
        // on probation again and own none).
        options.trust.probationRounds = 1'000'000;
    }

    // The checker of each owner's range in the running round, as the clients pair them.
    std::map<QString, QString> checkers() { return rangeCheckersOf(currentRound()); }
    // ...and the referee of each.
    std::map<QString, QString> referees() { return rangeRefereesOf(currentRound()); }
    Peer &checkerOf(const Peer &owner) { return *byKey(checkers().at(owner.keyId())); }
    Peer &refereeOf(const Peer &owner) { return *byKey(referees().at(owner.keyId())); }
    // The owner whose range `checker` checks in the running round.
    Peer &checkedBy(const Peer &checker)
    {
        for (const auto &[owner, itsChecker] : checkers()) {
            if (itsChecker == checker.keyId())
                return *byKey(owner);
        }
        ADD_FAILURE() << "it checks no range";
        return *byKey(checker.keyId());
    }
    // An owner that may not dispute `owner`: neither its checker nor the owner it checks, nor
    // the referee of its range or of the range it checks.
    std::vector<Peer *> strangersTo(const Peer &owner, const std::vector<Peer *> &owners)
    {
        const std::map<QString, QString> pairs = checkers(), judges = referees();
        QStringList partners{pairs.at(owner.keyId()), judges.at(owner.keyId())};
        for (const auto &[rangeOwner, checker] : pairs) {
            if (checker == owner.keyId())
                partners << rangeOwner << judges.at(rangeOwner);
        }
        std::vector<Peer *> strangers;
        for (Peer *other : owners) {
            if (other != &owner && !partners.contains(other->keyId()))
                strangers.push_back(other);
        }
        return strangers;
    }

    // Every member reports the same result, naming the peers it disputes; the round closes.
    void closeRound(const std::vector<Peer *> &members, qint64 round, const std::map<const Peer *, QStringList> &disputed)
    {
        for (Peer *peer : members) {
            ContributionRequest request = contribution(round);
            if (const auto found = disputed.find(peer); found != disputed.end())
                request.disputed = found->second;
            ASSERT_EQ(contribute(*peer, request).status, 200);
        }
        ASSERT_EQ(currentRound().number, round + 1);
    }

    std::vector<UpdateReportRecord> disputesOf(qint64 round)
    {
        const std::vector<UpdateReportRecord> reports = setup->store->updateReports(round, 0).value();
        std::vector<UpdateReportRecord> disputes;
        for (const UpdateReportRecord &report : reports) {
            if (report.kind == QLatin1StringView("disputed"))
                disputes.push_back(report);
        }
        return disputes;
    }

    ContributionRecord lastContribution(const Peer &peer)
    {
        return setup->store->lastContribution(peer.keyId())->value_or(ContributionRecord{});
    }

    void joinAll(const std::vector<Peer *> &members)
    {
        for (Peer *peer : members)
            join(*peer);
    }

    // Real pieces (issue 43): every member's encoded piece of every owner's range in the running
    // round, committed, by owner then sender; and an owner's evidence of its range, its average
    // what its pieces make (scaled by `lie`: a lying owner's).
    using Pieces = std::map<QString, std::map<QString, QByteArray>>;
    Pieces commitRealPieces(const std::vector<Peer *> &members)
    {
        const RoundRecord round = currentRound();
        Pieces pieces;
        for (Peer *peer : members) {
            CommitRequest commitment{round.number, {}};
            for (const RoundMember &owner : ownersByRange(round)) {
                std::vector<float> values(std::size_t(owner.end - owner.begin));
                std::uniform_real_distribution<float> uniform(-0.01f, 0.01f);
                for (float &value : values)
                    value = uniform(random);
                const std::vector<std::byte> encoded = encodeQuantized(quantize(values).value());
                const QByteArray bytes(reinterpret_cast<const char *>(encoded.data()), qsizetype(encoded.size()));
                pieces[owner.keyId][peer->keyId()] = bytes;
                commitment.pieces.push_back(
                    {owner.keyId, QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex())});
            }
            EXPECT_EQ(commit(*peer, commitment).status, 200);
        }
        return pieces;
    }

    RangeEvidence evidenceOf(const Peer &owner, const Pieces &pieces, float lie = 1.0f)
    {
        const RoundRecord round = currentRound();
        const auto range = std::find_if(round.members.begin(), round.members.end(),
                                        [&](const RoundMember &m) { return m.keyId == owner.keyId(); });
        const std::size_t count = std::size_t(range->end - range->begin);
        RangeEvidence evidence{round.number, round.attempt, range->begin, range->end, {}, {}};
        std::vector<std::vector<float>> values;
        std::vector<RangePiece> inputs;
        for (const auto &[sender, bytes] : pieces.at(owner.keyId())) {
            evidence.pieces.emplace_back(sender, bytes);
            values.push_back(dequantize(
                decodeQuantized(std::span(reinterpret_cast<const std::byte *>(bytes.constData()), std::size_t(bytes.size())), count)
                    .value()));
        }
        for (const std::vector<float> &v : values)
            inputs.push_back({v});
        std::vector<float> average = aggregateRange(inputs, count, {}).value();
        for (float &value : average)
            value *= lie;
        const std::vector<std::byte> encoded = encodeQuantized(quantize(average).value());
        evidence.average = QByteArray(reinterpret_cast<const char *>(encoded.data()), qsizetype(encoded.size()));
        return evidence;
    }

    HttpAnswer sendEvidence(Peer &owner, const RangeEvidence &evidence)
    {
        return post(owner, "/v1/round/evidence", evidence.toJson());
    }

    // Colluders among an owner's partners (issue 43), `rounds` rounds from round 0: each round
    // `owner` sends its evidence, which holds; its checker and its referee dispute it and report
    // applying another average to its range (as their referee's ruling would have every member
    // do; with rulings, only they follow it and so report another result); everyone else reports
    // the owner's average. Returns the colluders of all the rounds. With rulings, the colluders'
    // contributions are not accepted. `skip`: the colluders report skipping the range instead.
    std::set<QString> frameEveryRound(Peer &owner, qint64 rounds, bool skip = false)
    {
        const bool rulings = options.trust.rangeRulings;
        std::set<QString> colluders;
        for (qint64 round = 0; round < rounds; ++round) {
            startRound(owners, round);
            const Pieces pieces = commitRealPieces(owners);
            Peer &checker = checkerOf(owner), &referee = *byKey(referees().at(owner.keyId()));
            colluders.insert({checker.keyId(), referee.keyId()});
            const RoundRecord running = currentRound();
            const auto range = std::find_if(running.members.begin(), running.members.end(),
                                            [&](const RoundMember &m) { return m.keyId == owner.keyId(); });
            const QByteArray ruling = "/v1/round/ruling?round=" + QByteArray::number(round) + "&owner=" + owner.keyId().toLatin1();
            const HttpAnswer pending = send("GET", ruling, {}, checker);
            EXPECT_EQ(pending.status, rulings ? 200 : 404) << pending.body.constData();
            if (rulings)
                EXPECT_EQ(RangeRuling::fromJson(pending.json()).value().state, RangeRuling::State::Pending);
            const RangeEvidence evidence = evidenceOf(owner, pieces);
            EXPECT_TRUE(EvidenceRuling::fromJson(sendEvidence(owner, evidence).json()).value().upheld);
            const QString upheld = QString::fromLatin1(QCryptographicHash::hash(evidence.average, QCryptographicHash::Sha256).toHex());
            if (rulings) {
                const RangeRuling answer = RangeRuling::fromJson(send("GET", ruling, {}, h2).json()).value();
                EXPECT_EQ(answer.state, RangeRuling::State::Upheld);
                EXPECT_EQ(answer.averageSha256, upheld);
            }
            for (Peer *peer : owners) {
                ContributionRequest request = contribution(round);
                const bool colluder = peer == &checker || peer == &referee;
                if (!colluder || !skip)
                    request.averages.push_back({range->begin, colluder ? QString(64, QLatin1Char('e')) : upheld});
                if (colluder) {
                    request.disputed = {owner.keyId()};
                    if (rulings) // without, every member applies what the referee says
                        request.paramsHash = QString(64, QLatin1Char('c'));
                } else if (peer == &owner) {
                    request.disputed = {checker.keyId()};
                }
                EXPECT_EQ(contribute(*peer, request).status, 200);
            }
            EXPECT_EQ(currentRound().number, round + 1);
            EXPECT_EQ(lastContribution(owner).accepted.value_or(false), rulings) << "the colluders' votes left out, or not";
            EXPECT_EQ(lastContribution(checker).accepted.value_or(false), !rulings);
        }
        return colluders;
    }

    // Range audits (Verification::rangeAudit): `owner` names the average of `evidence` as the one it
    // sent, with the pieces in it.
    static AverageClaim claimOf(const RoundRecord &round, const RangeEvidence &evidence)
    {
        AverageClaim claim{round.number, round.attempt, sha256Of(evidence.average), {}};
        for (const auto &[sender, piece] : evidence.pieces)
            claim.contributors.append(sender);
        return claim;
    }
    HttpAnswer nameAverage(Peer &owner, const RangeEvidence &evidence)
    {
        return post(owner, "/v1/round/average", claimOf(currentRound(), evidence).toJson());
    }
    // ...and `checker` its verdict on it (`owner`'s range), as it checked it.
    HttpAnswer nameVerdict(Peer &checker, const Peer &owner, const RangeEvidence &evidence, bool agrees = true)
    {
        AverageClaim verdict = claimOf(currentRound(), evidence);
        verdict.owner = owner.keyId();
        verdict.agrees = agrees;
        return post(checker, "/v1/round/average", verdict.toJson());
    }
    // Each of `named` names its honest average, and its checker vouches for it (and its referee,
    // where referees check every average).
    void nameAndVouch(const std::vector<Peer *> &named, const Pieces &pieces)
    {
        for (Peer *owner : named) {
            const RangeEvidence evidence = evidenceOf(*owner, pieces);
            ASSERT_EQ(nameAverage(*owner, evidence).status, 200);
            ASSERT_EQ(nameVerdict(checkerOf(*owner), *owner, evidence).status, 200);
            if (options.trust.refereeChecks) {
                ASSERT_EQ(nameVerdict(refereeOf(*owner), *owner, evidence).status, 200);
            }
        }
    }
    RangeAudit auditAsSeenBy(Peer &member)
    {
        const HttpAnswer answer = send("GET", "/v1/round/audit?round=" + QByteArray::number(currentRound().number), {}, member);
        EXPECT_EQ(answer.status, 200) << answer.body.constData();
        Result<RangeAudit> audit = RangeAudit::fromJson(answer.json());
        return audit ? *audit : RangeAudit{};
    }
    static QString sha256Of(const QByteArray &bytes)
    {
        return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    }
    // Each of `members` contributes; those in `applying` report applying `average` to `owner`'s
    // range, the others report skipping it. The round closes.
    // The others report applying `redone`, where given, and else skipping the range.
    void closeAudited(const std::vector<Peer *> &members, qint64 round, const Peer &owner, const QByteArray &average,
                      const std::set<const Peer *> &applying, const QByteArray &redone = {})
    {
        const RoundRecord running = currentRound();
        const auto range = std::find_if(running.members.begin(), running.members.end(),
                                        [&](const RoundMember &m) { return m.keyId == owner.keyId(); });
        for (Peer *peer : members) {
            ContributionRequest request = contribution(round);
            if (applying.contains(peer)) {
                request.averages.push_back({range->begin, sha256Of(average)});
                request.paramsHash = QString(64, QLatin1Char('c'));
            } else if (!redone.isEmpty()) {
                request.averages.push_back({range->begin, sha256Of(redone)});
            }
            ASSERT_EQ(contribute(*peer, request).status, 200);
        }
        ASSERT_EQ(currentRound().number, round + 1);
    }

    // Round 0 runs with the four owners, every range audited and offences never a ban; their
    // pieces, committed.
    Pieces startFullyAuditedRound()
    {
        options.trust.rangeAuditRate = 1.0;
        options.trust.banAfterOffences = 1'000;
        startServer();
        joinAll(owners);
        EXPECT_NO_FATAL_FAILURE(startRound(owners, 0));
        return commitRealPieces(owners);
    }

    // Round 0 runs with the owners and `outbound` (a member that accepts no connections, so owns
    // no range); `stranger` joined once it started. Its members.
    std::vector<Peer *> startRoundWithOutsiders(Peer &outbound, Peer &stranger)
    {
        std::vector<Peer *> members = owners;
        members.push_back(&outbound);
        startServer();
        joinAll(members);
        EXPECT_NO_FATAL_FAILURE(startRound(members, 0));
        join(stranger);
        return members;
    }

    std::mt19937 random{43};
    Peer &liar = newPeer(true);
    Peer &h1 = newPeer(true);
    Peer &h2 = newPeer(true);
    Peer &h3 = newPeer(true);
    const std::vector<Peer *> honest{&h1, &h2, &h3};
    const std::vector<Peer *> owners{&liar, &h1, &h2, &h3};
};

} // namespace

// An owner sends a wrong average of its range every round. Each round its checker (drawn anew each
// round) disputes it and it blames the checker back: rounds with one checker say nothing about
// which of the two lied, the first round with a second checker names it, and offences ban it.
TEST_F(OwnerDisputeTest, ALyingOwnerDisputedByTwoCheckersLosesTheRoundAndIsBannedAndNoHonestOwnerIsBlamed)
{
    options.trust.banAfterOffences = 2;
    startServer();
    joinAll(owners);
    std::set<QString> liarsCheckers;
    qint64 round = 0;
    QString lastChecker;
    const auto lieOnce = [&] {
        ASSERT_NO_FATAL_FAILURE(startRound(owners, round));
        Peer &checker = checkerOf(liar);
        liarsCheckers.insert(checker.keyId());
        lastChecker = checker.keyId();
        ASSERT_NO_FATAL_FAILURE(closeRound(owners, round, {{&checker, {liar.keyId()}}, {&liar, {checker.keyId()}}}));
        EXPECT_EQ(disputesOf(round).size(), 2u);
        ++round;
    };
    // A second checker comes within 20 rounds but with odds of (1/3)^19.
    while (liarsCheckers.size() < 2 && round < 20) {
        ASSERT_NO_FATAL_FAILURE(lieOnce());
        if (liarsCheckers.size() < 2) {
            EXPECT_EQ(record(liar).offences, 0) << "one checker's dispute cannot say which of the two lied";
            EXPECT_EQ(record(*byKey(lastChecker)).offences, 0);
            EXPECT_TRUE(lastContribution(liar).accepted.value_or(false));
        }
    }
    ASSERT_EQ(liarsCheckers.size(), 2u);
    EXPECT_EQ(record(liar).offences, 1) << "disputed by two different checkers";
    EXPECT_FALSE(lastContribution(liar).accepted.value_or(true)) << "the round's credit is taken back";
    EXPECT_DOUBLE_EQ(record(liar).credit, double(round - 1) * roundCredit()) << "the rounds before stay";
    EXPECT_FALSE(record(liar).banned());
    ASSERT_NO_FATAL_FAILURE(lieOnce());
    EXPECT_EQ(record(liar).offences, 2);
    EXPECT_TRUE(record(liar).banned());
    EXPECT_NE(record(liar).bannedReason.indexOf(QLatin1StringView("lying owner")), -1)
        << record(liar).bannedReason.toStdString();
    EXPECT_DOUBLE_EQ(record(liar).credit, 0.0);
    for (Peer *peer : honest) {
        EXPECT_EQ(record(*peer).offences, 0);
        EXPECT_FALSE(record(*peer).banned());
        EXPECT_DOUBLE_EQ(record(*peer).credit, double(round) * roundCredit());
    }
}

// A lying owner caught once turns honest: the disputes of its lying rounds stay in the window but
// are history, not new offences, and its honest rounds keep their credit.
TEST_F(OwnerDisputeTest, AnOwnerThatStopsLyingIsNotOffendedAgainForOldDisputes)
{
    startServer();
    joinAll(owners);
    qint64 round = 0;
    // It lies until a second checker names it (within 20 rounds but with odds of (1/3)^19)...
    for (; record(liar).offences == 0 && round < 20; ++round) {
        ASSERT_NO_FATAL_FAILURE(startRound(owners, round));
        Peer &checker = checkerOf(liar);
        ASSERT_NO_FATAL_FAILURE(closeRound(owners, round, {{&checker, {liar.keyId()}}, {&liar, {checker.keyId()}}}));
    }
    ASSERT_EQ(record(liar).offences, 1);
    // ...then turns honest.
    for (const qint64 lyingRounds = round; round < lyingRounds + 2; ++round) {
        ASSERT_NO_FATAL_FAILURE(startRound(owners, round));
        ASSERT_NO_FATAL_FAILURE(closeRound(owners, round, {}));
        EXPECT_EQ(record(liar).offences, 1) << "round " << round;
    }
    EXPECT_TRUE(lastContribution(liar).accepted.value_or(false));
    EXPECT_DOUBLE_EQ(record(liar).credit, double(round - 1) * roundCredit()) << "all but the named round's";
    for (Peer *peer : honest)
        EXPECT_EQ(record(*peer).offences, 0);
}

// Owners (and a member that owns no range) accuse an owner they were not paired with, and keys
// that are not in the round at all, to get it banned without ever checking its range.
TEST_F(OwnerDisputeTest, ADisputeOfAPeerThatWasNotTheReportersPartnerIsIgnored)
{
    Peer &victim = newPeer(true);
    Peer &h4 = newPeer(true);
    Peer &outbound = newPeer(false);
    const std::vector<Peer *> fiveOwners{&victim, &h1, &h2, &h3, &h4};
    std::vector<Peer *> members = fiveOwners;
    members.push_back(&outbound);
    startServer();
    joinAll(members);
    const QString notInTheRound = QString(43, QLatin1Char('k'));

    ASSERT_NO_FATAL_FAILURE(startRound(members, 0));
    // Round 0 holds one admissible dispute, so that one stranger's more would name the victim.
    Peer &checker = checkerOf(victim);
    std::map<const Peer *, QStringList> round0{{&checker, {victim.keyId()}}, {&outbound, {victim.keyId()}}};
    const std::vector<Peer *> strangers0 = strangersTo(victim, fiveOwners);
    ASSERT_FALSE(strangers0.empty());
    for (Peer *stranger : strangers0)
        round0[stranger] = {victim.keyId(), notInTheRound};
    ASSERT_NO_FATAL_FAILURE(closeRound(members, 0, round0));
    const std::vector<UpdateReportRecord> kept = disputesOf(0);
    ASSERT_EQ(kept.size(), 1u) << "only the checker's dispute counts";
    EXPECT_EQ(kept[0].reporterKeyId, checker.keyId());
    EXPECT_EQ(kept[0].senderKeyId, victim.keyId());

    ASSERT_NO_FATAL_FAILURE(startRound(members, 1));
    std::map<const Peer *, QStringList> round1{{&outbound, {victim.keyId()}}};
    const std::vector<Peer *> strangers1 = strangersTo(victim, fiveOwners);
    for (Peer *stranger : strangers1)
        round1[stranger] = {victim.keyId(), stranger->keyId()};
    ASSERT_NO_FATAL_FAILURE(closeRound(members, 1, round1));
    EXPECT_TRUE(disputesOf(1).empty()) << "nothing stored";
    EXPECT_EQ(record(victim).offences, 0);
    EXPECT_TRUE(lastContribution(victim).accepted.value_or(false));
    EXPECT_DOUBLE_EQ(record(victim).credit, 2 * roundCredit());
    for (Peer *peer : members)
        EXPECT_EQ(record(*peer).offences, 0);
}

// A liar lies as owner and as checker, and blames every partner it meets (and anyone else): each
// honest owner is still disputed by the liar alone, and only the liar pays.
TEST_F(OwnerDisputeTest, ALiarThatAccusesItsHonestPartnersGetsNoneOfThemOffended)
{
    options.trust.banAfterOffences = 3;
    startServer();
    joinAll(owners);
    for (qint64 round = 0; round < 3; ++round) {
        ASSERT_NO_FATAL_FAILURE(startRound(owners, round));
        Peer &checker = checkerOf(liar);
        Peer &checked = checkedBy(liar);
        QStringList blamed{checker.keyId(), checked.keyId()};
        for (Peer *stranger : strangersTo(liar, owners))
            blamed.append(stranger->keyId());
        for (Peer *peer : owners)
            ASSERT_EQ(commit(*peer, makeUpdate().commitment).status, 200);
        ASSERT_NO_FATAL_FAILURE(
            closeRound(owners, round, {{&liar, blamed}, {&checker, {liar.keyId()}}, {&checked, {liar.keyId()}}}));
        for (Peer *peer : honest) {
            EXPECT_EQ(record(*peer).offences, 0) << "round " << round;
            EXPECT_TRUE(lastContribution(*peer).accepted.value_or(false)) << "round " << round;
        }
        EXPECT_EQ(record(liar).offences, round + 1) << "its two partners of round " << round << " disputed it";
        EXPECT_TRUE(setup->store->openSpotChecks()->empty()) << "a dispute is no report of a left-out piece";
    }
    EXPECT_TRUE(record(liar).banned());
    for (Peer *peer : honest) {
        EXPECT_FALSE(record(*peer).banned());
        EXPECT_DOUBLE_EQ(record(*peer).credit, 3 * roundCredit());
    }
}

// The checker recomputes the owner's average from the same pieces, so it checks each of them
// against its sender's commitment as the owner does, and so does the range's referee: the
// coordinator gives each the commitments to the range it checks and to the one it referees in
// the running round, and no one else's.
TEST_F(OwnerDisputeTest, TheCommitmentsAnswerCarriesThoseToTheRangesTheAskerChecksAndReferees)
{
    Peer &outbound = newPeer(false);
    const std::vector<Peer *> threeOwners{&h1, &h2, &h3};
    const std::vector<Peer *> members{&h1, &h2, &h3, &outbound};
    startServer();
    joinAll(members);
    std::set<quint64> checkSeeds;
    for (qint64 round = 0; round < 2; ++round) {
        ASSERT_NO_FATAL_FAILURE(startRound(members, round));
        std::map<QString, std::map<QString, QString>> committed; // owner -> sender -> sha256
        for (Peer *peer : members) {
            const Update update = makeUpdate();
            ASSERT_EQ(commit(*peer, update.commitment).status, 200);
            for (const PieceHash &piece : update.commitment.pieces)
                committed[piece.peerId][peer->keyId()] = piece.sha256;
        }
        const auto hashes = [](const std::vector<PieceHash> &pieces) {
            std::map<QString, QString> bySender;
            for (const PieceHash &piece : pieces)
                bySender[piece.peerId] = piece.sha256;
            return bySender;
        };
        const QByteArray target = "/v1/round/commitments?round=" + QByteArray::number(round);
        for (Peer *owner : threeOwners) {
            const HttpAnswer answer = send("GET", target, {}, *owner);
            ASSERT_EQ(answer.status, 200) << answer.body.constData();
            const CommitmentsAnswer got = CommitmentsAnswer::fromJson(answer.json()).value();
            const QString checked = checkedBy(*owner).keyId();
            EXPECT_EQ(hashes(got.pieces), committed.at(owner->keyId()));
            EXPECT_EQ(got.checked.size(), members.size());
            EXPECT_EQ(hashes(got.checked), committed.at(checked)) << "round " << round;
            QString refereed;
            for (const auto &[rangeOwner, referee] : referees()) {
                if (referee == owner->keyId())
                    refereed = rangeOwner;
            }
            ASSERT_FALSE(refereed.isEmpty()) << "three owners: each referees one range";
            EXPECT_NE(refereed, checked);
            EXPECT_EQ(hashes(got.refereed), committed.at(refereed)) << "round " << round;
            EXPECT_EQ(got.checkSeed, currentRound().checkSeed) << "the pairs are the ones it holds members to";
            EXPECT_NE(got.checkSeed, 0u);
            checkSeeds.insert(got.checkSeed);
        }
        const HttpAnswer none = send("GET", target, {}, outbound);
        ASSERT_EQ(none.status, 200) << none.body.constData();
        EXPECT_TRUE(CommitmentsAnswer::fromJson(none.json()).value().checked.empty()) << "it owns no range to check";
        EXPECT_TRUE(CommitmentsAnswer::fromJson(none.json()).value().refereed.empty()) << "...nor to referee";
        ASSERT_NO_FATAL_FAILURE(finishRound(members, round));
    }
    EXPECT_EQ(checkSeeds.size(), 2u) << "each round draws its pairs anew";
}

// Issue 43: an honest owner's evidence holds, every round and for every owner: the coordinator's
// recomputation from the committed pieces is the owner's own (RangeAggregation.h), so evidence
// never costs an honest owner anything.
TEST_F(OwnerDisputeTest, AnHonestOwnersEvidenceHoldsEveryRound)
{
    startServer();
    joinAll(owners);
    for (qint64 round = 0; round < 3; ++round) {
        ASSERT_NO_FATAL_FAILURE(startRound(owners, round));
        const Pieces pieces = commitRealPieces(owners);
        for (Peer *owner : owners) {
            const HttpAnswer ruled = sendEvidence(*owner, evidenceOf(*owner, pieces));
            ASSERT_EQ(ruled.status, 200) << ruled.body.constData();
            EXPECT_TRUE(EvidenceRuling::fromJson(ruled.json()).value().upheld) << ruled.body.constData();
        }
        ASSERT_NO_FATAL_FAILURE(finishRound(owners, round));
    }
    for (Peer *owner : owners) {
        EXPECT_EQ(record(*owner).offences, 0);
        EXPECT_DOUBLE_EQ(record(*owner).credit, 3 * roundCredit());
    }
}

// A lying owner's evidence does not hold: its average is not what its pieces make, or a piece is
// not the one its sender committed to. It is named at once, in the round it lied, without waiting
// for a second partner's dispute.
TEST_F(OwnerDisputeTest, ALyingOwnersEvidenceFailsAndNamesItAtOnce)
{
    startServer();
    joinAll(owners);
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 0));
    Pieces pieces = commitRealPieces(owners);
    Peer &checker = checkerOf(liar);
    HttpAnswer ruled = sendEvidence(liar, evidenceOf(liar, pieces, -4.0f));
    ASSERT_EQ(ruled.status, 200) << ruled.body.constData();
    const EvidenceRuling wrong = EvidenceRuling::fromJson(ruled.json()).value();
    EXPECT_FALSE(wrong.upheld);
    EXPECT_NE(wrong.why.indexOf(QLatin1StringView("differs")), -1) << wrong.why.toStdString();
    EXPECT_EQ(sendEvidence(liar, evidenceOf(liar, pieces)).status, 409) << "one ruling a round";
    ASSERT_NO_FATAL_FAILURE(closeRound(owners, 0, {{&checker, {liar.keyId()}}, {&liar, {checker.keyId()}}}));
    EXPECT_EQ(record(liar).offences, 1) << "named in the round it lied";
    EXPECT_TRUE(record(liar).banned()) << "its own evidence shows the lie: banned at once";
    EXPECT_EQ(record(liar).credit, 0.0);
    EXPECT_FALSE(lastContribution(liar).accepted.value_or(true));
    EXPECT_EQ(record(checker).offences, 0);

    // A piece made up.
    ASSERT_NO_FATAL_FAILURE(startRound(honest, 1));
    pieces = commitRealPieces(honest);
    RangeEvidence forged = evidenceOf(h1, pieces);
    forged.pieces.front().second[0] = char(forged.pieces.front().second[0] ^ 1);
    ruled = sendEvidence(h1, forged);
    ASSERT_EQ(ruled.status, 200);
    EXPECT_NE(EvidenceRuling::fromJson(ruled.json()).value().why.indexOf(QLatin1StringView("committed")), -1) << ruled.body.constData();
    EXPECT_EQ(record(h1).offences, 0) << "counted when the round closes";
    ASSERT_NO_FATAL_FAILURE(closeRound(honest, 1, {}));
    EXPECT_TRUE(record(h1).banned());
}

// What the coordinator refuses before it recomputes anything: evidence from a peer that owns no
// range, of another range, of another round, a piece twice, a body larger than the running
// round's evidence can be.
TEST_F(OwnerDisputeTest, EvidenceThatCannotBeAnOwnersIsRefused)
{
    Peer &outbound = newPeer(false);
    std::vector<Peer *> members = owners;
    members.push_back(&outbound);
    startServer();
    joinAll(members);
    ASSERT_NO_FATAL_FAILURE(startRound(members, 0));
    const Pieces pieces = commitRealPieces(members);
    const RangeEvidence good = evidenceOf(h1, pieces);
    EXPECT_EQ(sendEvidence(outbound, good).status, 403) << "it owns no range";
    EXPECT_EQ(sendEvidence(h2, good).status, 400) << "not its range";
    RangeEvidence other = good;
    other.round = 5;
    EXPECT_EQ(sendEvidence(h1, other).status, 409);
    RangeEvidence twice = good;
    twice.pieces.push_back(twice.pieces.front());
    HttpAnswer refused = sendEvidence(h1, twice);
    EXPECT_EQ(refused.status, 400);
    EXPECT_NE(refused.error().indexOf(QLatin1StringView("two pieces")), -1) << refused.body.constData();
    // An average larger than the whole model's encoding: its body is larger than the running
    // round's evidence can be, and is refused before it is read (the decoder's own bound on each
    // payload is ControlMessagesTest's).
    RangeEvidence huge = good;
    huge.average = QByteArray(qsizetype(encodedQuantizedSize(std::size_t(server->rounds().settings().parameterCount))) + 1, 'x');
    EXPECT_EQ(sendEvidence(h1, huge).status, 413);
    RangeEvidence none = good;
    none.pieces.clear();
    EXPECT_EQ(sendEvidence(h1, none).status, 400);
    // The good one still holds: nothing above was judged.
    const HttpAnswer ruled = sendEvidence(h1, good);
    ASSERT_EQ(ruled.status, 200) << ruled.body.constData();
    EXPECT_TRUE(EvidenceRuling::fromJson(ruled.json()).value().upheld);
}

// Two colluding partners of an honest owner, its checker and its referee, dispute it every round
// and apply their own average to its range. The owner's evidence holds, so the coordinator: does
// not count their disputes, leaves their votes out of the round, counts each an offence for the
// average they applied against its ruling, and takes their credit; the owner keeps its credit.
TEST_F(OwnerDisputeTest, ColludingPartnersCannotFrameAnOwnerWhoseEvidenceHolds)
{
    options.trust.banAfterOffences = 1'000;
    startServer();
    joinAll(owners);
    const std::set<QString> colluders = frameEveryRound(h1, 3);
    EXPECT_EQ(record(h1).offences, 0);
    EXPECT_DOUBLE_EQ(record(h1).credit, 3 * roundCredit());
    int charged = 0;
    for (const QString &colluder : colluders)
        charged += record(*byKey(colluder)).offences;
    EXPECT_EQ(charged, 2 * 3) << "each colluder, each round it applied the poisoned range";
}

// ...nor by skipping its range. Members that did not apply a range the coordinator upheld (where
// others did) have no say in which state is agreed: otherwise a majority that skips an honest
// owner's range would have the swarm lose it every round. Skipping is no offence (a ruling may
// come too late for an honest member). Here two of four skip: without that rule no state would
// have a majority, and the rounds would not close.
TEST_F(OwnerDisputeTest, MembersThatSkipAnUpheldRangeHaveNoSayInWhichStateIsAgreed)
{
    options.trust.banAfterOffences = 1'000;
    startServer();
    joinAll(owners);
    const std::set<QString> colluders = frameEveryRound(h1, 3, true);
    EXPECT_EQ(record(h1).offences, 0);
    EXPECT_DOUBLE_EQ(record(h1).credit, 3 * roundCredit());
    for (const QString &colluder : colluders)
        EXPECT_EQ(record(*byKey(colluder)).offences, 0) << "skipping is no offence";
}

// ...and with the rulings off (--no-range-rulings), the defence the test above shows: the
// colluders' word frames the honest owner, the one disputed by most partners.
TEST_F(OwnerDisputeTest, WithoutRulingsColludingPartnersFrameAnHonestOwner)
{
    options.trust.rangeRulings = false;
    options.trust.banAfterOffences = 1'000;
    startServer();
    joinAll(owners);
    frameEveryRound(h1, 3);
    EXPECT_GE(record(h1).offences, 1);
}

// GET /v1/round/ruling is a member's question about an owner of the running round.
TEST_F(OwnerDisputeTest, ARulingIsAskedOfTheRunningRoundAboutAnOwner)
{
    Peer &outbound = newPeer(false);
    Peer &stranger = newPeer(true);
    startRoundWithOutsiders(outbound, stranger);
    const QByteArray about = "/v1/round/ruling?round=0&owner=" + h1.keyId().toLatin1();
    EXPECT_EQ(send("GET", about, {}, h2).status, 200);
    EXPECT_EQ(send("GET", about, {}, stranger).status, 403) << "not a member of the round";
    EXPECT_EQ(send("GET", "/v1/round/ruling?round=0", {}, h2).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/ruling?owner=" + h1.keyId().toLatin1(), {}, h2).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/ruling?round=0&owner=" + QByteArray(65, 'a'), {}, h2).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/ruling?round=0&owner=" + outbound.keyId().toLatin1(), {}, h2).status, 404)
        << "it owns no range";
    EXPECT_EQ(send("GET", "/v1/round/ruling?round=7&owner=" + h1.keyId().toLatin1(), {}, h2).status, 409);
}

// A ruling on an owner's evidence is kept among the round's reports about pieces, with the owner
// as reporter and sender: it is not a piece left out. With two owners one owner's word is enough
// to quarantine a sender, so counted as one it would quarantine the owner for its own evidence.
TEST_F(OwnerDisputeTest, ARulingOnEvidenceIsNoPieceLeftOut)
{
    const std::vector<Peer *> two{&h1, &h2};
    startServer();
    joinAll(two);
    ASSERT_NO_FATAL_FAILURE(startRound(two, 0));
    const Pieces pieces = commitRealPieces(two);
    ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(h1, evidenceOf(h1, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(finishRound(two, 0));
    EXPECT_FALSE(record(h1).quarantined);
    EXPECT_DOUBLE_EQ(record(h1).credit, roundCredit());
}

// Issue 43, range audits: each round the coordinator draws a random share of the ranges and rules
// on their owners' evidence, whatever their checkers said. It draws them only once every owner
// that committed named its average, and its checker its verdict on it, so no owner or checker
// knows before it is bound whether the range is audited; a range whose owner named nothing in
// time, or whose checker did not vouch for the very average and pieces its owner named, is
// audited, so holding back gains nothing. Here the random share is tiny.
TEST_F(OwnerDisputeTest, TheAuditIsDrawnOnceOwnersAndCheckersNamedTheirWordOrTheTimeIsUp)
{
    options.trust.rangeAuditRate = 1e-12;
    startServer();
    joinAll(owners);
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 0));
    Pieces pieces = commitRealPieces(owners);
    const HttpAnswer commitments = send("GET", "/v1/round/commitments?round=0", {}, h1);
    EXPECT_TRUE(CommitmentsAnswer::fromJson(commitments.json()).value().rangeAudits) << commitments.body.constData();
    for (Peer *owner : {&liar, &h1, &h2}) {
        EXPECT_FALSE(auditAsSeenBy(h3).drawn) << "not before every owner named its average";
        ASSERT_NO_FATAL_FAILURE(nameAndVouch({owner}, pieces));
    }
    EXPECT_EQ(nameAverage(h1, evidenceOf(h1, pieces)).status, 409) << "once a round";
    EXPECT_EQ(nameVerdict(checkerOf(h1), h1, evidenceOf(h1, pieces), false).status, 409) << "once a round";
    ASSERT_EQ(nameAverage(h3, evidenceOf(h3, pieces)).status, 200);
    EXPECT_FALSE(auditAsSeenBy(h1).drawn) << "nor before every checker named its verdict";
    ASSERT_EQ(nameVerdict(checkerOf(h3), h3, evidenceOf(h3, pieces)).status, 200);
    EXPECT_FALSE(auditAsSeenBy(h1).drawn) << "nor before every referee named its verdict";
    ASSERT_EQ(nameVerdict(refereeOf(h3), h3, evidenceOf(h3, pieces)).status, 200);
    RangeAudit audit = auditAsSeenBy(liar);
    EXPECT_TRUE(audit.drawn);
    EXPECT_TRUE(audit.owners.isEmpty()) << audit.owners.join(u',').toStdString();
    ASSERT_NO_FATAL_FAILURE(finishRound(owners, 0));

    // h3 holds back its average: the others wait for it until the time for naming is up, and then
    // its range is audited. Naming it later is refused, and the draw stays as it was.
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 1));
    pieces = commitRealPieces(owners);
    ASSERT_NO_FATAL_FAILURE(nameAndVouch({&liar, &h1, &h2}, pieces));
    now += 9'000;
    EXPECT_FALSE(auditAsSeenBy(h1).drawn);
    now += 1'001;
    audit = auditAsSeenBy(h1);
    EXPECT_TRUE(audit.drawn);
    EXPECT_EQ(audit.owners, QStringList{h3.keyId()});
    const HttpAnswer late = nameAverage(h3, evidenceOf(h3, pieces));
    EXPECT_EQ(late.status, 409);
    EXPECT_NE(late.error().indexOf(QLatin1StringView("audited")), -1) << late.body.constData();
    EXPECT_EQ(nameVerdict(checkerOf(h3), h3, evidenceOf(h3, pieces)).status, 409) << "a verdict too";
    EXPECT_EQ(auditAsSeenBy(h2).owners, QStringList{h3.keyId()});
    // Its evidence is ruled on as a disputed range's, and members settle its range by the ruling.
    ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(h3, evidenceOf(h3, pieces)).json()).value().upheld);
    const HttpAnswer ruling = send("GET", "/v1/round/ruling?round=1&owner=" + h3.keyId().toLatin1(), {}, h1);
    EXPECT_EQ(RangeRuling::fromJson(ruling.json()).value().state, RangeRuling::State::Upheld);
    ASSERT_NO_FATAL_FAILURE(finishRound(owners, 1));

    // Everyone named in time, but h1's checker vouched for other pieces than h1 named (one left
    // out), and h2's checker disputes h2's average: both ranges are audited at once.
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 2));
    pieces = commitRealPieces(owners);
    ASSERT_NO_FATAL_FAILURE(nameAndVouch({&liar, &h3}, pieces));
    for (Peer *owner : {&h1, &h2})
        ASSERT_EQ(nameAverage(*owner, evidenceOf(*owner, pieces)).status, 200);
    RangeEvidence fewer = evidenceOf(h1, pieces);
    fewer.pieces.pop_back();
    ASSERT_EQ(nameVerdict(checkerOf(h1), h1, fewer).status, 200);
    ASSERT_EQ(nameVerdict(checkerOf(h2), h2, evidenceOf(h2, pieces), false).status, 200);
    for (Peer *owner : {&h1, &h2})
        ASSERT_EQ(nameVerdict(refereeOf(*owner), *owner, evidenceOf(*owner, pieces)).status, 200);
    audit = auditAsSeenBy(h3);
    EXPECT_TRUE(audit.drawn);
    audit.owners.sort();
    QStringList unvouched{h1.keyId(), h2.keyId()};
    unvouched.sort();
    EXPECT_EQ(audit.owners, unvouched);
    for (Peer *owner : {&h1, &h2})
        ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(*owner, evidenceOf(*owner, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(finishRound(owners, 2));
    for (Peer *owner : owners)
        EXPECT_EQ(record(*owner).offences, 0);
}

// A lying owner whose checker vouches for it (a colluding partner) is not disputed by anyone. An
// audit of its range still catches it: its evidence does not hold, which proves its lie, and the
// checker named before the draw that it reproduced that very average from those very pieces, which
// the coordinator shows far from what they make. Both are banned at once with all their credit,
// and lose the round. The coordinator keeps the range as it recomputed it from the liar's pieces,
// and the honest members, which apply that as the ruling says, lose nothing.
TEST_F(OwnerDisputeTest, AnAuditConvictsALyingOwnerAndTheCheckerThatVouchedForIt)
{
    const Pieces pieces = startFullyAuditedRound();
    Peer &checker = checkerOf(liar);
    const RangeEvidence lie = evidenceOf(liar, pieces, -4.0f);
    ASSERT_EQ(nameAverage(liar, lie).status, 200);
    ASSERT_EQ(nameVerdict(checker, liar, lie).status, 200);
    ASSERT_EQ(nameVerdict(refereeOf(liar), liar, lie, false).status, 200);
    ASSERT_NO_FATAL_FAILURE(nameAndVouch(honest, pieces));
    EXPECT_EQ(auditAsSeenBy(h1).owners.size(), 4) << "every range, at a share of 1";
    EXPECT_FALSE(EvidenceRuling::fromJson(sendEvidence(liar, lie).json()).value().upheld);
    for (Peer *owner : honest)
        ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(*owner, evidenceOf(*owner, pieces)).json()).value().upheld);
    const RangeRuling ruling =
        RangeRuling::fromJson(send("GET", "/v1/round/ruling?round=0&owner=" + liar.keyId().toLatin1(), {}, h2).json()).value();
    EXPECT_EQ(ruling.state, RangeRuling::State::Refuted);
    EXPECT_EQ(ruling.averageSha256, sha256Of(lie.average));
    // The range as the coordinator recomputed it from the liar's pieces, which are the members':
    // the honest average, for the members to apply instead, so the swarm loses nothing of it.
    const QByteArray honestAverage = evidenceOf(liar, pieces).average;
    EXPECT_EQ(ruling.redoneSha256, sha256Of(honestAverage));
    const QByteArray redone = "/v1/round/redone?round=0&owner=" + liar.keyId().toLatin1();
    const HttpAnswer recomputed = send("GET", redone, {}, h2);
    ASSERT_EQ(recomputed.status, 200) << recomputed.body.constData();
    EXPECT_EQ(recomputed.body, honestAverage);
    EXPECT_EQ(send("GET", "/v1/round/redone?round=0&owner=" + h1.keyId().toLatin1(), {}, h2).status, 404) << "upheld";
    EXPECT_EQ(send("GET", "/v1/round/redone?round=0&owner=" + QByteArray(65, 'a'), {}, h2).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/redone?round=0", {}, h2).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/redone?round=9&owner=" + liar.keyId().toLatin1(), {}, h2).status, 409);
    Peer &stranger = newPeer(true);
    join(stranger);
    EXPECT_EQ(send("GET", redone, {}, stranger).status, 403) << "not a member of the round";
    ASSERT_NO_FATAL_FAILURE(closeAudited(owners, 0, liar, lie.average, {&liar, &checker}, honestAverage));
    EXPECT_EQ(record(liar).offences, 2) << "a lying owner, which also applied the average refuted";
    EXPECT_EQ(record(checker).offences, 2) << "a false vouch, and it applied the refuted average";
    for (Peer *convicted : {&liar, &checker}) {
        EXPECT_TRUE(record(*convicted).banned()) << "banned at once, though offences never ban in this swarm";
        EXPECT_EQ(record(*convicted).credit, 0.0);
        EXPECT_FALSE(lastContribution(*convicted).accepted.value_or(true));
    }
    for (Peer *owner : honest) {
        if (owner == &checker)
            continue;
        EXPECT_EQ(record(*owner).offences, 0);
        EXPECT_TRUE(lastContribution(*owner).accepted.value_or(false));
    }
}

// An owner cannot take its honest checker down with it: evidence for other pieces than the ones it
// named (and its checker vouched for) proves the owner's lie, not the checker's, and a checker that
// vouched for another average or other pieces than the evidence shows is not charged either.
TEST_F(OwnerDisputeTest, AnOwnerCannotHaveItsHonestCheckerConvicted)
{
    const Pieces pieces = startFullyAuditedRound();
    Peer &checker = checkerOf(liar);
    const RangeEvidence named = evidenceOf(liar, pieces);
    ASSERT_EQ(nameAverage(liar, named).status, 200);
    ASSERT_EQ(nameVerdict(checker, liar, named).status, 200);
    ASSERT_NO_FATAL_FAILURE(nameAndVouch(honest, pieces));
    RangeEvidence fewer = named;
    fewer.pieces.pop_back();
    const EvidenceRuling ruling = EvidenceRuling::fromJson(sendEvidence(liar, fewer).json()).value();
    EXPECT_FALSE(ruling.upheld);
    EXPECT_NE(ruling.why.indexOf(QLatin1StringView("pieces the owner named")), -1) << ruling.why.toStdString();
    for (Peer *owner : honest)
        ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(*owner, evidenceOf(*owner, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(closeRound(owners, 0, {}));
    EXPECT_TRUE(record(liar).banned());
    for (Peer *owner : honest) {
        EXPECT_FALSE(record(*owner).banned());
        EXPECT_EQ(record(*owner).offences, 0);
    }
}

// Where referees check every average (the default), a range whose referee did not vouch for what
// its owner named is audited however its checker vouched: a lying owner's colluding checker no
// longer decides its range with it, whatever the audit share. The liar and its checker are
// convicted; the honest referee that disputed is not charged. Without referee checks the same
// range is audited only by the draw.
TEST_F(OwnerDisputeTest, ARangeItsRefereeDisputesIsAuditedWhateverItsCheckerSaid)
{
    options.trust.rangeAuditRate = 1e-12;
    options.trust.banAfterOffences = 1'000;
    startServer();
    joinAll(owners);
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 0));
    const Pieces pieces = commitRealPieces(owners);
    const HttpAnswer commitments = send("GET", "/v1/round/commitments?round=0", {}, h1);
    EXPECT_TRUE(CommitmentsAnswer::fromJson(commitments.json()).value().refereeChecks) << commitments.body.constData();
    Peer &checker = checkerOf(liar), &referee = refereeOf(liar);
    const RangeEvidence lie = evidenceOf(liar, pieces, -4.0f);
    ASSERT_EQ(nameAverage(liar, lie).status, 200);
    ASSERT_EQ(nameVerdict(checker, liar, lie).status, 200);
    EXPECT_EQ(nameVerdict(referee, liar, lie, false).status, 200);
    EXPECT_EQ(nameVerdict(referee, liar, lie, true).status, 409) << "once a round";
    // Only the range's checker and referee name a verdict on it.
    Peer &other = **std::find_if(owners.begin(), owners.end(), [&](Peer *p) { return p != &liar && p != &checker && p != &referee; });
    const HttpAnswer intruder = nameVerdict(other, liar, lie);
    EXPECT_EQ(intruder.status, 403) << intruder.body.constData();
    ASSERT_NO_FATAL_FAILURE(nameAndVouch(honest, pieces));
    const RangeAudit audit = auditAsSeenBy(h1);
    ASSERT_TRUE(audit.drawn);
    EXPECT_EQ(audit.owners, QStringList{liar.keyId()}) << "only the range its referee disputed";
    EXPECT_FALSE(EvidenceRuling::fromJson(sendEvidence(liar, lie).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(closeRound(owners, 0, {}));
    for (Peer *convicted : {&liar, &checker}) {
        EXPECT_TRUE(record(*convicted).banned());
        EXPECT_EQ(record(*convicted).credit, 0.0);
    }
    EXPECT_FALSE(record(referee).banned());
    EXPECT_EQ(record(referee).offences, 0);
}

// A referee that vouches for a made-up average its owner's evidence refutes is convicted with it,
// as a checker is.
TEST_F(OwnerDisputeTest, AnAuditConvictsARefereeThatVouchedForAMadeUpAverage)
{
    const Pieces pieces = startFullyAuditedRound();
    Peer &checker = checkerOf(liar), &referee = refereeOf(liar);
    const RangeEvidence lie = evidenceOf(liar, pieces, -4.0f);
    ASSERT_EQ(nameAverage(liar, lie).status, 200);
    ASSERT_EQ(nameVerdict(checker, liar, lie, false).status, 200);
    ASSERT_EQ(nameVerdict(referee, liar, lie, true).status, 200);
    ASSERT_NO_FATAL_FAILURE(nameAndVouch(honest, pieces));
    ASSERT_TRUE(auditAsSeenBy(h1).drawn);
    EXPECT_FALSE(EvidenceRuling::fromJson(sendEvidence(liar, lie).json()).value().upheld);
    for (Peer *owner : honest)
        ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(*owner, evidenceOf(*owner, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(closeRound(owners, 0, {}));
    for (Peer *convicted : {&liar, &referee})
        EXPECT_TRUE(record(*convicted).banned());
    EXPECT_FALSE(record(checker).banned()) << "it disputed the lie";
    EXPECT_EQ(record(checker).offences, 0);
}

// Without referee checks (--no-referee-checks) a referee names no verdict, and the commitments do
// not ask members to send it their pieces.
TEST_F(OwnerDisputeTest, WithoutRefereeChecksOnlyTheCheckerNamesAVerdict)
{
    options.trust.refereeChecks = false;
    const Pieces pieces = startFullyAuditedRound();
    const HttpAnswer commitments = send("GET", "/v1/round/commitments?round=0", {}, h1);
    EXPECT_FALSE(CommitmentsAnswer::fromJson(commitments.json()).value().refereeChecks) << commitments.body.constData();
    const RangeEvidence named = evidenceOf(liar, pieces);
    ASSERT_EQ(nameAverage(liar, named).status, 200);
    const HttpAnswer refused = nameVerdict(refereeOf(liar), liar, named);
    EXPECT_EQ(refused.status, 403) << refused.body.constData();
    EXPECT_EQ(nameVerdict(checkerOf(liar), liar, named).status, 200);
}

// An audited owner's evidence holds only for the average it named before the draw: it cannot name
// one, learn that it is audited, and stand by another. And an audited owner that goes on with the
// round without sending its evidence is counted an offence, as it kept the coordinator from ruling.
TEST_F(OwnerDisputeTest, AnAuditedOwnerStandsByTheAverageItNamedAndSendsItsEvidence)
{
    const Pieces pieces = startFullyAuditedRound();
    ASSERT_EQ(nameAverage(liar, evidenceOf(liar, pieces, -4.0f)).status, 200);
    for (Peer *owner : honest)
        ASSERT_EQ(nameAverage(*owner, evidenceOf(*owner, pieces)).status, 200);
    now += 10'001; // no checker named its verdict: the time for that runs out
    ASSERT_TRUE(auditAsSeenBy(h2).drawn);
    const EvidenceRuling switched = EvidenceRuling::fromJson(sendEvidence(liar, evidenceOf(liar, pieces)).json()).value();
    EXPECT_FALSE(switched.upheld) << "honest evidence, but for another average than the one it named";
    EXPECT_NE(switched.why.indexOf(QLatin1StringView("named")), -1) << switched.why.toStdString();
    // h1 sends no evidence, and contributes.
    for (Peer *owner : {&h2, &h3})
        ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(*owner, evidenceOf(*owner, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(closeRound(owners, 0, {}));
    EXPECT_EQ(record(liar).offences, 1);
    EXPECT_TRUE(record(liar).banned()) << "its evidence refutes the average it named";
    EXPECT_EQ(record(h1).offences, 1) << "audited, and went on without its evidence";
    EXPECT_FALSE(record(h1).banned()) << "which may be a lost connection";
    EXPECT_FALSE(lastContribution(h1).accepted.value_or(true));
    EXPECT_EQ(record(h2).offences, 0);
    EXPECT_EQ(record(h3).offences, 0);
}

// POST /v1/round/average is a range owner's, once, for the running round and attempt; GET
// /v1/round/audit a member's. A coordinator that audits nothing has neither.
TEST_F(OwnerDisputeTest, AveragesAreNamedByTheRunningRoundsOwnersAndItsAuditAskedByItsMembers)
{
    Peer &outbound = newPeer(false);
    Peer &stranger = newPeer(true);
    const std::vector<Peer *> members = startRoundWithOutsiders(outbound, stranger);
    const Pieces pieces = commitRealPieces(members);
    const RangeEvidence evidence = evidenceOf(h1, pieces);
    const QString average = sha256Of(evidence.average);
    const QStringList contributors = claimOf(currentRound(), evidence).contributors;
    EXPECT_EQ(nameAverage(outbound, evidence).status, 403) << "it owns no range";
    EXPECT_EQ(nameAverage(stranger, evidence).status, 403) << "not a member";
    EXPECT_EQ(send("GET", "/v1/round/audit?round=0", {}, stranger).status, 403);
    EXPECT_EQ(send("GET", "/v1/round/audit?round=0", {}, outbound).status, 200) << "a member, though it owns no range";
    EXPECT_EQ(send("GET", "/v1/round/audit", {}, h1).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/audit?round=-1", {}, h1).status, 400);
    EXPECT_EQ(send("GET", "/v1/round/audit?round=3", {}, h1).status, 409);
    EXPECT_EQ(post(h1, "/v1/round/average", AverageClaim{0, 1, average, contributors}.toJson()).status, 409) << "another attempt";
    EXPECT_EQ(post(h1, "/v1/round/average", AverageClaim{4, 0, average, contributors}.toJson()).status, 409) << "another round";
    EXPECT_EQ(post(h1, "/v1/round/average", AverageClaim{0, 0, average, {stranger.keyId()}}.toJson()).status, 400)
        << "a contributor that is not a member";
    QJsonObject malformed = AverageClaim{0, 0, average, contributors}.toJson();
    malformed.insert(QStringLiteral("sha256"), QStringLiteral("not a hash"));
    EXPECT_EQ(post(h1, "/v1/round/average", malformed).status, 400);
    malformed.remove(QStringLiteral("sha256"));
    EXPECT_EQ(post(h1, "/v1/round/average", malformed).status, 400);
    // A verdict is only the checker's or the referee's of that owner's range; an outsider's or
    // another owner's is refused, as is one on a member that owns no range.
    Peer &checker = checkerOf(h1);
    Peer *other = nullptr;
    for (Peer *owner : owners) {
        if (owner != &checker && owner != &h1 && owner != &refereeOf(h1))
            other = owner;
    }
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(nameVerdict(*other, h1, evidence).status, 403) << "neither its checker nor its referee";
    EXPECT_EQ(nameVerdict(stranger, h1, evidence).status, 403) << "not a member";
    EXPECT_EQ(nameVerdict(outbound, h1, evidence).status, 403) << "it checks no range";
    EXPECT_EQ(nameVerdict(checker, outbound, evidence).status, 403) << "a member that owns no range";
    EXPECT_EQ(nameAverage(h1, evidence).status, 200) << "nothing above was taken";
    EXPECT_EQ(nameVerdict(checker, h1, evidence).status, 200) << "nothing above was taken";
    EXPECT_EQ(nameVerdict(checker, h1, evidence, false).status, 409) << "once a round";
}

TEST_F(OwnerDisputeTest, ACoordinatorThatAuditsNothingHasNoAudit)
{
    options.trust.rangeAuditRate = 0.0;
    startServer();
    joinAll(owners);
    ASSERT_NO_FATAL_FAILURE(startRound(owners, 0));
    const Pieces pieces = commitRealPieces(owners);
    EXPECT_FALSE(CommitmentsAnswer::fromJson(send("GET", "/v1/round/commitments?round=0", {}, h1).json()).value().rangeAudits);
    EXPECT_EQ(nameAverage(h1, evidenceOf(h1, pieces)).status, 404);
    EXPECT_EQ(send("GET", "/v1/round/audit?round=0", {}, h1).status, 404);
}

namespace {

// A round of the four owners in which h3 commits to nothing (a stalling stranger) and the others
// commit real pieces, every range audited at a share of `rate`; past the close of the
// commitments. The others' pieces.
class StandInTest : public OwnerDisputeTest {
protected:
    Peer &staller = h3;
    const std::vector<Peer *> committed{&liar, &h1, &h2};

    Pieces startStalledRound(double rate)
    {
        options.trust.rangeAuditRate = rate;
        options.trust.banAfterOffences = 1'000;
        options.rounds.commitTimeoutMs = 5'000;
        startServer();
        joinAll(owners);
        EXPECT_NO_FATAL_FAILURE(startRound(owners, 0));
        const Pieces pieces = commitRealPieces(committed);
        const RangeEvidence evidence = evidenceOf(staller, pieces);
        EXPECT_EQ(sendEvidence(checkerOf(staller), evidence).status, 400) << "not its range before the commitments close";
        now += 6'000;
        return pieces;
    }
    // Each owner that committed names its average, and its checker and referee (but the
    // staller) vouch.
    void nameCommitted(const Pieces &pieces)
    {
        for (Peer *owner : committed) {
            const RangeEvidence evidence = evidenceOf(*owner, pieces);
            ASSERT_EQ(nameAverage(*owner, evidence).status, 200);
            for (Peer *partner : {&checkerOf(*owner), &refereeOf(*owner)}) {
                if (partner != &staller) {
                    ASSERT_EQ(nameVerdict(*partner, *owner, evidence).status, 200);
                }
            }
        }
    }
};

} // namespace

// The checker of an owner that committed to nothing averaged its range in its place (clients:
// ButterflyStandIn.cpp) and sends the evidence of it. Nobody checked that average, so the audit
// draws the range whatever its share, and the range the staller checks as well (nobody vouched
// for it); the stand-in's evidence holds, and members settle the range by the ruling. Only that
// checker may stand in, only once the commitments closed, once; the staller itself has no evidence.
TEST_F(StandInTest, TheRangeOfAnOwnerThatCommittedNothingIsAveragedByItsCheckerAndAudited)
{
    const Pieces pieces = startStalledRound(1e-12);
    Peer &standIn = checkerOf(staller);
    const RangeEvidence evidence = evidenceOf(staller, pieces);
    const HttpAnswer own = sendEvidence(staller, evidence);
    EXPECT_EQ(own.status, 403);
    EXPECT_NE(own.error().indexOf(QLatin1StringView("committed to nothing")), -1) << own.body.constData();
    for (Peer *other : committed) {
        if (other != &standIn)
            EXPECT_EQ(sendEvidence(*other, evidence).status, 400) << "not its range, and not its to stand in for";
    }
    ASSERT_NO_FATAL_FAILURE(nameCommitted(pieces));
    RangeAudit audit = auditAsSeenBy(h1);
    ASSERT_TRUE(audit.drawn) << "the staller's claim and verdict are not waited for";
    audit.owners.sort();
    QStringList unchecked{staller.keyId(), checkedBy(staller).keyId()};
    unchecked.sort();
    EXPECT_EQ(audit.owners, unchecked);
    ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(standIn, evidence).json()).value().upheld);
    EXPECT_EQ(sendEvidence(standIn, evidence).status, 409) << "once a round";
    const RangeRuling ruling =
        RangeRuling::fromJson(send("GET", "/v1/round/ruling?round=0&owner=" + staller.keyId().toLatin1(), {}, h1).json()).value();
    EXPECT_EQ(ruling.state, RangeRuling::State::Upheld);
    EXPECT_EQ(ruling.averageSha256, sha256Of(evidence.average));
    Peer &checked = checkedBy(staller);
    ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(checked, evidenceOf(checked, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(finishRound(committed, 0));
    for (Peer *peer : committed)
        EXPECT_EQ(record(*peer).offences, 0);
}

// A stand-in that sends the members a made-up average of the stalled range, and evidence of it,
// answers for it: its evidence does not hold and bans it at once (not the owner, which averaged
// nothing), and the members apply the range as the coordinator recomputed it.
TEST_F(StandInTest, AStandInWhoseAverageIsMadeUpIsConvictedInsteadOfTheOwner)
{
    const Pieces pieces = startStalledRound(1e-12);
    Peer &standIn = checkerOf(staller);
    ASSERT_NO_FATAL_FAILURE(nameCommitted(pieces));
    ASSERT_TRUE(auditAsSeenBy(h1).owners.contains(staller.keyId()));
    const RangeEvidence lie = evidenceOf(staller, pieces, -4.0f);
    EXPECT_FALSE(EvidenceRuling::fromJson(sendEvidence(standIn, lie).json()).value().upheld);
    const RangeRuling ruling =
        RangeRuling::fromJson(send("GET", "/v1/round/ruling?round=0&owner=" + staller.keyId().toLatin1(), {}, h1).json()).value();
    EXPECT_EQ(ruling.state, RangeRuling::State::Refuted);
    const QByteArray honestAverage = evidenceOf(staller, pieces).average;
    EXPECT_EQ(ruling.redoneSha256, sha256Of(honestAverage));
    Peer &checked = checkedBy(staller);
    ASSERT_TRUE(EvidenceRuling::fromJson(sendEvidence(checked, evidenceOf(checked, pieces)).json()).value().upheld);
    ASSERT_NO_FATAL_FAILURE(closeAudited(committed, 0, staller, lie.average, {&standIn}, honestAverage));
    EXPECT_TRUE(record(standIn).banned()) << "banned at once, though offences never ban in this swarm";
    EXPECT_NE(record(standIn).bannedReason.indexOf(QLatin1StringView("lying owner")), -1) << record(standIn).bannedReason.toStdString();
    EXPECT_FALSE(record(staller).banned()) << "the staller answers for its stall, not for its stand-in's lie";
    for (Peer *peer : committed) {
        if (peer != &standIn)
            EXPECT_EQ(record(*peer).offences, 0);
    }
}
