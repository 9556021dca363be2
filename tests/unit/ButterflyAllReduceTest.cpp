#include "TestApplication.h"
#include "ButterflyAllReduce.h"
#include "Identity.h"
#include "PeerTransport.h"
#include "Quantization.h"
#include "RangeCheckers.h"
#include "StateRecompute.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QHostAddress>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>

using namespace swarmtrain;

namespace {

using swarmtrain::test::application;

struct Peer {
    Identity identity;
    std::unique_ptr<PeerTransport> transport;
    std::unique_ptr<ButterflyAllReduce> allReduce;
    QString endpoint;
};

class ButterflyAllReduceTest : public ::testing::Test {
protected:
    void SetUp() override { application(); }

    // Peers on loopback that know each other's keys; `reachable` ones listen.
    void makePeers(const std::vector<bool> &reachable)
    {
        for (std::size_t i = 0; i < reachable.size(); ++i)
            peers.push_back(std::make_unique<Peer>(Peer{Identity::generate().value(), nullptr, nullptr, {}}));
        knowsKeys.assign(peers.size(), true);
        for (std::size_t i = 0; i < peers.size(); ++i) {
            Peer &peer = *peers[i];
            const PeerKeyRegistry registry = [this, i](const QString &keyId) -> std::optional<QByteArray> {
                if (!knowsKeys[i])
                    return std::nullopt;
                return keyOf(keyId);
            };
            peer.transport = std::make_unique<PeerTransport>(peer.identity, registry);
            peer.allReduce = std::make_unique<ButterflyAllReduce>(*peer.transport, peer.identity.keyId());
            if (reachable[i]) {
                const Result<quint16> port = peer.transport->listen(QHostAddress::LocalHost);
                ASSERT_TRUE(port.ok());
                peer.endpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
            }
        }
    }

    std::optional<QByteArray> keyOf(const QString &keyId) const
    {
            for (const auto &peer : peers) {
                if (peer->identity.keyId() == keyId)
                    return peer->identity.publicKey();
            }
            return std::nullopt;
    }

    // Reachable peers own equal ranges of `count` values, in the order given.
    QList<AllReduceMember> members(std::int64_t count) const
    {
        QList<AllReduceMember> list;
        std::int64_t owners = 0;
        for (const auto &peer : peers)
            owners += !peer->endpoint.isEmpty();
        std::int64_t next = 0, index = 0;
        for (const auto &peer : peers) {
            AllReduceMember m{peer->identity.keyId(), peer->endpoint, 0, 0};
            if (!peer->endpoint.isEmpty()) {
                m.begin = next;
                m.end = ++index == owners ? count : next + count / owners;
                next = m.end;
            }
            list.append(m);
        }
        return list;
    }

    static AllReduceOptions timeout(int ms)
    {
        AllReduceOptions options;
        options.timeoutMs = ms;
        return options;
    }

    static std::vector<float> randomVector(std::size_t n, unsigned seed)
    {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 0.01f);
        std::vector<float> v(n);
        for (float &x : v)
            x = normal(rng);
        return v;
    }

    // Starts every peer in `running` and waits until each has finished.
    void runRound(const std::vector<std::size_t> &running, const QList<AllReduceMember> &list,
                  const std::vector<std::vector<float>> &vectors, const std::vector<double> &tokens, int timeoutMs)
    {
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (std::size_t i : running) {
            spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
            const Result<void> started = peers[i]->allReduce->start(7, list, vectors[i], tokens[i], timeout(timeoutMs));
            ASSERT_TRUE(started.ok()) << started.error().message;
        }
        for (auto &spy : spies) {
            if (spy->count() == 0) {
                ASSERT_TRUE(spy->wait(timeoutMs + 5000));
            }
        }
    }

