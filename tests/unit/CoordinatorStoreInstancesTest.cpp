// Several coordinator instances on one database (issue 20): what the store guarantees when two of
// them act at once, on SQLite (two connections to one file) and on a real PostgreSQL server.
#include "StoreBackends.h"

#include <QSqlDatabase>
#include <QSqlQuery>

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

class StoreInstancesTest : public test::StoreBackendTest {};
SWARMTRAIN_ON_EVERY_STORE(StoreInstancesTest);

// PostgreSQL alone: its schema's versions, its server going away.
class PostgresStoreTest : public test::StoreBackendTest {};
INSTANTIATE_TEST_SUITE_P(, PostgresStoreTest, ::testing::Values(test::StoreBackend::Postgres), test::storeBackendName);

ContributionRecord report(const QString &keyId, qint64 tokens)
{
    ContributionRecord c;
    c.keyId = keyId;
    c.tokens = tokens;
    c.paramsHash = QString(64, QLatin1Char('a'));
    c.receivedMs = 5000;
    return c;
}

PeerRecord peerNamed(const QString &keyId, qint64 ordinal)
{
    PeerRecord peer;
    peer.keyId = keyId;
    peer.publicKey = QByteArray(32, char(ordinal + 1));
    peer.ordinal = ordinal;
    peer.address = QStringLiteral("192.0.2.%1").arg(ordinal + 1);
    return peer;
}

} // namespace

TEST_P(StoreInstancesTest, OfTwoInstancesClosingOneRoundOnlyTheFirstDoesAndCreditIsGivenOnce)
{
    auto first = open();
    auto second = open();
    ASSERT_TRUE(first && second);
    ASSERT_TRUE(first->savePeer(peerNamed(QStringLiteral("a"), 0)).ok());
    RoundRecord running;
    running.state = RoundState::Running;
    running.members = {{QStringLiteral("a"), true, 0, 10}};
    ASSERT_TRUE(first->saveRound(running).ok());
    ASSERT_TRUE(first->addContribution(report(QStringLiteral("a"), 400)).ok());

    // Both read the running round, both decide to close it.
    const RoundRecord readByFirst = first->currentRound()->value();
    const RoundRecord readBySecond = second->currentRound()->value();
    ASSERT_EQ(readByFirst.revision, readBySecond.revision);
    ContributionRecord verdict = report(QStringLiteral("a"), 400);
    verdict.accepted = true;
    verdict.credit = 0.4;
    const auto close = [&](SqlCoordinatorStore &store, RoundRecord round, const QString &uploader) {
        round.state = RoundState::Done;
        round.uploaderKeyId = uploader;
        RoundRecord next;
        next.number = 1;
        return store.closeRound(round, {verdict}, next);
    };
    ASSERT_TRUE(close(*first, readByFirst, QStringLiteral("a")).ok());
    const Result<void> late = close(*second, readBySecond, QStringLiteral("someone else"));
    ASSERT_FALSE(late.ok());
    EXPECT_TRUE(lostRace(late.error())) << late.error().message;

    const RoundRecord closed = second->round(0)->value();
    EXPECT_EQ(closed.uploaderKeyId, QStringLiteral("a")) << "the second close changed nothing";
    EXPECT_EQ(closed.revision, readByFirst.revision + 1);
    EXPECT_DOUBLE_EQ(second->peer(QStringLiteral("a"))->value().credit, 0.4) << "credited once";
    EXPECT_EQ(second->peer(QStringLiteral("a"))->value().acceptedRounds, 1);
    EXPECT_EQ(second->currentRound()->value().number, 1);
    // Two instances making the same new round: the second's is refused as a lost race too.
    RoundRecord again;
    again.number = 1;
    const Result<void> made = second->saveRound(again);
    ASSERT_FALSE(made.ok());
    EXPECT_TRUE(lostRace(made.error()));
}

