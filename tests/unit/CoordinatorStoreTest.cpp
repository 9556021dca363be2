#include "OlderCoordinatorDatabase.h"
#include "SqlCoordinatorStore.h"
#include "StoreBackends.h"
#include "TempDir.h"

#include <QSqlDatabase>
#include <QSqlQuery>

#include <gtest/gtest.h>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

PeerRecord samplePeer(const QString &keyId, qint64 ordinal)
{
    PeerRecord peer;
    peer.keyId = keyId;
    peer.publicKey = QByteArray(32, char(ordinal + 1));
    peer.deviceJson = R"({"gpu":"RTX 4090","vram":25769803776})";
    peer.endpoint = QStringLiteral("10.0.0.%1:7000").arg(ordinal + 1);
    peer.reachable = ordinal % 2 == 0;
    peer.clientVersion = QStringLiteral("0.1.0");
    peer.ordinal = ordinal;
    peer.assignedShards = {QStringLiteral("000000"), QStringLiteral("000008")};
    peer.joinedMs = 1000 + ordinal;
    peer.lastSeenMs = 2000 + ordinal;
    return peer;
}

ContributionRecord sampleContribution(const QString &keyId, const QString &hash, qint64 tokens)
{
    ContributionRecord c;
    c.round = 0;
    c.keyId = keyId;
    c.tokens = tokens;
    c.flops = 1e12;
    c.seconds = 30;
    c.loss = 2.5;
    c.paramsHash = hash;
    c.bytesUp = 100;
    c.bytesDown = 200;
    c.receivedMs = 5000;
    return c;
}

// Every store: SQLite and PostgreSQL.
class CoordinatorStoreTest : public test::StoreBackendTest {};
SWARMTRAIN_ON_EVERY_STORE(CoordinatorStoreTest);

// What only the SQLite file can have: its schema's history, damage on disk.
class SqliteStoreTest : public ::testing::Test {
protected:
    std::unique_ptr<SqlCoordinatorStore> open()
    {
        Result<std::unique_ptr<SqlCoordinatorStore>> store = SqlCoordinatorStore::openSqlite(dir.path() / "c.db");
        EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
        return store ? std::move(store).value() : nullptr;
    }

    TempDir dir;
};

} // namespace

TEST_P(CoordinatorStoreTest, PeerRoundTripsAndSurvivesReopen)
{
    {
        auto store = open();
        PeerRecord named = samplePeer(QStringLiteral("aa"), 0);
        named.displayName = QStringLiteral("<b>Ada</b> ë");
        ASSERT_TRUE(store->savePeer(named).ok());
        ASSERT_TRUE(store->savePeer(samplePeer(QStringLiteral("bb"), 1)).ok());
        ASSERT_TRUE(store->recordHeartbeat(QStringLiteral("bb"), QStringLiteral("paused"), QStringLiteral("on battery"),
                                           123.5, 4, 37, 9000)
                        .ok());
        ASSERT_TRUE(store->countRejectedRequest(QStringLiteral("bb")).ok());
        ASSERT_TRUE(store->setMeta(QStringLiteral("swarm"), QStringLiteral("{}")).ok());
    }
    auto store = open();
    Result<std::vector<PeerRecord>> peers = store->peers();
    ASSERT_TRUE(peers.ok());
    ASSERT_EQ(peers->size(), 2u);
    const PeerRecord &a = peers->at(0);
    const PeerRecord expected = samplePeer(QStringLiteral("aa"), 0);
    EXPECT_EQ(a.keyId, expected.keyId);
    EXPECT_EQ(a.publicKey, expected.publicKey);
    EXPECT_EQ(a.deviceJson, expected.deviceJson);
    EXPECT_EQ(a.endpoint, expected.endpoint);
    EXPECT_TRUE(a.reachable);
    EXPECT_EQ(a.assignedShards, expected.assignedShards);
    EXPECT_EQ(a.joinedMs, 1000);
    EXPECT_EQ(a.displayName, QStringLiteral("<b>Ada</b> ë")) << "stored as text";
    const PeerRecord &b = peers->at(1);
    EXPECT_EQ(b.state, QStringLiteral("paused"));
    EXPECT_EQ(b.pauseReason, QStringLiteral("on battery"));
    EXPECT_DOUBLE_EQ(b.tokensPerSecond, 123.5);
    EXPECT_EQ(b.baseRound, 4);
    EXPECT_EQ(b.innerSteps, 37);
    EXPECT_EQ(b.lastSeenMs, 9000);
    EXPECT_EQ(b.rejectedRequests, 1);
    EXPECT_EQ(store->meta(QStringLiteral("swarm"))->value_or(QString()), QStringLiteral("{}"));
    EXPECT_FALSE(store->meta(QStringLiteral("missing"))->has_value());
    EXPECT_FALSE(store->peer(QStringLiteral("cc"))->has_value());
}