    // Starts every peer with its own options and waits until each has finished.
    void runRound(const QList<AllReduceMember> &list, const std::vector<std::vector<float>> &vectors,
                  const std::function<AllReduceOptions(std::size_t)> &optionsOf)
    {
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (std::size_t i = 0; i < peers.size(); ++i) {
            spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
            const Result<void> started = peers[i]->allReduce->start(7, list, vectors[i], 1, optionsOf(i));
            ASSERT_TRUE(started.ok()) << started.error().message;
        }
        for (auto &spy : spies) {
            if (spy->count() == 0) {
                ASSERT_TRUE(spy->wait(30'000));
            }
        }
    }

    // Three owners and a member that owns none, each with its random pseudo-gradient of `n` values.
    std::vector<std::vector<float>> threeOwnersAndOneMore(std::size_t n)
    {
        makePeers({true, true, true, false});
        return {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3), randomVector(n, 4)};
    }

    // One round in which peer `liar`'s all-reduce misbehaves as `misbehave` sets it up.
    void runRoundWithALiar(const QList<AllReduceMember> &list, const std::vector<std::vector<float>> &vectors,
                           std::size_t liar, const std::function<void(Misbehaviour &)> &misbehave)
    {
        runRound(list, vectors, [&](std::size_t i) {
            AllReduceOptions options = timeout(20'000);
            if (i == liar)
                misbehave(options.misbehaviour);
            return options;
        });
    }

    // Every value of `average` is the plain mean of `vectors`, give or take 8 bits.
    static void expectPlainMean(const std::vector<float> &average, const std::vector<std::vector<float>> &vectors)
    {
        for (std::size_t i = 0; i < average.size(); ++i) {
            double mean = 0.0;
            for (const auto &v : vectors)
                mean += v[i] / double(vectors.size());
            ASSERT_NEAR(average[i], mean, 0.01 * 4.0 * 2.0 / 127.0) << "value " << i;
        }
    }

    // Every owner but peer `liar` reports it, the member that owns no range no one.
    void expectTheOtherOwnersDispute(std::size_t liar)
    {
        for (std::size_t i = 0; i < peers.size(); ++i) {
            const bool disputes = !peers[i]->endpoint.isEmpty() && i != liar;
            EXPECT_EQ(peers[i]->allReduce->outcome().disputed.contains(peers[liar]->identity.keyId()), disputes)
                << "member " << i;
        }
    }

    // One round in which peer `liar` lies about its range's average and its checker vouches for it.
    // With `checkSeed`, every member pairs the owners as that seed draws them (rangeCheckers()).
    void runColludingOwnerAndChecker(const QList<AllReduceMember> &list, const std::vector<std::vector<float>> &vectors,
                                     std::size_t liar, bool refereeChecks, quint64 checkSeed = 0)
    {
        const QString checker = rangeCheckers(rangeOwners(list), 7, checkSeed).at(list[qsizetype(liar)].keyId);
        runRound(list, vectors, [&](std::size_t i) {
            AllReduceOptions options = timeout(20'000);
            options.refereeChecks = refereeChecks;
            options.checkSeed = checkSeed;
            if (i == liar)
                lieAsOwner(options.misbehaviour);
            options.misbehaviour.vouchAsChecker = list[qsizetype(i)].keyId == checker;
            return options;
        });
    }

    static std::vector<RangeOwner> rangeOwners(const QList<AllReduceMember> &list)
    {
        std::vector<RangeOwner> owners;
        for (const AllReduceMember &m : list) {
            if (m.end > m.begin)
                owners.push_back({m.keyId, m.begin});
        }
        return owners;
    }

    static void lieAsOwner(Misbehaviour &m)
    {
        m.ownerAverage = [](std::vector<float> &average) { std::fill(average.begin(), average.end(), 0.01f); };
    }

    // Peers 0 and 2 run round 7 with peer 1 named uncommitted (its transport listens and answers;
    // its all-reduce never starts), until both finished; `keepEvidence`: the coordinator audits.
    void runWithoutStaller(const QList<AllReduceMember> &list, const std::vector<std::vector<float>> &vectors, bool keepEvidence,
                           bool refereeChecks = false)
    {
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (const std::size_t i : {std::size_t(0), std::size_t(2)}) {
            spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
            AllReduceOptions options = timeout(600'000);
            options.uncommitted = {list[1].keyId};
            options.keepEvidence = keepEvidence;
            options.refereeChecks = refereeChecks;
            ASSERT_TRUE(peers[i]->allReduce->start(7, list, vectors[i], 1, options).ok());
        }
        for (auto &spy : spies) {
            if (spy->count() == 0) {
                ASSERT_TRUE(spy->wait(30'000)) << "waited for the staller";
            }
        }
    }

    std::vector<std::unique_ptr<Peer>> peers;
    std::vector<bool> knowsKeys; // a peer that has not fetched the round's members refuses everyone
};

} // namespace

// Every member's work is fixed by the swarm's config: owners weigh members alike, whatever
// token counts the senders write in their headers.
TEST_F(ButterflyAllReduceTest, EveryMemberGetsTheSameEquallyWeightedAverageWhateverTokensAreClaimed)
{
    makePeers({true, true, false}); // the third accepts no connections and owns nothing
    const std::size_t n = 5000;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const std::vector<double> tokens = {100, 200, 1e12};
    runRound({0, 1, 2}, members(n), vectors, tokens, 10000);

    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    EXPECT_TRUE(first.skippedRanges.empty());
    EXPECT_TRUE(first.rejectedSenders.isEmpty());
    EXPECT_TRUE(first.clippedSenders.isEmpty()) << "agreeing members are not clipped";
    EXPECT_EQ(first.ownPieceContributors, 3);
    for (std::size_t p = 1; p < peers.size(); ++p) {
        EXPECT_EQ(peers[p]->allReduce->outcome().average, first.average) << "peer " << p;
        EXPECT_TRUE(peers[p]->allReduce->outcome().missingWork.isEmpty()) << "peer " << p;
    }
    EXPECT_TRUE(first.missingWork.isEmpty()) << first.missingWork.join(QLatin1Char(' ')).toStdString();
    // Two 8-bit quantizations (the piece and the average) stay within a few percent of the
    // largest value of a block.
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double exact = (vectors[0][i] + vectors[1][i] + vectors[2][i]) / 3.0;
        worst = std::max(worst, std::abs(first.average[i] - exact));
    }
    EXPECT_LT(worst, 0.01 * 4.0 * 2.0 / 127.0);
    EXPECT_GT(peers[2]->transport->bytesSent(), 0);
}

// What a stale piece still counts: all of it when fresh, 1/sqrt(1 + s) after s outer steps.
TEST(StalenessWeightTest, AStalePseudoGradientCountsOneOverTheRootOfOnePlusItsStaleness)
{
    EXPECT_DOUBLE_EQ(stalenessWeight(0), 1.0);
    EXPECT_DOUBLE_EQ(stalenessWeight(3), 0.5);
    EXPECT_DOUBLE_EQ(stalenessWeight(8), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(stalenessWeight(-2), 1.0) << "no state is newer than the round's";
    for (std::int64_t s = 0; s < 64; ++s)
        EXPECT_LT(stalenessWeight(s + 1), stalenessWeight(s));
}

// A time-budgeted and asynchronous round (issue 18): owners weigh each piece by the steps the
// coordinator admitted for it times its staleness weight, 1/sqrt(1 + s), and scale the result by
// the round's share of the swarm's work: share x sum(w f(s) v) / sum(w). Every member gets it.
TEST_F(ButterflyAllReduceTest, AnAsynchronousRoundWeighsStalePiecesLessAndScalesByItsShare)
{
    makePeers({true, true, false});
    const std::size_t n = 3000;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    QList<AllReduceMember> list = members(n);
    const double steps[] = {100, 300, 100};
    const std::int64_t staleness[] = {0, 0, 3}; // the third trained on a state three rounds old
    for (qsizetype i = 0; i < list.size(); ++i) {
        list[i].weight = steps[i];
        list[i].staleness = staleness[i];
    }
    const double share = 0.4;
    runRound(list, vectors, [&](std::size_t) {
        AllReduceOptions options = timeout(20'000);
        options.share = share;
        return options;
    });
    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    ASSERT_TRUE(first.skippedRanges.empty());
    ASSERT_TRUE(first.leftOutSenders.isEmpty()) << "honest pieces of unequal weight are all taken";
    for (std::size_t p = 1; p < peers.size(); ++p)
        EXPECT_EQ(peers[p]->allReduce->outcome().average, first.average) << "peer " << p;
    const double f[] = {1.0, 1.0, 0.5};
    double worst = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        double expected = 0.0;
        for (std::size_t m = 0; m < 3; ++m)
            expected += share * steps[m] * f[m] * vectors[m][i] / 500.0;
        worst = std::max(worst, std::abs(first.average[i] - expected));
        largest = std::max(largest, std::abs(expected));
    }
    EXPECT_LT(worst, 0.01 * 4.0 * 2.0 / 127.0);
    EXPECT_GT(largest, 10.0 * worst) << "the average is more than quantization noise";
    // Not weighing by staleness, or not scaling by the share, would be this far off.
    double unscaled = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        double plain = 0.0;
        for (std::size_t m = 0; m < 3; ++m)
            plain += steps[m] * vectors[m][i] / 500.0;
        unscaled = std::max(unscaled, std::abs(first.average[i] - plain));
    }
    EXPECT_GT(unscaled, 3.0 * worst);
}

// A member on probation (a new identity while established ones take part) sends its piece, but
// the owners leave it out: a Sybil's update never reaches the model before its work is checked.
TEST_F(ButterflyAllReduceTest, APieceOfAMemberOnProbationIsLeftOutOfTheAverage)
{
    makePeers({true, true, false}); // the newcomer owns nothing
    const std::size_t n = 4000;
    std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    for (float &x : vectors[2])
        x *= -1.0f; // sign-flipped, which alone would pull the average toward zero
    QList<AllReduceMember> list = members(n);
    list[2].probation = true;
    runRound({0, 1, 2}, list, vectors, {1, 1, 1}, 10000);

    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    ASSERT_TRUE(first.skippedRanges.empty());
    EXPECT_TRUE(first.rejectedSenders.isEmpty()) << "its piece is taken, only not averaged";
    EXPECT_EQ(first.ownPieceContributors, 2);
    EXPECT_EQ(peers[2]->allReduce->outcome().average, first.average) << "it applies the same average";
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        worst = std::max(worst, std::abs(first.average[i] - (vectors[0][i] + vectors[1][i]) / 2.0));
    EXPECT_LT(worst, 0.01 * 4.0 * 2.0 / 127.0);
}

// A member that scales its update (within the norm limit) is clipped by the owners: the result
// stays near the honest members' mean, where the plain mean is dragged away.
TEST_F(ButterflyAllReduceTest, OwnersClipAPoisonedPieceUnlessToldToTakeThePlainMean)
{
    const std::size_t n = 4000;
    std::vector<float> common = randomVector(n, 9);
    std::vector<std::vector<float>> vectors;
    for (unsigned seed = 1; seed <= 4; ++seed) {
        std::vector<float> v = randomVector(n, seed);
        for (std::size_t i = 0; i < n; ++i)
            v[i] = common[i] + 0.3f * v[i];
        vectors.push_back(v);
    }
    for (float &x : vectors[3])
        x *= 40.0f; // root-mean-square about 0.4: under the norm limit of 1
    const auto distanceToHonestMean = [&](const std::vector<float> &average) {
        double sum = 0.0, norm = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double honest = (vectors[0][i] + vectors[1][i] + vectors[2][i]) / 3.0;
            sum += (average[i] - honest) * (average[i] - honest);
            norm += honest * honest;
        }
        return std::sqrt(sum / norm);
    };
    makePeers({true, true, true, true});
    const QList<AllReduceMember> list = members(n);
    std::vector<std::unique_ptr<QSignalSpy>> spies;
    for (Aggregation aggregation : {Aggregation::CenteredClip, Aggregation::Mean}) {
        spies.clear();
        for (std::size_t i = 0; i < peers.size(); ++i) {
            spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
            AllReduceOptions options;
            options.timeoutMs = 20'000;
            options.aggregation = aggregation;
            ASSERT_TRUE(peers[i]->allReduce->start(aggregation == Aggregation::Mean ? 8 : 7, list, vectors[i], 1, options).ok());
        }
        for (auto &spy : spies) {
            if (spy->count() == 0) {
                ASSERT_TRUE(spy->wait(30'000));
            }
        }
        const AllReduceOutcome &outcome = peers[0]->allReduce->outcome();
        ASSERT_TRUE(outcome.skippedRanges.empty());
        if (aggregation == Aggregation::CenteredClip) {
            EXPECT_EQ(outcome.clippedSenders, QStringList{peers[3]->identity.keyId()});
            EXPECT_LT(distanceToHonestMean(outcome.average), 0.3);
        } else {
            EXPECT_TRUE(outcome.clippedSenders.isEmpty());
            EXPECT_GT(distanceToHonestMean(outcome.average), 5.0);
        }
    }
}

// Members learn the round from the coordinator at slightly different times; one that has not
// yet refuses the others' handshakes, and they dial it again until it knows them.
TEST_F(ButterflyAllReduceTest, AMemberThatLearnsTheRoundLateIsDialedAgain)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const QList<AllReduceMember> list = members(n);
    // The largest key id is dialed by both others.
    std::size_t late = 0;
    for (std::size_t i = 1; i < peers.size(); ++i) {
        if (peers[i]->identity.keyId() > peers[late]->identity.keyId())
            late = i;
    }
    knowsKeys[late] = false;

    std::vector<std::unique_ptr<QSignalSpy>> spies;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
        if (i != late) {
            ASSERT_TRUE(peers[i]->allReduce->start(7, list, vectors[i], 100, timeout(10000)).ok());
        }
    }
    QTest::qWait(600); // refused handshakes meanwhile
    knowsKeys[late] = true;
    ASSERT_TRUE(peers[late]->allReduce->start(7, list, vectors[late], 100, timeout(10000)).ok());
    for (auto &spy : spies) {
        if (spy->count() == 0) {
            ASSERT_TRUE(spy->wait(15000));
        }
    }
    for (std::size_t p = 0; p < peers.size(); ++p) {
        EXPECT_TRUE(peers[p]->allReduce->outcome().skippedRanges.empty()) << "peer " << p;
        EXPECT_EQ(peers[p]->allReduce->outcome().average, peers[0]->allReduce->outcome().average) << "peer " << p;
        EXPECT_EQ(peers[p]->allReduce->outcome().ownPieceContributors, 3) << "peer " << p;
    }
}

TEST_F(ButterflyAllReduceTest, ErrorFeedbackCarriesWhatQuantizationDroppedIntoTheNextRound)
{
    makePeers({true});
    const std::size_t n = 512;
    std::vector<float> v(n, 0.0f);
    v[0] = 1.0f;
    v[1] = 0.003f; // below half a step of the block's scale (1/127): alone, it rounds to zero
    float sent = 0.0f;
    for (int round = 0; round < 10; ++round) {
        runRound({0}, members(n), {v}, {1.0}, 5000);
        sent += peers[0]->allReduce->outcome().average[1];
    }
    EXPECT_EQ(peers[0]->allReduce->outcome().average[0], 1.0f);
    // What went out over ten rounds is what came in, up to the residual still held back.
    EXPECT_NEAR(sent, 10 * 0.003f, 0.5f / 127.0f);
    EXPECT_GT(sent, 0.0f);
}

// A round far shorter than the one before (a spot check spent its budget) would carry a residual
// larger than its own update, which a replay of its steps cannot reproduce: it is dropped, and the
// piece sent is the round's own update.
TEST_F(ButterflyAllReduceTest, AResidualTooLargeForASpotCheckToReplayIsDropped)
{
    makePeers({true});
    const std::size_t n = 4096;
    std::vector<float> longRound = randomVector(n, 1);
    for (float &x : longRound)
        x *= 1000.0f;
    const std::vector<float> shortRound = randomVector(n, 2);
    runRound({0}, members(n), {longRound}, {1.0}, 5000);
    runRound({0}, members(n), {shortRound}, {1.0}, 5000);
    const std::vector<float> &sent = peers[0]->allReduce->outcome().average;
    ASSERT_EQ(sent.size(), n);
    double dot = 0.0, sentSquared = 0.0, shortSquared = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        dot += double(sent[i]) * double(shortRound[i]);
        sentSquared += double(sent[i]) * double(sent[i]);
        shortSquared += double(shortRound[i]) * double(shortRound[i]);
    }
    // Carried, the long round's residual (up to half a step of its 8-bit scale, about 0.15 here
    // against values of about 0.01) would leave a cosine near 0.1.
    EXPECT_GT(dot / std::sqrt(sentSquared * shortSquared), 0.999);
    EXPECT_NEAR(std::sqrt(sentSquared / shortSquared), 1.0, 0.01);
}

TEST_F(ButterflyAllReduceTest, ARangeWhoseOwnerIsGoneIsSkippedByEveryone)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const QList<AllReduceMember> list = members(n);
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    peers[1]->allReduce.reset();
    peers[1]->transport.reset(); // the owner of the middle range vanished
    runRound({0, 2}, list, vectors, {1, 1, 1}, 1500);

    const AllReduceOutcome &a = peers[0]->allReduce->outcome();
    const AllReduceOutcome &c = peers[2]->allReduce->outcome();
    // Its range, and the range it was to check: no verdict, no range.
    ASSERT_EQ(a.skippedRanges.size(), 2u);
    EXPECT_EQ(a.skippedRanges, c.skippedRanges);
    EXPECT_EQ(a.average, c.average);
    EXPECT_EQ(a.ownPieceContributors, 2);
    EXPECT_TRUE(a.disputed.isEmpty() && c.disputed.isEmpty()) << "a checker that said nothing is not disputed";
    // Whose work the average lacks: the vanished member's, as both survivors see it.
    EXPECT_EQ(a.missingWork, QStringList{list[1].keyId});
    EXPECT_EQ(c.missingWork, a.missingWork);
    std::int64_t applied = 0;
    for (const AllReduceMember &owner : list) {
        const bool skipped = std::find(a.skippedRanges.begin(), a.skippedRanges.end(), std::pair(owner.begin, owner.end))
                             != a.skippedRanges.end();
        if (!skipped) {
            EXPECT_NE(owner.keyId, list[1].keyId);
            EXPECT_NE(a.average[std::size_t(owner.begin)], 0.0f);
            ++applied;
            continue;
        }
        for (std::int64_t i = owner.begin; i < owner.end; ++i) {
            ASSERT_EQ(a.average[std::size_t(i)], 0.0f);
        }
    }
    EXPECT_EQ(applied, 1);
}

// A member alive and connected that committed to nothing (a stranger stalling the round): the
// coordinator names it once the commitments close, and no one waits for its piece, its range's
// average or its verdict; without that, everyone waited for it until the round's deadline.
TEST_F(ButterflyAllReduceTest, AMemberTheCoordinatorNamesUncommittedIsWaitedForByNoOne)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const QList<AllReduceMember> list = members(n);
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const std::size_t staller = 1;
    ASSERT_NO_FATAL_FAILURE(runWithoutStaller(list, vectors, false));
    const AllReduceOutcome &a = peers[0]->allReduce->outcome();
    const AllReduceOutcome &c = peers[2]->allReduce->outcome();
    const AllReduceMember &stalling = list[qsizetype(staller)];
    EXPECT_NE(std::find(a.skippedRanges.begin(), a.skippedRanges.end(), std::pair(stalling.begin, stalling.end)),
              a.skippedRanges.end());
    EXPECT_EQ(a.skippedRanges, c.skippedRanges);
    EXPECT_EQ(a.average, c.average);
    EXPECT_EQ(a.ownPieceContributors, 2);
}