// A pipeline step's credit (issue 43) is given once, whichever instance finishes the step, and
// never to a banned peer.
TEST_P(StoreInstancesTest, APipelineStepIsCreditedOnceAcrossInstances)
{
    auto first = open();
    auto second = open();
    ASSERT_TRUE(first && second);
    ASSERT_TRUE(first->savePeer(peerNamed(QStringLiteral("a"), 0)).ok());
    ASSERT_TRUE(first->savePeer(peerNamed(QStringLiteral("b"), 1)).ok());
    ASSERT_TRUE(first->banPeer(QStringLiteral("b"), QStringLiteral("wrong stage answers")).ok());
    const std::vector<StepCredit> credits{{QStringLiteral("a"), 0.5, 512}, {QStringLiteral("b"), 0.25, 256}};
    ASSERT_TRUE(first->creditPipelineStep(3, credits).ok());
    ASSERT_TRUE(second->creditPipelineStep(3, credits).ok()); // a new leader finishing the step again
    ASSERT_TRUE(second->creditPipelineStep(2, credits).ok()); // an older step
    EXPECT_DOUBLE_EQ(second->peer(QStringLiteral("a"))->value().credit, 0.5);
    EXPECT_EQ(second->peer(QStringLiteral("a"))->value().tokens, 512);
    EXPECT_DOUBLE_EQ(second->peer(QStringLiteral("b"))->value().credit, 0.0) << "banned: nothing";
    ASSERT_TRUE(second->creditPipelineStep(4, credits).ok());
    EXPECT_DOUBLE_EQ(first->peer(QStringLiteral("a"))->value().credit, 1.0);
}

TEST_P(StoreInstancesTest, TheLeaseHasOneHolderUntilItExpires)
{
    auto a = open();
    auto b = open();
    ASSERT_TRUE(a && b);
    const QString lease = QStringLiteral("timed-work");
    EXPECT_TRUE(*a->takeLease(lease, QStringLiteral("instance-a"), 1000, 4000));
    EXPECT_FALSE(*b->takeLease(lease, QStringLiteral("instance-b"), 2000, 5000)) << "held until 4000";
    EXPECT_TRUE(*a->takeLease(lease, QStringLiteral("instance-a"), 3000, 6000)) << "the holder renews it";
    EXPECT_FALSE(*b->takeLease(lease, QStringLiteral("instance-b"), 5999, 9000));
    EXPECT_TRUE(*b->takeLease(lease, QStringLiteral("instance-b"), 6001, 9000)) << "expired: taken over";
    EXPECT_FALSE(*a->takeLease(lease, QStringLiteral("instance-a"), 6002, 9000)) << "the old holder lost it";
    EXPECT_TRUE(*a->takeLease(QStringLiteral("other"), QStringLiteral("instance-a"), 6002, 9000)) << "leases are by name";
    // Handed back (a clean shutdown): free at once, not when it would have run out.
    EXPECT_TRUE(*b->takeLease(lease, QStringLiteral("instance-b"), 6003, 0));
    EXPECT_TRUE(*a->takeLease(lease, QStringLiteral("instance-a"), 6004, 9000));
}