// A done round spends the readiness of its members: only a "ready" on an older state becomes
// "training" on the new one, with no steps; a newer claim or another state stays as it was.
TEST_P(CoordinatorStoreTest, SpendingReadinessTouchesOnlyAReadyOnAnOlderState)
{
    auto store = open();
    const auto beat = [&](const char *keyId, qint64 ordinal, const char *state, qint64 base) {
        ASSERT_TRUE(store->savePeer(samplePeer(QString::fromLatin1(keyId), ordinal)).ok());
        ASSERT_TRUE(store->recordHeartbeat(QString::fromLatin1(keyId), QString::fromLatin1(state), {}, 10.0, base, 40, 9000)
                        .ok());
    };
    beat("spent", 0, "ready", 2);
    beat("ahead", 1, "ready", 3);
    beat("paused", 2, "paused", 2);
    for (const char *keyId : {"spent", "ahead", "paused"})
        ASSERT_TRUE(store->spendReadiness(QString::fromLatin1(keyId), 3).ok());
    const PeerRecord spent = store->peer(QStringLiteral("spent"))->value();
    EXPECT_EQ(spent.state, QStringLiteral("training"));
    EXPECT_EQ(spent.baseRound, 3);
    EXPECT_EQ(spent.innerSteps, 0);
    EXPECT_EQ(spent.lastSeenMs, 9000) << "not a heartbeat";
    const PeerRecord ahead = store->peer(QStringLiteral("ahead"))->value();
    EXPECT_EQ(ahead.state, QStringLiteral("ready"));
    EXPECT_EQ(ahead.innerSteps, 40);
    EXPECT_EQ(store->peer(QStringLiteral("paused"))->value().state, QStringLiteral("paused"));
}