// Where the coordinator audits ranges, no range is lost to a member that committed to nothing:
// the staller's own range is averaged in its place by its checker, from the pieces it got as the
// checker, and the range the staller checks is applied without its verdict. Both are left to the
// audit, which draws every range no checker vouched for; the stand-in keeps the evidence of the
// range it averaged for it.
TEST_F(ButterflyAllReduceTest, AnUncommittedMembersRangeIsAveragedByItsCheckerAndLeftToTheAudit)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const QList<AllReduceMember> list = members(n);
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const std::size_t staller = 1;
    ASSERT_NO_FATAL_FAILURE(runWithoutStaller(list, vectors, true));
    const AllReduceOutcome &a = peers[0]->allReduce->outcome();
    const AllReduceOutcome &c = peers[2]->allReduce->outcome();
    const AllReduceMember &stalling = list[qsizetype(staller)];
    EXPECT_TRUE(a.skippedRanges.empty() && c.skippedRanges.empty());
    EXPECT_EQ(a.appliedAverages.size(), 3u);
    EXPECT_EQ(a.average, c.average);
    // Unchecked: the staller's range and the one it checks (with three owners, one of the others').
    ASSERT_EQ(a.uncheckedRanges.size(), 2u);
    ASSERT_EQ(c.uncheckedRanges.size(), 2u);
    QStringList unchecked;
    for (const DisputedRange &range : a.uncheckedRanges)
        unchecked.append(range.owner);
    EXPECT_TRUE(unchecked.contains(stalling.keyId));
    // One of the two checks the staller, and stood in for it, with both pieces as its evidence.
    ASSERT_NE(a.standIn.has_value(), c.standIn.has_value());
    const AllReduceOutcome::StandIn &standIn = a.standIn ? *a.standIn : *c.standIn;
    EXPECT_EQ(standIn.owner, stalling.keyId);
    EXPECT_EQ(standIn.evidence.begin, stalling.begin);
    EXPECT_EQ(standIn.evidence.end, stalling.end);
    EXPECT_EQ(standIn.evidence.pieces.size(), 2u);
    // The mean of the two pieces, within the 8-bit encoding's error.
    for (std::int64_t i = stalling.begin; i < stalling.end; i += 97) {
        const float mean = (vectors[0][std::size_t(i)] + vectors[2][std::size_t(i)]) / 2.0f;
        EXPECT_NEAR(a.average[std::size_t(i)], mean, 0.002f) << i;
    }
}

