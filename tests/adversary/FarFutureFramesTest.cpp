// An attacker that speaks the data plane (a registered key, a signed hello) floods a real peer
// with frames of rounds far ahead and with more early frames than a round can bring: the peer
// holds a bounded number of bytes, refuses the rest, counts it against the attacker, and the
// honest round still completes.
#include "ButterflyAllReduce.h"
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "PeerTransport.h"
#include "ProcessMemory.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <QHostAddress>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <memory>
#include <random>
#include <unistd.h>

using namespace swarmtrain;

namespace {

constexpr std::size_t kParameters = 20'000;
constexpr qint64 kFloodFrameBytes = 4ll << 20;

struct Honest {
    Identity identity = Identity::generate().value();
    std::unique_ptr<PeerTransport> transport;
    std::unique_ptr<ButterflyAllReduce> allReduce;
    QString endpoint;
};

class FarFutureFramesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        const PeerKeyRegistry registry = [this](const QString &keyId) -> std::optional<QByteArray> {
            for (const Identity *identity : {&a.identity, &b.identity, &attacker})
                if (identity->keyId() == keyId)
                    return identity->publicKey();
            return std::nullopt;
        };
        for (Honest *peer : {&a, &b}) {
            peer->transport = std::make_unique<PeerTransport>(peer->identity, registry);
            peer->allReduce = std::make_unique<ButterflyAllReduce>(*peer->transport, peer->identity.keyId());
            const Result<quint16> port = peer->transport->listen(QHostAddress::LocalHost);
            ASSERT_TRUE(port.ok());
            peer->endpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
        }
        attackerTransport = std::make_unique<PeerTransport>(attacker, registry);
    }

    QList<AllReduceMember> members() const
    {
        return {{a.identity.keyId(), a.endpoint, 0, std::int64_t(kParameters / 2)},
                {b.identity.keyId(), b.endpoint, std::int64_t(kParameters / 2), std::int64_t(kParameters)}};
    }

    static AllReduceOptions options()
    {
        AllReduceOptions o;
        o.timeoutMs = 20'000;
        return o;
    }

    static std::vector<float> update(unsigned seed)
    {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 0.01f);
        std::vector<float> v(kParameters);
        for (float &x : v)
            x = normal(rng);
        return v;
    }

    // A and B run round `round` to its end.
    void runHonestRound(quint64 round)
    {
        QSignalSpy doneA(a.allReduce.get(), &ButterflyAllReduce::finished);
        QSignalSpy doneB(b.allReduce.get(), &ButterflyAllReduce::finished);
        ASSERT_TRUE(a.allReduce->start(round, members(), update(1), 1.0, options()).ok());
        ASSERT_TRUE(b.allReduce->start(round, members(), update(2), 1.0, options()).ok());
        ASSERT_TRUE(doneA.count() > 0 || doneA.wait(60'000));
        ASSERT_TRUE(doneB.count() > 0 || doneB.wait(60'000));
        EXPECT_TRUE(a.allReduce->outcome().skippedRanges.empty());
        EXPECT_EQ(a.allReduce->outcome().average, b.allReduce->outcome().average);
    }

    bool connectAttackerTo(const Honest &victim)
    {
        if (attackerTransport->isConnected(victim.identity.keyId()))
            return true;
        if (!attackerTransport->connectToPeer(victim.endpoint, victim.identity.keyId()).ok())
            return false;
        return QTest::qWaitFor([&] { return attackerTransport->isConnected(victim.identity.keyId()); }, 60'000);
    }

    // Sends `frames` piece frames of `bytes` each for round `round` to `victim`, reconnecting
    // when it hangs up, and waits until the victim has read each one.
    void flood(const Honest &victim, quint64 round, int frames, qint64 bytes = kFloodFrameBytes)
    {
        const QByteArray junk(qsizetype(bytes), '\x11');
        FrameHeader header;
        header.set_type(wire::FRAME_TYPE_TENSOR);
        header.set_round(round);
        header.set_tag(1); // a piece
        header.set_range_begin(0);
        header.set_range_end(kParameters / 2);
        header.set_dtype("U8");
        header.add_shape(junk.size());
        header.set_tokens(1e12);
        for (int i = 0; i < frames; ++i) {
            ASSERT_TRUE(connectAttackerTo(victim)) << "frame " << i;
            const qint64 before = victim.transport->bytesReceived();
            ASSERT_TRUE(attackerTransport->send(victim.identity.keyId(), header, junk).ok());
            ASSERT_TRUE(QTest::qWaitFor([&] { return victim.transport->bytesReceived() >= before + bytes; }, 60'000))
                << "frame " << i;
            // A victim that hung up: wait until the attacker's side has seen it, to dial again.
            ASSERT_TRUE(QTest::qWaitFor([&] {
                return attackerTransport->isConnected(victim.identity.keyId())
                       == victim.transport->isConnected(attacker.keyId());
            }, 60'000));
            maxHeld = std::max(maxHeld, victim.allReduce->earlyBytesHeld());
        }
    }

    Honest a, b;
    Identity attacker = Identity::generate().value();
    std::unique_ptr<PeerTransport> attackerTransport;
    qint64 maxHeld = 0;
};

} // namespace

TEST_F(FarFutureFramesTest, FramesOfRoundsFarAheadAreRefusedAndTheRoundStillCompletes)
{
    runHonestRound(6);
    const long long rssBefore = test::residentBytes(::getpid());
    flood(a, 6 + 1'000'000, 32); // 128 MiB of frames for a round a million ahead
    const long long rssGrowth = test::residentBytes(::getpid()) - rssBefore;

    EXPECT_EQ(a.allReduce->earlyBytesHeld(), 0);
    EXPECT_EQ(maxHeld, 0);
    runHonestRound(7);
    EXPECT_TRUE(a.allReduce->outcome().rejectedSenders.contains(attacker.keyId()))
        << "counted against the attacker";
    std::cout << "ATTACK far-future-frames detected=" << a.allReduce->outcome().rejectedSenders.contains(attacker.keyId())
              << " banned_after=disconnected-at-once held_bytes=" << maxHeld << " rss_growth_mib="
              << double(rssGrowth) / double(1 << 20) << std::endl;
    // This process holds the attacker's sending side too; the victim's part is the bytes held.
    EXPECT_LT(rssGrowth, 3ll * kFloodFrameBytes + (64ll << 20));
}

TEST_F(FarFutureFramesTest, EarlyFramesOfTheNextRoundAreHeldOnlyWithinTheBudget)
{
    runHonestRound(6);
    // Piece-sized frames for the next round: two pieces (for A's range and the one it checks),
    // an average, a verdict, a checker's own average and a ruling per sender are held.
    flood(a, 7, 8, 12'000);
    EXPECT_EQ(maxHeld, 72'000) << "the next round's first six frames are held, no more";
    flood(a, 7, 8); // 32 MiB more
    EXPECT_EQ(maxHeld, 72'000);
    runHonestRound(7);
    EXPECT_EQ(a.allReduce->earlyBytesHeld(), 0);
    EXPECT_TRUE(a.allReduce->outcome().rejectedSenders.contains(attacker.keyId()));
}

// A peer that sat rounds 7 and 8 out (it checked another's work) and trains for round 9 holds
// that round's frames: the window follows the round the coordinator named, not the last one run.
TEST_F(FarFutureFramesTest, APeerThatSatRoundsOutHoldsTheFramesOfTheRoundItRejoins)
{
    runHonestRound(6);
    a.allReduce->expectRound(9);
    flood(a, 9, 1, 12'000);
    EXPECT_EQ(maxHeld, 12'000) << "held, not refused as too far ahead";
    EXPECT_TRUE(a.transport->isConnected(attacker.keyId()));
    flood(a, 11, 1, 12'000);
    EXPECT_FALSE(a.transport->isConnected(attacker.keyId())) << "beyond the window of round 9";
}

TEST_F(FarFutureFramesTest, BeforeItsFirstRoundAPeerHoldsAFixedBudget)
{
    flood(a, 1'000'000, 10); // 40 MiB before A has run any round
    EXPECT_LE(maxHeld, 16ll << 20);
    runHonestRound(6);
    EXPECT_EQ(a.allReduce->earlyBytesHeld(), 0) << "dropped once the round is known";
    EXPECT_TRUE(a.allReduce->outcome().rejectedSenders.contains(attacker.keyId()));
}

// The same attack from swarmtrain-hostile in a real swarm: before each piece it sends every
// owner 64 MiB of frames for a round a million ahead. The honest clients hang up on it, their
// memory stays where it was, the owners report its refused pieces until the coordinator bans
// it, and the swarm's rounds go on without it (two members are enough).
TEST(FarFutureFramesProcessTest, HonestClientsStayBoundedAndTheSwarmGoesOn)
{
    using namespace std::chrono_literals;
    test::application();
    test::TempDir dir;
    dir.write("data.txt", test::generatedText(120'000));
    test::ChildProcess coordinator;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    args.insert(args.end(), {"--min-peers", "2", "--ban-after", "3"});
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    ASSERT_NE(port, 0) << coordinator.errors();
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    test::ChildProcess clients[3];
    for (int i = 0; i < 3; ++i) {
        const bool hostile = i == 2;
        std::vector<std::string> clientArgs = {"--headless", "--swarm", url, "--state-dir",
                                               (dir.path() / ("client" + std::to_string(i))).string(), "--listen",
                                               hostile ? "none" : "127.0.0.1:0", "--threads", "1"};
        if (hostile)
            clientArgs.insert(clientArgs.begin(), {"--misbehave", "far-future-frames"});
        ASSERT_TRUE(clients[i].start(hostile ? SWARMTRAIN_HOSTILE : SWARMTRAIN_CLIENT, clientArgs,
                                     dir.path() / ("client" + std::to_string(i) + ".out"),
                                     dir.path() / ("client" + std::to_string(i) + ".err")));
    }
    const auto logs = [&] {
        std::string all = coordinator.errors();
        for (auto &client : clients)
            all += client.output() + client.errors();
        return all;
    };
    Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(url), {}, 20, 100, 1000});
    const auto round = [&] {
        const Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
        return answer ? answer->value(QLatin1StringView("round")).toInteger() : -1;
    };
    const auto refusedByBoth = [&] {
        return clients[0].errors().find("too far ahead") != std::string::npos
               && clients[1].errors().find("too far ahead") != std::string::npos;
    };
    ASSERT_TRUE(test::waitUntil([&] { return round() >= 2 && refusedByBoth(); }, 600s)) << logs();
    const long long before[2] = {test::residentBytes(clients[0].pid()), test::residentBytes(clients[1].pid())};
    const qint64 attackedAt = round();
    ASSERT_TRUE(test::waitUntil([&] { return round() >= attackedAt + 4; }, 600s)) << logs();
    long long growth = 0;
    for (int i = 0; i < 2; ++i) {
        growth = std::max(growth, test::residentBytes(clients[i].pid()) - before[i]);
        EXPECT_TRUE(clients[i].running()) << logs();
    }
    const Identity attacker = Identity::loadOrCreate(dir.path() / "client2" / "identity.pem").value();
    const bool banned = coordinator.errors().find("banned " + attacker.keyId().toStdString()) != std::string::npos;
    std::cout << "ATTACK far-future-frames(process) detected=yes banned_after=" << (banned ? "3-offences" : "never")
              << " rss_growth_mib=" << double(growth) / double(1 << 20) << std::endl;
    EXPECT_TRUE(banned) << "each round two owners report its refused pieces\n" << logs();
    EXPECT_LT(growth, 64ll << 20);
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(clients[i].kill(SIGINT), 0) << logs();
}