TEST_P(CoordinatorStoreTest, RoundAndMembersRoundTrip)
{
    auto store = open();
    EXPECT_FALSE(store->currentRound()->has_value());
    RoundRecord round;
    round.number = 3;
    round.attempt = 1;
    round.state = RoundState::Running;
    round.startedMs = 10;
    round.deadlineMs = 20;
    round.members = {{QStringLiteral("aa"), true, 0, 50}, {QStringLiteral("bb"), false, 0, 0}};
    round.checkSeed = 0xfedc'ba98'7654'3210ULL; // all 64 bits, the top one too
    ASSERT_TRUE(store->saveRound(round).ok());
    Result<std::optional<RoundRecord>> loaded = store->currentRound();
    ASSERT_TRUE(loaded.ok() && loaded->has_value());
    const RoundRecord &r = **loaded;
    EXPECT_EQ(r.number, 3);
    EXPECT_EQ(r.attempt, 1);
    EXPECT_EQ(r.state, RoundState::Running);
    EXPECT_EQ(r.deadlineMs, 20);
    ASSERT_EQ(r.members.size(), 2u);
    EXPECT_EQ(r.members[0].keyId, QStringLiteral("aa"));
    EXPECT_EQ(r.members[0].end, 50);
    EXPECT_FALSE(r.members[1].reachable);
    EXPECT_FALSE(r.validationLoss.has_value());
    EXPECT_EQ(r.checkSeed, 0xfedc'ba98'7654'3210ULL);
    round = r;
    round.checkSeed = 1;
    ASSERT_TRUE(store->saveRound(round).ok());
    EXPECT_EQ(store->round(3)->value().checkSeed, 1u) << "a new attempt's seed replaces the one before";
}

TEST_P(CoordinatorStoreTest, DuplicateContributionIsRefused)
{
    auto store = open();
    const ContributionRecord c = sampleContribution(QStringLiteral("aa"), QString(64, QLatin1Char('a')), 1000);
    ASSERT_TRUE(store->addContribution(c).ok());
    EXPECT_FALSE(store->addContribution(c).ok());
    Result<std::vector<ContributionRecord>> list = store->contributions(0, 0);
    ASSERT_TRUE(list.ok());
    ASSERT_EQ(list->size(), 1u);
    EXPECT_FALSE(list->front().accepted.has_value());
    EXPECT_EQ(list->front().bytesDown, 200);
}

TEST_P(CoordinatorStoreTest, CloseRoundCreditsAcceptedPeersInOneTransaction)
{
    auto store = open();
    ASSERT_TRUE(store->savePeer(samplePeer(QStringLiteral("aa"), 0)).ok());
    ASSERT_TRUE(store->savePeer(samplePeer(QStringLiteral("bb"), 1)).ok());
    ContributionRecord good = sampleContribution(QStringLiteral("aa"), QString(64, QLatin1Char('a')), 4000);
    ContributionRecord bad = sampleContribution(QStringLiteral("bb"), QString(64, QLatin1Char('b')), 9000);
    ASSERT_TRUE(store->addContribution(good).ok());
    ASSERT_TRUE(store->addContribution(bad).ok());
    good.accepted = true;
    good.credit = 4.0;
    bad.accepted = false;
    RoundRecord closed;
    closed.state = RoundState::Done;
    closed.agreedHash = good.paramsHash;
    RoundRecord next;
    next.number = 1;
    ASSERT_TRUE(store->closeRound(closed, {good, bad}, next).ok());

    EXPECT_EQ(store->currentRound()->value().number, 1);
    EXPECT_EQ(store->round(0)->value().agreedHash, good.paramsHash);
    Result<std::vector<PeerRecord>> board = store->leaderboard(20);
    ASSERT_TRUE(board.ok());
    EXPECT_EQ(board->front().keyId, QStringLiteral("aa"));
    EXPECT_DOUBLE_EQ(board->front().credit, 4.0);
    EXPECT_EQ(board->front().tokens, 4000);
    EXPECT_DOUBLE_EQ(board->back().credit, 0.0);
    EXPECT_EQ(store->lastContribution(QStringLiteral("bb"))->value().accepted, std::optional<bool>(false));
}

TEST_P(CoordinatorStoreTest, ValidationLossGoesToCheckpointAndProducingRound)
{
    auto store = open();
    RoundRecord round;
    round.state = RoundState::Done;
    ASSERT_TRUE(store->saveRound(round).ok());
    ASSERT_TRUE(store->addCheckpoint({1, QStringLiteral("round-1.safetensors"), QString(64, QLatin1Char('c')), 77,
                                      QString(64, QLatin1Char('d')), std::nullopt})
                    .ok());
    ASSERT_TRUE(store->setValidationLoss(1, 2.25).ok());
    EXPECT_EQ(store->latestCheckpoint()->value().validationLoss, std::optional<double>(2.25));
    EXPECT_EQ(store->round(0)->value().validationLoss, std::optional<double>(2.25));
}

TEST_F(SqliteStoreTest, NewerSchemaIsAnError)
{
    {
        auto store = open();
    }
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("bump"));
        db.setDatabaseName(QString::fromStdString((dir.path() / "c.db").string()));
        ASSERT_TRUE(db.open());
        QSqlQuery(db).exec(QStringLiteral("PRAGMA user_version = 99"));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bump"));
    Result<std::unique_ptr<SqlCoordinatorStore>> store = SqlCoordinatorStore::openSqlite(dir.path() / "c.db");
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("newer"), std::string::npos);
}

TEST_F(SqliteStoreTest, DamagedDatabaseIsAnError)
{
    dir.write("c.db", std::string(4096, 'x'));
    Result<std::unique_ptr<SqlCoordinatorStore>> store = SqlCoordinatorStore::openSqlite(dir.path() / "c.db");
    EXPECT_FALSE(store.ok());
}