// Where referees check every average too, a staller holds up no range it referees: the range's
// checker vouched, so it is applied; and the range it checks is confirmed by that range's
// referee, which names its verdict for the audit as a checker does.
TEST_F(ButterflyAllReduceTest, WithRefereeChecksAStallerHoldsUpNoRangeItChecksOrReferees)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const QList<AllReduceMember> list = members(n);
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    ASSERT_NO_FATAL_FAILURE(runWithoutStaller(list, vectors, true, true));
    const AllReduceOutcome &a = peers[0]->allReduce->outcome();
    const AllReduceOutcome &c = peers[2]->allReduce->outcome();
    EXPECT_TRUE(a.skippedRanges.empty() && c.skippedRanges.empty());
    EXPECT_EQ(a.appliedAverages.size(), 3u);
    EXPECT_EQ(a.average, c.average);
    EXPECT_TRUE(a.disputedRanges.empty() && c.disputedRanges.empty());
    // With three owners, one of the two referees the range the staller checks: it confirmed the
    // owner's average and says so. The other referees the staller's own range, which a stand-in
    // averaged and the audit rules on: it names nothing.
    ASSERT_NE(a.refereeVerdict.has_value(), c.refereeVerdict.has_value());
    const CheckVerdict &refereed = a.refereeVerdict ? *a.refereeVerdict : *c.refereeVerdict;
    EXPECT_TRUE(refereed.agrees);
    EXPECT_NE(refereed.owner, list[1].keyId);
    EXPECT_EQ(refereed.averageSha256.size(), 64);
    EXPECT_EQ(refereed.contributors.size(), 2);
}