// The leader reads the current round from the database only after it wrote one, and only while
// no other instance may write rounds.
TEST_P(StoreInstancesTest, TheSoleRoundWriterAnswersFromTheRoundItLastReadUntilOthersMayWrite)
{
    auto leader = open();
    auto other = open();
    ASSERT_TRUE(leader && other);
    ASSERT_TRUE(leader->saveRound(RoundRecord()).ok());
    leader->setSoleRoundWriterUntil(std::chrono::steady_clock::now() + std::chrono::hours(1));
    RoundRecord round = leader->knownCurrentRound()->value();
    EXPECT_EQ(round.state, RoundState::Gathering);

    round.state = RoundState::Running;
    ASSERT_TRUE(leader->saveRound(round).ok());
    round = leader->knownCurrentRound()->value();
    EXPECT_EQ(round.state, RoundState::Running) << "its own write is read back";
    ASSERT_TRUE(leader->setValidationLoss(round.number + 1, 1.5).ok()); // of the state this round makes
    EXPECT_EQ(leader->knownCurrentRound()->value().validationLoss, std::optional<double>(1.5));

    // A write it could not see (an instance that should not write rounds now).
    RoundRecord done = other->currentRound()->value();
    done.state = RoundState::Done;
    ASSERT_TRUE(other->saveRound(done).ok());
    EXPECT_EQ(leader->knownCurrentRound()->value().state, RoundState::Running) << "no query while it writes alone";
    EXPECT_EQ(leader->currentRound()->value().state, RoundState::Done) << "currentRound always reads";

    leader->setSoleRoundWriterUntil(std::chrono::steady_clock::time_point());
    EXPECT_EQ(leader->knownCurrentRound()->value().state, RoundState::Done) << "a follower reads every time";
    // And a write that finds the round changed meanwhile forgets what it knew.
    leader->setSoleRoundWriterUntil(std::chrono::steady_clock::now() + std::chrono::hours(1));
    RoundRecord stale = leader->knownCurrentRound()->value();
    ASSERT_TRUE(other->saveRound(stale).ok());
    EXPECT_FALSE(leader->saveRound(stale).ok()) << "changed meanwhile";
    EXPECT_EQ(leader->knownCurrentRound()->value().revision, stale.revision + 1);
}

TEST_P(StoreInstancesTest, ARequestSeenByOneInstanceIsAReplayAtAnother)
{
    auto a = open();
    auto b = open();
    ASSERT_TRUE(a && b);
    const QString signature = QString(128, QLatin1Char('5'));
    EXPECT_TRUE(*a->recordRequest(signature, 100'000, 40'000));
    EXPECT_FALSE(*b->recordRequest(signature, 100'000, 40'000));
    EXPECT_FALSE(*a->recordRequest(signature, 100'000, 40'000));
    EXPECT_TRUE(*b->recordRequest(QString(128, QLatin1Char('6')), 100'001, 40'000));
    // Long after, the old ones are forgotten (they would be refused as stale before this check).
    EXPECT_TRUE(*b->recordRequest(QString(128, QLatin1Char('7')), 300'000, 200'000));
    EXPECT_TRUE(*a->recordRequest(signature, 300'000, 200'000));
}