TEST_P(CoordinatorStoreTest, LinksAreReplacedPerDirectionAndOldOnesForgotten)
{
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->recordLinks({{QStringLiteral("a"), QStringLiteral("b"), 12.0, 1e6, 1000},
                                    {QStringLiteral("b"), QStringLiteral("a"), 14.0, 2e6, 1000}},
                                   0)
                    .ok());
    ASSERT_TRUE(store->recordLinks({{QStringLiteral("a"), QStringLiteral("b"), 20.0, 3e6, 5000}}, 2000).ok());
    const Result<std::vector<LinkRecord>> links = store->links(0);
    ASSERT_TRUE(links.ok()) << links.error().message;
    ASSERT_EQ(links->size(), 1u) << "b -> a was measured before the cut-off";
    EXPECT_EQ(links->front().fromKeyId, QStringLiteral("a"));
    EXPECT_DOUBLE_EQ(links->front().rttMs, 20.0) << "the newer a -> b replaced the older";
    EXPECT_TRUE(store->links(6000)->empty());
}

// Two owners per range (issue 16): the coordinator judges disputes over the last rounds.
TEST_P(CoordinatorStoreTest, DisputesAreReadByRoundWindowAndSurviveReopen)
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c");
    const QString disputed = QStringLiteral("disputed");
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->addUpdateReports({{2, 0, a, b, disputed}, {2, 1, a, c, disputed}, {5, 0, b, a, disputed},
                                             {5, 0, b, a, disputed}, {5, 0, c, a, QStringLiteral("refused")},
                                             {12, 0, c, b, disputed}})
                        .ok());
    }
    auto store = open();
    ASSERT_TRUE(store);
    const Result<std::vector<UpdateReportRecord>> window = store->disputes(3, 12);
    ASSERT_TRUE(window.ok()) << window.error().message;
    ASSERT_EQ(window->size(), 2u) << "round 2 is before the window, a refusal is no dispute, a repeat is kept once";
    EXPECT_EQ(window->at(0).round, 5);
    EXPECT_EQ(window->at(0).reporterKeyId, b);
    EXPECT_EQ(window->at(0).senderKeyId, a);
    EXPECT_EQ(window->at(1).round, 12);
    const Result<std::vector<UpdateReportRecord>> early = store->disputes(0, 4);
    ASSERT_TRUE(early.ok());
    ASSERT_EQ(early->size(), 2u) << "both attempts of round 2";
    EXPECT_EQ(early->at(1).attempt, 1);
}

// The coordinator's rulings on owners' evidence (issue 43) keep the hash of the average they
// ruled on, and are read by round window apart from the disputes.
TEST_P(CoordinatorStoreTest, EvidenceRulingsKeepTheAverageTheyRuledOn)
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b");
    const QString h1(64, QLatin1Char('1')), h2(64, QLatin1Char('2'));
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->addUpdateReports({{4, 0, a, a, QStringLiteral("evidence_upheld"), h1},
                                             {4, 0, b, a, QStringLiteral("disputed")},
                                             {6, 1, b, b, QStringLiteral("evidence_refuted"), h2},
                                             {9, 0, a, a, QStringLiteral("evidence_upheld"), h2}})
                        .ok());
    }
    auto store = open();
    ASSERT_TRUE(store);
    const Result<std::vector<UpdateReportRecord>> rulings = store->evidenceRulings(3, 8);
    ASSERT_TRUE(rulings.ok()) << rulings.error().message;
    ASSERT_EQ(rulings->size(), 2u) << "no dispute, nothing after round 8";
    EXPECT_EQ(rulings->at(0).kind, QStringLiteral("evidence_upheld"));
    EXPECT_EQ(rulings->at(0).detail, h1);
    EXPECT_EQ(rulings->at(1).attempt, 1);
    EXPECT_EQ(rulings->at(1).detail, h2);
    EXPECT_EQ(store->disputes(3, 8)->size(), 1u);
    EXPECT_EQ(store->disputes(3, 8)->front().detail, QString()) << "a dispute has no detail";
}