// A member killed mid-round: its connections drop or are refused, and the others finish with
// its range skipped instead of waiting for the round's deadline.
TEST_F(ButterflyAllReduceTest, AMemberKilledMidRoundIsNotWaitedForUntilTheDeadline)
{
    makePeers({true, true, true});
    const std::size_t n = 3000;
    const QList<AllReduceMember> list = members(n);
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const int deadlineMs = 120'000;
    // The member with the largest key id: both others dial it (a member that dies before it
    // dials is only given up at the owners' wait, a share of the deadline).
    std::size_t dead = 0;
    for (std::size_t i = 1; i < peers.size(); ++i) {
        if (peers[i]->identity.keyId() > peers[dead]->identity.keyId())
            dead = i;
    }
    std::vector<std::size_t> alive;
    std::vector<std::unique_ptr<QSignalSpy>> spies;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        if (i == dead)
            continue;
        alive.push_back(i);
        spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
        ASSERT_TRUE(peers[i]->allReduce->start(7, list, vectors[i], 1, timeout(deadlineMs)).ok());
    }
    // It takes the others' connections, then dies without averaging its range.
    QTest::qWait(300);
    peers[dead]->allReduce.reset();
    peers[dead]->transport.reset();
    for (auto &spy : spies) {
        if (spy->count() == 0) {
            ASSERT_TRUE(spy->wait(20'000)) << "waited for the dead member until the deadline";
        }
    }
    const AllReduceOutcome &a = peers[alive[0]]->allReduce->outcome();
    const AllReduceOutcome &c = peers[alive[1]]->allReduce->outcome();
    // Its range, and the one it was to check (no verdict, no range); the third is applied.
    ASSERT_EQ(a.skippedRanges.size(), 2u);
    const AllReduceMember &deadOwner = list[qsizetype(dead)];
    EXPECT_NE(std::find(a.skippedRanges.begin(), a.skippedRanges.end(), std::pair(deadOwner.begin, deadOwner.end)),
              a.skippedRanges.end());
    EXPECT_EQ(a.skippedRanges, c.skippedRanges);
    EXPECT_EQ(a.average, c.average);
    EXPECT_EQ(a.missingWork, QStringList{deadOwner.keyId});
    EXPECT_EQ(c.missingWork, a.missingWork);
}

TEST_F(ButterflyAllReduceTest, AnOutlandishPieceIsRefusedAndCountedAgainstItsSender)
{
    makePeers({true, false});
    const std::size_t n = 1000;
    std::vector<float> huge = randomVector(n, 2);
    for (float &x : huge)
        x *= 1000.0f; // root-mean-square 10, over the limit of 1
    runRound({0, 1}, members(n), {randomVector(n, 1), huge}, {1, 1}, 2000);
    const AllReduceOutcome &owner = peers[0]->allReduce->outcome();
    EXPECT_EQ(owner.rejectedSenders, QStringList{peers[1]->identity.keyId()});
    EXPECT_EQ(owner.ownPieceContributors, 1);
    // The sender still gets the average the others use, so every replica stays equal.
    EXPECT_EQ(peers[1]->allReduce->outcome().average, owner.average);
}

// A freeloader's all-zero piece is refused by its owner, so the coordinator counts it without
// anyone recomputing its work; a piece with a single nonzero value is taken.
TEST_F(ButterflyAllReduceTest, AnAllZeroPieceIsRefusedAndCountedAgainstItsSender)
{
    makePeers({true, false, false});
    const std::size_t n = 1000;
    std::vector<float> almostZero(n, 0.0f);
    almostZero[n / 2] = 0.01f;
    runRound({0, 1, 2}, members(n), {randomVector(n, 1), std::vector<float>(n, 0.0f), almostZero}, {1, 1, 1}, 2000);
    const AllReduceOutcome &owner = peers[0]->allReduce->outcome();
    EXPECT_EQ(owner.rejectedSenders, QStringList{peers[1]->identity.keyId()});
    EXPECT_EQ(owner.ownPieceContributors, 2);
    EXPECT_EQ(peers[1]->allReduce->outcome().average, owner.average);
}

TEST_F(ButterflyAllReduceTest, AnInconsistentMemberListIsRefusedAtOnce)
{
    makePeers({true, true});
    QList<AllReduceMember> list = members(100);
    list[1].begin += 1; // a gap
    EXPECT_FALSE(peers[0]->allReduce->start(1, list, std::vector<float>(100), 1.0).ok());
    list = members(100);
    EXPECT_FALSE(peers[0]->allReduce->start(1, list, std::vector<float>(99), 1.0).ok());
    list.removeAt(0); // not a member
    list[0].begin = 0;
    EXPECT_FALSE(peers[0]->allReduce->start(1, list, std::vector<float>(100), 1.0).ok());
}

// Two owners per range and a referee: a range owner that returns something else than the
// average of the pieces it got is caught by the range's checker, which recomputes it from the
// same pieces; the referee recomputes it once more and confirms the checker's average, which
// every member applies instead. Nothing is skipped; the checker and the referee report the liar.
TEST_F(ButterflyAllReduceTest, ALyingOwnersRangeIsRedoneAsItsCheckerAveragedItOnceItsRefereeConfirms)
{
    const std::size_t n = 6000, liar = 1;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runRoundWithALiar(list, vectors, liar, lieAsOwner);

    const AllReduceMember &lying = list[qsizetype(liar)];
    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    EXPECT_TRUE(first.skippedRanges.empty());
    ASSERT_EQ(first.redoneRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{lying.begin, lying.end}}));
    for (std::size_t i = 1; i < peers.size(); ++i) {
        EXPECT_EQ(peers[i]->allReduce->outcome().average, first.average) << "member " << i;
        EXPECT_EQ(peers[i]->allReduce->outcome().redoneRanges, first.redoneRanges) << "member " << i;
    }
    // Its checker and its referee, the two other owners, dispute the liar; the liar disputes no one.
    expectTheOtherOwnersDispute(liar);
    EXPECT_TRUE(peers[liar]->allReduce->outcome().disputed.isEmpty());
    // What each member applied, as it tells the coordinator: every range, in range order, the
    // same bytes everywhere, and exactly the average it applied.
    ASSERT_EQ(first.appliedAverages.size(), 3u);
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const std::vector<RangeAverage> &applied = peers[i]->allReduce->outcome().appliedAverages;
        ASSERT_EQ(applied.size(), first.appliedAverages.size()) << "member " << i;
        for (std::size_t r = 0; r < applied.size(); ++r)
            EXPECT_EQ(applied[r].payload, first.appliedAverages[r].payload) << "member " << i << ", range " << r;
        EXPECT_EQ(assembleAverage(applied, std::int64_t(n)).value(), peers[i]->allReduce->outcome().average)
            << "member " << i;
    }
    // Every range, the liar's too, holds the plain average of the four pieces.
    expectPlainMean(first.average, vectors);
}