TEST_P(StoreInstancesTest, ARateLimitHoldsAcrossInstances)
{
    auto a = open();
    auto b = open();
    ASSERT_TRUE(a && b);
    const QString key = QStringLiteral("key:abc");
    // Bursts of 3, one a second: three requests at 0 between both instances, then a wait.
    EXPECT_EQ(*a->takeToken(key, 1.0, 3.0, 10'000), 0);
    EXPECT_EQ(*b->takeToken(key, 1.0, 3.0, 10'000), 0);
    EXPECT_EQ(*a->takeToken(key, 1.0, 3.0, 10'000), 0);
    EXPECT_EQ(*b->takeToken(key, 1.0, 3.0, 10'000), 1000) << "the fourth waits for a token";
    EXPECT_EQ(*a->takeToken(key, 1.0, 3.0, 10'400), 600) << "a refused request takes nothing";
    EXPECT_EQ(*a->takeToken(key, 1.0, 3.0, 11'000), 0);
    EXPECT_EQ(*b->takeToken(key, 1.0, 3.0, 11'000), 1000);
    EXPECT_EQ(*b->takeToken(QStringLiteral("key:other"), 1.0, 3.0, 11'000), 0) << "buckets are by key";
    // An instance whose clock is behind does not give tokens back.
    EXPECT_EQ(*b->takeToken(key, 1.0, 3.0, 9'000), 1000);
    // Full again after a long pause, never beyond the burst.
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(*a->takeToken(key, 1.0, 3.0, 100'000), 0) << i;
    EXPECT_GT(*b->takeToken(key, 1.0, 3.0, 100'000), 0);
}

TEST_P(PostgresStoreTest, AVersionOneDatabaseIsUpgradedKeepingWhatItHeld)
{
    {
        auto store = open(1);
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->savePeer(peerNamed(QStringLiteral("a"), 0)).ok());
        ASSERT_TRUE(store->setMeta(QStringLiteral("swarm"), QStringLiteral("{\"n_layer\":1}")).ok());
        EXPECT_FALSE(store->takeLease(QStringLiteral("x"), QStringLiteral("y"), 0, 1).ok()) << "no leases in version 1";
    }
    auto store = open();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->peer(QStringLiteral("a"))->value().address, QStringLiteral("192.0.2.1"));
    EXPECT_EQ(store->meta(QStringLiteral("swarm"))->value(), QStringLiteral("{\"n_layer\":1}"));
    EXPECT_TRUE(*store->takeLease(QStringLiteral("x"), QStringLiteral("y"), 0, 1));
    RoundRecord round;
    ASSERT_TRUE(store->saveRound(round).ok());
    EXPECT_EQ(store->currentRound()->value().revision, 1);
}

TEST_P(PostgresStoreTest, ADatabaseOfANewerCoordinatorIsRefusedUntouched)
{
    ASSERT_TRUE(open());
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("bump"));
        db.setHostName(QStringLiteral("127.0.0.1"));
        db.setPort(postgres->port());
        db.setUserName(QStringLiteral("postgres"));
        db.setDatabaseName(QStringLiteral("swarmtrain"));
        ASSERT_TRUE(db.open());
        ASSERT_TRUE(QSqlQuery(db).exec(QStringLiteral("UPDATE schema_version SET version = 99")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bump"));
    Result<std::unique_ptr<SqlCoordinatorStore>> store =
        SqlCoordinatorStore::openPostgres(QString::fromStdString(postgres->url()));
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("newer"), std::string::npos) << store.error().message;
}

TEST_P(PostgresStoreTest, TheStoreConnectsAgainAfterTheServerRestarts)
{
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->savePeer(peerNamed(QStringLiteral("a"), 0)).ok());
    ASSERT_TRUE(postgres->restart()) << postgres->error();
    const Result<std::optional<PeerRecord>> peer = store->peer(QStringLiteral("a"));
    ASSERT_TRUE(peer.ok()) << peer.error().message;
    EXPECT_TRUE(peer->has_value());
    // With the server down, a clear error; nothing is lost, and it answers again once back.
    postgres->stop();
    const Result<void> saved = store->savePeer(peerNamed(QStringLiteral("b"), 1));
    EXPECT_FALSE(saved.ok());
    ASSERT_TRUE(postgres->start()) << postgres->error();
    ASSERT_TRUE(store->savePeer(peerNamed(QStringLiteral("b"), 1)).ok());
    EXPECT_EQ(store->peers()->size(), 2u);
}

TEST_P(PostgresStoreTest, AnAddressThatIsNotPostgresIsAClearError)
{
    for (const char *url : {"mysql://u@h/db", "postgresql://u@h/", "postgresql:///db", "postgresql://u@h/db?options=-c%20x",
                            "postgresql://u@h/db?sslmode=require;dbname=other", "not a url"}) {
        Result<std::unique_ptr<SqlCoordinatorStore>> store = SqlCoordinatorStore::openPostgres(QString::fromLatin1(url));
        ASSERT_FALSE(store.ok()) << url;
        EXPECT_TRUE(store.error().message.find("PostgreSQL") != std::string::npos) << store.error().message;
    }
    Result<std::unique_ptr<SqlCoordinatorStore>> withPassword =
        SqlCoordinatorStore::openPostgres(QStringLiteral("postgresql://u:secret@127.0.0.1:1/db"));
    ASSERT_FALSE(withPassword.ok());
    EXPECT_EQ(withPassword.error().message.find("secret"), std::string::npos) << "no password in messages";
}