TEST_P(CoordinatorStoreTest, AverageReportsAreKeptAllOrNoneByRoundAndAttempt)
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b");
    const QString h1(64, QLatin1Char('1')), h2(64, QLatin1Char('2'));
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->addAverageReports({{3, 0, a, 0, h1}, {3, 0, a, 500, h2}}).ok());
        ASSERT_TRUE(store->addAverageReports({{3, 1, b, 0, h2}}).ok());
        // A second report of a's for the same round and attempt: refused, and nothing of it kept.
        EXPECT_FALSE(store->addAverageReports({{3, 0, a, 900, h1}, {3, 0, a, 0, h2}}).ok());
    }
    auto store = open();
    ASSERT_TRUE(store);
    const Result<std::vector<AverageReportRecord>> reports = store->averageReports(3, 0);
    ASSERT_TRUE(reports.ok()) << reports.error().message;
    ASSERT_EQ(reports->size(), 2u);
    EXPECT_EQ(reports->at(0).keyId, a);
    EXPECT_EQ(reports->at(0).begin, 0);
    EXPECT_EQ(reports->at(0).sha256, h1);
    EXPECT_EQ(reports->at(1).begin, 500);
    EXPECT_EQ(reports->at(1).sha256, h2);
    ASSERT_EQ(store->averageReports(3, 1)->size(), 1u);
    EXPECT_TRUE(store->averageReports(4, 0)->empty());
}