// A checker that disputes an honest owner's average with one of its own gains nothing: the
// referee finds the owner's average holds, every member applies it, and the referee and the
// owner report the checker.
TEST_F(ButterflyAllReduceTest, ALyingCheckerIsOverruledByTheRefereeAndTheOwnersAverageStands)
{
    const std::size_t n = 6000, liar = 2;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runRoundWithALiar(list, vectors, liar, [](Misbehaviour &m) {
        m.checkerAverage = [](std::vector<float> &average) { std::fill(average.begin(), average.end(), 0.01f); };
    });

    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    EXPECT_TRUE(first.skippedRanges.empty());
    EXPECT_TRUE(first.redoneRanges.empty());
    for (std::size_t i = 1; i < peers.size(); ++i)
        EXPECT_EQ(peers[i]->allReduce->outcome().average, first.average) << "member " << i;
    expectPlainMean(first.average, vectors);
    // The other two owners (the one it checked and that range's referee) report it.
    expectTheOtherOwnersDispute(liar);
}

// With two owners a range has no referee: a range its checker disputes is skipped by everyone.
TEST_F(ButterflyAllReduceTest, WithoutARefereeADisputedRangeIsSkippedByEveryone)
{
    makePeers({true, true, false});
    const std::size_t n = 4000, liar = 0;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3)};
    const QList<AllReduceMember> list = members(n);
    runRoundWithALiar(list, vectors, liar, lieAsOwner);

    const AllReduceMember &lying = list[qsizetype(liar)];
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_EQ(outcome.skippedRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{lying.begin, lying.end}}))
            << "member " << i;
        EXPECT_TRUE(outcome.redoneRanges.empty()) << "member " << i;
        for (std::int64_t v = lying.begin; v < lying.end; ++v)
            ASSERT_EQ(outcome.average[std::size_t(v)], 0.0f) << "member " << i;
    }
    EXPECT_EQ(peers[1]->allReduce->outcome().disputed, QStringList{lying.keyId}); // its checker
    EXPECT_EQ(peers[liar]->allReduce->outcome().disputed, QStringList{list[1].keyId});
}

// A member that sends its pieces to the owners but not to the checkers cannot get ranges
// skipped or honest owners disputed: each owner forwards the pieces its checker lacks, which
// the checker holds against their senders' commitments.
TEST_F(ButterflyAllReduceTest, APieceWithheldFromTheCheckerIsForwardedByTheOwner)
{
    makePeers({true, true, true, false});
    const std::size_t n = 6000;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3),
                                                     randomVector(n, 4)};
    const QList<AllReduceMember> list = members(n);
    const std::size_t withholder = 3;
    runRound(list, vectors, [&](std::size_t i) {
        AllReduceOptions options = timeout(20'000);
        options.misbehaviour.withholdFromCheckers = i == withholder;
        return options;
    });

    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    EXPECT_TRUE(first.skippedRanges.empty());
    EXPECT_EQ(first.ownPieceContributors, 4);
    for (std::size_t i = 0; i < peers.size(); ++i) {
        EXPECT_TRUE(peers[i]->allReduce->outcome().disputed.isEmpty()) << "member " << i;
        EXPECT_EQ(peers[i]->allReduce->outcome().average, first.average) << "member " << i;
    }
}

// Only a range's checker speaks for it: a verdict from anyone else (here a member that owns no
// range, claiming every range is wrong) is ignored.
TEST_F(ButterflyAllReduceTest, AVerdictFromAMemberThatIsNotTheRangesCheckerIsIgnored)
{
    makePeers({true, true, true, false});
    const std::size_t n = 6000;
    const std::vector<std::vector<float>> vectors = {randomVector(n, 1), randomVector(n, 2), randomVector(n, 3),
                                                     randomVector(n, 4)};
    const QList<AllReduceMember> list = members(n);
    const std::size_t forger = 3;
    std::vector<std::unique_ptr<QSignalSpy>> spies;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        spies.push_back(std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished));
        ASSERT_TRUE(peers[i]->allReduce->start(7, list, vectors[i], 1, timeout(20'000)).ok());
    }
    // "Disagrees" (first byte 0) with any average, for each range, to each owner, at once.
    for (const AllReduceMember &owner : list) {
        if (owner.end == owner.begin)
            continue;
        ASSERT_TRUE(QTest::qWaitFor([&] { return peers[forger]->transport->isConnected(owner.keyId); }, 30'000));
        for (const AllReduceMember &range : list) {
            if (range.end == range.begin)
                continue;
            FrameHeader header;
            header.set_type(wire::FRAME_TYPE_TENSOR);
            header.set_round(7);
            header.set_tag(3); // a verdict
            header.set_range_begin(quint64(range.begin));
            header.set_range_end(quint64(range.end));
            header.set_dtype("U8");
            header.add_shape(33);
            ASSERT_TRUE(peers[forger]->transport->send(owner.keyId, header, QByteArray(33, '\0')).ok());
        }
    }
    for (auto &spy : spies) {
        if (spy->count() == 0) {
            ASSERT_TRUE(spy->wait(30'000));
        }
    }
    for (std::size_t i = 0; i < peers.size(); ++i) {
        EXPECT_TRUE(peers[i]->allReduce->outcome().skippedRanges.empty()) << "member " << i;
        EXPECT_TRUE(peers[i]->allReduce->outcome().disputed.isEmpty()) << "member " << i;
    }
}

// Only a range's checker sends its own average of it, only its referee rules on it, and only its
// owner and checker pass pieces of it on: a member that is none of these (here one that owns no
// range) sends every owner, before anything true comes, an average of its own for a lying
// owner's range, a ruling for the liar and a made-up piece of an honest member for it. All are
// ignored: the range is still redone as its checker averaged it (the referee would have found
// neither average holds, recomputing with the made-up piece).
TEST_F(ButterflyAllReduceTest, ARecomputedAverageARulingOrAPiecePassedOnByAnyoneButTheRangesPartnersIsIgnored)
{
    const std::size_t n = 6000, liar = 1, forger = 3;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    const AllReduceMember &lying = list[qsizetype(liar)];
    std::vector<std::unique_ptr<QSignalSpy>> spies(peers.size());
    const auto startPeer = [&](std::size_t i) {
        spies[i] = std::make_unique<QSignalSpy>(peers[i]->allReduce.get(), &ButterflyAllReduce::finished);
        AllReduceOptions options = timeout(20'000);
        if (i == liar)
            lieAsOwner(options.misbehaviour);
        ASSERT_TRUE(peers[i]->allReduce->start(7, list, vectors[i], 1, options).ok());
    };
    // The forger starts first and dials the owners, which hold its frames until they start.
    startPeer(forger);
    const Quantized garbage = quantize(std::vector<float>(std::size_t(lying.end - lying.begin), 0.02f)).value();
    const std::vector<std::byte> encoded = encodeQuantized(garbage);
    const QByteArray average(reinterpret_cast<const char *>(encoded.data()), qsizetype(encoded.size()));
    QByteArray ruling(1, '\x02'); // "the checker's average holds", naming the forged one
    ruling += QCryptographicHash::hash(average, QCryptographicHash::Sha256);
    // The made-up piece is member 0's: a bitmap over the members in key order.
    QStringList keys;
    for (const AllReduceMember &m : list)
        keys.append(m.keyId);
    keys.sort();
    const std::string named(1, char(1 << keys.indexOf(list[0].keyId)));
    for (const AllReduceMember &owner : list) {
        if (owner.end == owner.begin)
            continue;
        ASSERT_TRUE(QTest::qWaitFor([&] { return peers[forger]->transport->isConnected(owner.keyId); }, 30'000));
        for (const auto &[tag, payload] : {std::pair{6u, average}, std::pair{7u, ruling}, std::pair{5u, average}}) {
            FrameHeader header;
            header.set_type(wire::FRAME_TYPE_TENSOR);
            header.set_round(7);
            header.set_tag(tag);
            header.set_range_begin(quint64(lying.begin));
            header.set_range_end(quint64(lying.end));
            header.set_dtype("U8");
            header.add_shape(quint64(payload.size()));
            if (tag == 5u)
                header.set_members(named);
            ASSERT_TRUE(peers[forger]->transport->send(owner.keyId, header, payload).ok());
        }
    }
    for (std::size_t i = 0; i < peers.size(); ++i) {
        if (i != forger)
            startPeer(i);
    }
    for (auto &spy : spies) {
        if (spy->count() == 0) {
            ASSERT_TRUE(spy->wait(30'000));
        }
    }
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_TRUE(outcome.skippedRanges.empty()) << "member " << i;
        EXPECT_EQ(outcome.redoneRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{lying.begin, lying.end}}))
            << "member " << i;
        EXPECT_EQ(outcome.average, peers[0]->allReduce->outcome().average) << "member " << i;
        EXPECT_NE(outcome.average[std::size_t(lying.begin)], 0.02f) << "member " << i;
    }
}

// Where the coordinator rules on disputed ranges (refereeChecks), a range's referee checks its
// owner's average too: every member sends it its pieces. An honest round is applied as before.
TEST_F(ButterflyAllReduceTest, WithRefereeChecksAnHonestRoundIsAppliedAsBefore)
{
    const std::size_t n = 6000;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runRound(list, vectors, [&](std::size_t) {
        AllReduceOptions options = timeout(20'000);
        options.refereeChecks = true;
        return options;
    });
    const AllReduceOutcome &first = peers[0]->allReduce->outcome();
    EXPECT_TRUE(first.skippedRanges.empty());
    EXPECT_EQ(first.appliedAverages.size(), 3u);
    for (std::size_t i = 0; i < peers.size(); ++i) {
        EXPECT_EQ(peers[i]->allReduce->outcome().average, first.average) << "member " << i;
        EXPECT_TRUE(peers[i]->allReduce->outcome().disputed.isEmpty()) << "member " << i;
        EXPECT_TRUE(peers[i]->allReduce->outcome().disputedRanges.empty()) << "member " << i;
    }
    expectPlainMean(first.average, vectors);
}

// A lying owner and its checker, colluding: the checker vouches for the owner's average. Where
// the referee checks too, it finds the average wrong: nobody applies the range, every member
// has it disputed (for the coordinator's ruling), the liar keeps its evidence and the referee
// disputes it. ...and without referee checks the lie gets in.
TEST_F(ButterflyAllReduceTest, WithRefereeChecksAnOwnerAndItsCheckerCannotDecideItsRangeTogether)
{
    const std::size_t n = 6000, liar = 1;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runColludingOwnerAndChecker(list, vectors, liar, true);
    const AllReduceMember &lying = list[qsizetype(liar)];
    std::size_t disputers = 0;
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_EQ(outcome.skippedRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{lying.begin, lying.end}}))
            << "member " << i;
        EXPECT_EQ(outcome.average[std::size_t(lying.begin)], 0.0f) << "member " << i;
        ASSERT_EQ(outcome.disputedRanges.size(), 1u) << "member " << i;
        EXPECT_EQ(outcome.disputedRanges.front().owner, lying.keyId);
        disputers += outcome.disputed.contains(lying.keyId) ? 1 : 0;
        // The referee names its verdict for the coordinator's audit, which then draws the range.
        if (outcome.disputed.contains(lying.keyId)) {
            ASSERT_TRUE(outcome.refereeVerdict.has_value()) << "member " << i;
            EXPECT_EQ(outcome.refereeVerdict->owner, lying.keyId);
            EXPECT_FALSE(outcome.refereeVerdict->agrees);
        }
    }
    EXPECT_TRUE(peers[liar]->allReduce->outcome().evidence.has_value());
    EXPECT_EQ(disputers, 1u) << "its referee";
}

TEST_F(ButterflyAllReduceTest, WithoutRefereeChecksAnOwnerAndItsCheckerDecideItsRangeTogether)
{
    const std::size_t n = 6000, liar = 1;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runColludingOwnerAndChecker(list, vectors, liar, false);
    const AllReduceMember &lying = list[qsizetype(liar)];
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_TRUE(outcome.skippedRanges.empty()) << "member " << i;
        EXPECT_NEAR(outcome.average[std::size_t(lying.begin)], 0.01f, 1e-6) << "member " << i;
    }
    EXPECT_FALSE(peers[liar]->allReduce->outcome().evidence.has_value());
}

// Every member pairs the owners as the coordinator's seed draws them, not by the round's turn:
// the owner's vouching checker is the seed's, which the turn would not have made its checker, and
// with no referee checking every average the two decide its range together.
TEST_F(ButterflyAllReduceTest, MembersPairTheOwnersAsTheCoordinatorsSeedDrawsThem)
{
    const std::size_t n = 6000, liar = 1;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    const QString liarKey = list[qsizetype(liar)].keyId;
    quint64 seed = 1;
    while (rangeCheckers(rangeOwners(list), 7, seed).at(liarKey) == rangeCheckers(rangeOwners(list), 7).at(liarKey))
        ++seed;
    runColludingOwnerAndChecker(list, vectors, liar, false, seed);
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_TRUE(outcome.skippedRanges.empty()) << "member " << i;
        EXPECT_TRUE(outcome.redoneRanges.empty()) << "member " << i;
        EXPECT_NEAR(outcome.average[std::size_t(list[qsizetype(liar)].begin)], 0.01f, 1e-6) << "member " << i;
    }
}

// A lying owner with an honest checker and referee: as before, the referee confirms the
// checker's average and every member applies that one.
TEST_F(ButterflyAllReduceTest, WithRefereeChecksALyingOwnersRangeIsStillRedoneAsItsCheckerAveragedIt)
{
    const std::size_t n = 6000, liar = 1;
    const std::vector<std::vector<float>> vectors = threeOwnersAndOneMore(n);
    const QList<AllReduceMember> list = members(n);
    runRound(list, vectors, [&](std::size_t i) {
        AllReduceOptions options = timeout(20'000);
        options.refereeChecks = true;
        if (i == liar)
            lieAsOwner(options.misbehaviour);
        return options;
    });
    const AllReduceMember &lying = list[qsizetype(liar)];
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const AllReduceOutcome &outcome = peers[i]->allReduce->outcome();
        EXPECT_TRUE(outcome.skippedRanges.empty()) << "member " << i;
        EXPECT_EQ(outcome.redoneRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{lying.begin, lying.end}}))
            << "member " << i;
    }
    expectPlainMean(peers[0]->allReduce->outcome().average, vectors);
    expectTheOtherOwnersDispute(liar);
}