TEST_F(SqliteStoreTest, AVersionOneDatabaseIsUpgradedKeepingWhatItHeld)
{
    {
        auto store = open();
        ASSERT_TRUE(store && store->savePeer(samplePeer(QStringLiteral("a"), 0)).ok());
    }
    {
        // What the first coordinator left: the same tables but links, trust and verification, and
        // version 1.
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("downgrade"));
        db.setDatabaseName(QString::fromStdString((dir.path() / "c.db").string()));
        ASSERT_TRUE(db.open());
        QSqlQuery query(db);
        ASSERT_NO_FATAL_FAILURE(test::undoSchemaVersion13(query));
        ASSERT_NO_FATAL_FAILURE(test::undoSchemaVersion11(query));
        ASSERT_NO_FATAL_FAILURE(test::undoSchemaVersion10(query));
        ASSERT_TRUE(query.exec(QStringLiteral("DROP TABLE links")));
        ASSERT_TRUE(query.exec(QStringLiteral("DROP TABLE offences")));
        for (const char *table : {"commitments", "update_reports", "spot_checks", "average_reports"})
            ASSERT_TRUE(query.exec(QStringLiteral("DROP TABLE %1").arg(QLatin1StringView(table))));
        for (const char *column : {"address", "offences", "banned_reason", "accepted_rounds", "verified_rounds",
                                   "quarantined", "inner_steps", "display_name"})
            ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE peers DROP COLUMN %1").arg(QLatin1StringView(column))));
        ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE rounds DROP COLUMN share")));
        ASSERT_TRUE(query.exec(QStringLiteral("ALTER TABLE rounds DROP COLUMN schedule_advance")));
        ASSERT_TRUE(query.exec(QStringLiteral("PRAGMA user_version = 1")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("downgrade"));
    {
        auto store = open();
        ASSERT_TRUE(store);
        EXPECT_TRUE(store->peer(QStringLiteral("a"))->has_value()) << "the upgrade keeps what was there";
        EXPECT_TRUE(store->recordLinks({{QStringLiteral("a"), QStringLiteral("b"), 1.0, 1e9, 10}}, 0).ok());
        EXPECT_EQ(store->links(0)->size(), 1u);
        // A quarantine outlives saves of the peer (every heartbeat saves it) and ends with an agreed check.
        ASSERT_TRUE(store->quarantinePeer(QStringLiteral("a")).ok());
        PeerRecord a = store->peer(QStringLiteral("a"))->value();
        ASSERT_TRUE(a.quarantined);
        a.lastSeenMs += 1000;
        ASSERT_TRUE(store->savePeer(a).ok());
        EXPECT_TRUE(store->peer(QStringLiteral("a"))->value().quarantined);
        ASSERT_TRUE(store->countVerifiedRound(QStringLiteral("a")).ok());
        EXPECT_FALSE(store->peer(QStringLiteral("a"))->value().quarantined);
        EXPECT_EQ(store->peer(QStringLiteral("a"))->value().verifiedRounds, 1);
        // An asynchronous round's share of the swarm's work (version 8) is kept with the round.
        RoundRecord round;
        round.number = 3;
        round.share = 0.25;
        round.scheduleAdvance = 37;
        ASSERT_TRUE(store->saveRound(round).ok());
        EXPECT_DOUBLE_EQ(store->round(3)->value().share, 0.25);
        EXPECT_EQ(store->round(3)->value().scheduleAdvance, 37);
        // A display name (version 9): none for a peer stored before, kept once a join gives one.
        EXPECT_EQ(store->peer(QStringLiteral("a"))->value().displayName, QString());
        a = store->peer(QStringLiteral("a"))->value();
        a.displayName = QStringLiteral("Ada");
        ASSERT_TRUE(store->savePeer(a).ok());
        EXPECT_EQ(store->peer(QStringLiteral("a"))->value().displayName, QStringLiteral("Ada"));
        EXPECT_EQ(store->leaderboard(20)->at(0).displayName, QStringLiteral("Ada"));
    }
}

// A join counts the peers online near its address without reading every peer (issue 20).
TEST_P(CoordinatorStoreTest, OnlinePeersNearAnAddressAreCountedByAddressAndSubnet)
{
    auto store = open();
    ASSERT_TRUE(store);
    EXPECT_EQ(*store->nextOrdinal(), 0);
    const auto savePeerAt = [&](const char *keyId, qint64 ordinal, const char *address, qint64 lastSeenMs) {
        PeerRecord peer = samplePeer(QString::fromLatin1(keyId), ordinal);
        peer.address = QString::fromLatin1(address);
        peer.lastSeenMs = lastSeenMs;
        ASSERT_TRUE(store->savePeer(peer).ok());
    };
    savePeerAt("same-1", 0, "198.51.100.9", 5000);
    savePeerAt("same-2", 7, "198.51.100.9", 6000);
    savePeerAt("subnet", 3, "198.51.100.200", 5000);
    savePeerAt("stale", 4, "198.51.100.9", 4999);   // offline at 5000
    savePeerAt("elsewhere", 5, "198.51.101.9", 9000);
    savePeerAt("v6", 6, "2001:db8:1:2::5", 5000);
    savePeerAt("banned", 2, "198.51.100.9", 9000);
    ASSERT_TRUE(store->banPeer(QStringLiteral("banned"), QStringLiteral("lied")).ok());
    EXPECT_EQ(*store->nextOrdinal(), 8);

    NearbyPeers near = *store->onlinePeersNear(QStringLiteral("198.51.100.9"), 5000, QString(), 100);
    EXPECT_EQ(near.sameAddress, 2);
    EXPECT_EQ(near.sameSubnet, 3);
    near = *store->onlinePeersNear(QStringLiteral("::ffff:198.51.100.9"), 5000, QStringLiteral("same-1"), 100);
    EXPECT_EQ(near.sameAddress, 1) << "the joining peer itself is not counted; a mapped address is IPv4";
    EXPECT_EQ(near.sameSubnet, 2);
    near = *store->onlinePeersNear(QStringLiteral("2001:db8:1:2:ffff::1"), 0, QString(), 100);
    EXPECT_EQ(near.sameAddress, 0);
    EXPECT_EQ(near.sameSubnet, 1);
    near = *store->onlinePeersNear(QStringLiteral("not an address"), 0, QString(), 100);
    EXPECT_EQ(near.sameAddress + near.sameSubnet, 0);
    // Counting stops at the limit it is checked against: a swarm of one address reads no more.
    near = *store->onlinePeersNear(QStringLiteral("198.51.100.9"), 5000, QString(), 1);
    EXPECT_EQ(near.sameAddress, 1);
    EXPECT_EQ(near.sameSubnet, 1);
}

// Peers stored before version 10 have no subnet column; opening fills it from their address.
TEST_F(SqliteStoreTest, AVersionNineDatabaseGetsItsPeersSubnets)
{
    {
        auto store = open();
        ASSERT_TRUE(store);
        PeerRecord peer = samplePeer(QStringLiteral("a"), 0);
        peer.address = QStringLiteral("203.0.113.7");
        ASSERT_TRUE(store->savePeer(peer).ok());
    }
    ASSERT_NO_FATAL_FAILURE(test::makeVersion9(dir.path() / "c.db"));
    auto store = open();
    ASSERT_TRUE(store);
    const NearbyPeers near = *store->onlinePeersNear(QStringLiteral("203.0.113.99"), 0, QString(), 100);
    EXPECT_EQ(near.sameSubnet, 1);
    EXPECT_EQ(near.sameAddress, 0);
}
