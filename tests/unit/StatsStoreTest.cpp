#include "StatsStore.h"

#include "TempDir.h"

#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTimeZone>

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <set>
#include <sstream>

using namespace swarmtrain;

namespace {

const QDateTime kBase = QDateTime::fromMSecsSinceEpoch(1710000000000, Qt::UTC); // 2024-03-09 16:00 UTC

Contribution sampleContribution(std::int64_t round, QDateTime finishedAt = kBase)
{
    Contribution c;
    c.round = round;
    c.swarm = QStringLiteral("gpt-small");
    c.startedAt = finishedAt.addSecs(-300);
    c.finishedAt = finishedAt;
    c.tokens = 65536 * round;
    c.flops = 3.5e14;
    c.computeSeconds = 290.5;
    c.bytesUp = 1 << 20;
    c.bytesDown = 3 << 20;
    return c;
}

std::string fileContent(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// Runs SQL on a file through its own connection, as another program would.
void runSql(const std::filesystem::path &file, const QStringList &statements)
{
    const QString name = QStringLiteral("stats-test-raw");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(QString::fromStdString(file.string()));
        ASSERT_TRUE(db.open());
        for (const QString &sql : statements) {
            QSqlQuery query(db);
            ASSERT_TRUE(query.exec(sql)) << sql.toStdString();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
}

class StatsStoreTest : public ::testing::Test {
protected:
    std::unique_ptr<StatsStore> openStore(StatsStore::Options options = {})
    {
        Result<std::unique_ptr<StatsStore>> store = StatsStore::open(m_file, options);
        EXPECT_TRUE(store.ok()) << store.error().message;
        return store.ok() ? std::move(store).value() : nullptr;
    }

    test::TempDir m_dir;
    std::filesystem::path m_file = m_dir.path() / "profile" / "stats.db";
};

} // namespace

TEST_F(StatsStoreTest, ContributionRoundTrips)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    const Contribution c = sampleContribution(7);
    ASSERT_TRUE(store->recordContribution(c).ok());

    const Result<std::optional<RecordedContribution>> read = store->contribution(c.swarm, 7);
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_TRUE(read->has_value());
    const RecordedContribution &record = **read;
    EXPECT_EQ(record.contribution.round, 7);
    EXPECT_EQ(record.contribution.swarm, c.swarm);
    EXPECT_EQ(record.contribution.startedAt, c.startedAt);
    EXPECT_EQ(record.contribution.finishedAt, c.finishedAt);
    EXPECT_EQ(record.contribution.tokens, c.tokens);
    EXPECT_DOUBLE_EQ(record.contribution.flops, c.flops);
    EXPECT_DOUBLE_EQ(record.contribution.computeSeconds, c.computeSeconds);
    EXPECT_EQ(record.contribution.bytesUp, c.bytesUp);
    EXPECT_EQ(record.contribution.bytesDown, c.bytesDown);
    EXPECT_EQ(record.verdict, Verdict::Pending);
    EXPECT_EQ(record.credit, 0.0);

    const auto missing = store->contribution(c.swarm, 8);
    ASSERT_TRUE(missing.ok());
    EXPECT_FALSE(missing->has_value());
    EXPECT_TRUE(store->checkIntegrity().ok());
}

TEST_F(StatsStoreTest, SameRoundIsRecordedOnce)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->recordContribution(sampleContribution(3)).ok());
    Contribution again = sampleContribution(3);
    again.tokens = 1;
    const Result<void> duplicate = store->recordContribution(again);
    ASSERT_FALSE(duplicate.ok());
    EXPECT_NE(duplicate.error().message.find("already recorded"), std::string::npos) << duplicate.error().message;
    EXPECT_EQ((*store->contribution(again.swarm, 3))->contribution.tokens, sampleContribution(3).tokens);
    // The same round number in another swarm is another contribution.
    again.swarm = QStringLiteral("lan-party");
    EXPECT_TRUE(store->recordContribution(again).ok());
}

TEST_F(StatsStoreTest, BadContributionsAreRefused)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    std::vector<Contribution> bad(6, sampleContribution(1));
    bad[0].flops = std::numeric_limits<double>::quiet_NaN();
    bad[1].computeSeconds = -1.0;
    bad[2].tokens = -5;
    bad[3].finishedAt = bad[3].startedAt.addSecs(-1);
    bad[4].swarm.clear();
    bad[5].startedAt = QDateTime();
    for (const Contribution &c : bad)
        EXPECT_FALSE(store->recordContribution(c).ok());
    EXPECT_EQ(store->totals()->contributions, 0);
}

TEST_F(StatsStoreTest, VerdictArrivesLater)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    for (int round = 1; round <= 3; ++round)
        ASSERT_TRUE(store->recordContribution(sampleContribution(round)).ok());
    const QString swarm = QStringLiteral("gpt-small");
    ASSERT_TRUE(store->markAccepted(swarm, 1, true, 12.5).ok());
    ASSERT_TRUE(store->markAccepted(swarm, 2, false, 0.0).ok());

    EXPECT_EQ((*store->contribution(swarm, 1))->verdict, Verdict::Accepted);
    EXPECT_EQ((*store->contribution(swarm, 1))->credit, 12.5);
    EXPECT_EQ((*store->contribution(swarm, 2))->verdict, Verdict::Rejected);
    EXPECT_EQ((*store->contribution(swarm, 3))->verdict, Verdict::Pending);

    // A correction replaces the verdict.
    ASSERT_TRUE(store->markAccepted(swarm, 2, true, 4.0).ok());
    const Result<StatsTotals> totals = store->totals();
    ASSERT_TRUE(totals.ok()) << totals.error().message;
    EXPECT_EQ(totals->acceptedRounds, 2);
    EXPECT_EQ(totals->rejectedRounds, 0);
    EXPECT_DOUBLE_EQ(totals->credit, 16.5);

    const Result<void> unknown = store->markAccepted(swarm, 99, true, 1.0);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("no contribution recorded for round 99"), std::string::npos);
    EXPECT_FALSE(store->markAccepted(swarm, 3, true, std::nan("")).ok());
    EXPECT_FALSE(store->markAccepted(swarm, 3, true, -1.0).ok());
    EXPECT_EQ((*store->contribution(swarm, 3))->verdict, Verdict::Pending);
}

TEST_F(StatsStoreTest, TotalsAddUpEverything)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    const Result<StatsTotals> empty = store->totals();
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->contributions, 0);
    EXPECT_EQ(empty->tokens, 0);
    EXPECT_EQ(empty->credit, 0.0);

    for (int round = 1; round <= 4; ++round)
        ASSERT_TRUE(store->recordContribution(sampleContribution(round)).ok());
    ASSERT_TRUE(store->markAccepted(QStringLiteral("gpt-small"), 4, false, 0.0).ok());
    const Result<StatsTotals> totals = store->totals();
    ASSERT_TRUE(totals.ok());
    EXPECT_EQ(totals->contributions, 4);
    EXPECT_EQ(totals->tokens, 65536 * (1 + 2 + 3 + 4));
    EXPECT_DOUBLE_EQ(totals->flops, 4 * 3.5e14);
    EXPECT_DOUBLE_EQ(totals->computeHours, 4 * 290.5 / 3600.0);
    EXPECT_EQ(totals->acceptedRounds, 0);
    EXPECT_EQ(totals->rejectedRounds, 1);
    EXPECT_EQ(totals->bytesUp, 4 << 20);
    EXPECT_EQ(totals->bytesDown, 12 << 20);

    const auto recent = store->recentContributions(2);
    ASSERT_TRUE(recent.ok());
    ASSERT_EQ(recent->size(), 2u);
    EXPECT_EQ((*recent)[0].contribution.round, 4);
    EXPECT_EQ((*recent)[1].contribution.round, 3);
}

TEST_F(StatsStoreTest, DailyBucketsSplitAtLocalMidnight)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    const QTimeZone zone(2 * 3600); // UTC+02:00, so local midnight is 22:00 UTC
    const auto at = [&](int day, int hour, int minute) {
        return QDateTime(QDate(2024, 3, day), QTime(hour, minute), zone);
    };
    const QString swarm = QStringLiteral("gpt-small");
    struct Work {
        int round;
        QDateTime finished;
        double seconds;
        bool accepted;
    };
    const Work work[] = {
        {1, at(7, 23, 59), 1.0, true},    // outside the 3-day window
        {2, at(8, 0, 0), 10.0, true},     // first instant of the 8th
        {3, at(9, 23, 59), 100.0, true},  // last minute of the 9th...
        {4, at(10, 0, 1), 1000.0, false}, // ...and just after midnight: the 10th
        {5, at(10, 11, 0), 10000.0, true},
    };
    for (const Work &w : work) {
        Contribution c = sampleContribution(w.round, w.finished);
        c.computeSeconds = w.seconds;
        c.tokens = std::int64_t(w.seconds);
        ASSERT_TRUE(store->recordContribution(c).ok());
        ASSERT_TRUE(store->markAccepted(swarm, w.round, w.accepted, w.accepted ? w.seconds / 10 : 0.0).ok());
    }
    // 23:30 UTC on the 9th is 01:30 on the 10th in this zone.
    Contribution utcLate = sampleContribution(6, QDateTime(QDate(2024, 3, 9), QTime(23, 30), Qt::UTC));
    utcLate.computeSeconds = 5.0;
    utcLate.tokens = 5;
    ASSERT_TRUE(store->recordContribution(utcLate).ok());

    const Result<std::vector<DailyStats>> days = store->daily(3, at(10, 12, 0));
    ASSERT_TRUE(days.ok()) << days.error().message;
    ASSERT_EQ(days->size(), 3u);
    EXPECT_EQ((*days)[0].day, QDate(2024, 3, 8));
    EXPECT_EQ((*days)[1].day, QDate(2024, 3, 9));
    EXPECT_EQ((*days)[2].day, QDate(2024, 3, 10));
    EXPECT_DOUBLE_EQ((*days)[0].computeSeconds, 10.0);
    EXPECT_DOUBLE_EQ((*days)[1].computeSeconds, 100.0);
    EXPECT_DOUBLE_EQ((*days)[2].computeSeconds, 11005.0);
    EXPECT_EQ((*days)[2].tokens, 11005);
    EXPECT_DOUBLE_EQ((*days)[0].credit, 1.0);
    EXPECT_DOUBLE_EQ((*days)[1].credit, 10.0);
    EXPECT_DOUBLE_EQ((*days)[2].credit, 1000.0); // round 4 was rejected, round 6 is pending

    // The same data seen from UTC: round 4 (22:01 UTC) and round 6 (23:30 UTC) are on the 9th.
    const auto utcDays = store->daily(2, QDateTime(QDate(2024, 3, 10), QTime(12, 0), Qt::UTC));
    ASSERT_TRUE(utcDays.ok());
    EXPECT_DOUBLE_EQ((*utcDays)[0].computeSeconds, 1105.0);
    EXPECT_DOUBLE_EQ((*utcDays)[1].computeSeconds, 10000.0);
}

TEST_F(StatsStoreTest, DailyIncludesEmptyDaysAndChecksArguments)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    const Result<std::vector<DailyStats>> days = store->daily(30, kBase);
    ASSERT_TRUE(days.ok());
    ASSERT_EQ(days->size(), 30u);
    EXPECT_EQ(days->back().day, kBase.date());
    EXPECT_EQ(days->front().day, kBase.date().addDays(-29));
    for (const DailyStats &day : *days)
        EXPECT_EQ(day.computeSeconds, 0.0);
    EXPECT_FALSE(store->daily(0, kBase).ok());
    EXPECT_FALSE(store->daily(100000, kBase).ok());
    EXPECT_FALSE(store->daily(30, QDateTime()).ok());
}

TEST_F(StatsStoreTest, DailyFollowsDaylightSaving)
{
    const QTimeZone berlin("Europe/Berlin");
    if (!berlin.isValid())
        GTEST_SKIP() << "no time zone data for Europe/Berlin";
    auto store = openStore();
    ASSERT_TRUE(store);
    // 2024-03-31 has 23 hours in Berlin; 23:30 local is 21:30 UTC and belongs to the 31st.
    ASSERT_TRUE(
        store->recordContribution(sampleContribution(1, QDateTime(QDate(2024, 3, 31), QTime(23, 30), berlin))).ok());
    const auto days = store->daily(2, QDateTime(QDate(2024, 4, 1), QTime(9, 0), berlin));
    ASSERT_TRUE(days.ok());
    EXPECT_DOUBLE_EQ((*days)[0].computeSeconds, 290.5);
    EXPECT_DOUBLE_EQ((*days)[1].computeSeconds, 0.0);
}

TEST_F(StatsStoreTest, EventsNewestFirstAndOldOnesPruned)
{
    auto store = openStore({.maxEvents = 3});
    ASSERT_TRUE(store);
    for (int i = 1; i <= 5; ++i)
        ASSERT_TRUE(store
                        ->recordEvent(i % 2 ? QStringLiteral("paused") : QStringLiteral("resumed"),
                                      QStringLiteral("event %1").arg(i), kBase.addSecs(i))
                        .ok());
    const Result<std::vector<StatsEvent>> events = store->recentEvents(10);
    ASSERT_TRUE(events.ok()) << events.error().message;
    ASSERT_EQ(events->size(), 3u);
    EXPECT_EQ((*events)[0].message, QStringLiteral("event 5"));
    EXPECT_EQ((*events)[0].kind, QStringLiteral("paused"));
    EXPECT_EQ((*events)[0].at, kBase.addSecs(5));
    EXPECT_EQ((*events)[2].message, QStringLiteral("event 3"));
    EXPECT_EQ(store->recentEvents(1)->size(), 1u);
    EXPECT_FALSE(store->recordEvent(QString(), QStringLiteral("no kind"), kBase).ok());
    EXPECT_FALSE(store->recordEvent(QStringLiteral("error"), QStringLiteral("no time"), QDateTime()).ok());
}

TEST_F(StatsStoreTest, ReopeningKeepsEverything)
{
    {
        auto store = openStore();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->recordContribution(sampleContribution(1)).ok());
        ASSERT_TRUE(store->markAccepted(QStringLiteral("gpt-small"), 1, true, 3.0).ok());
        ASSERT_TRUE(store->recordEvent(QStringLiteral("error"), QStringLiteral("peer vanished"), kBase).ok());
    }
    auto store = openStore();
    ASSERT_TRUE(store);
    EXPECT_EQ(store->totals()->contributions, 1);
    EXPECT_DOUBLE_EQ(store->totals()->credit, 3.0);
    ASSERT_EQ(store->recentEvents(5)->size(), 1u);
    EXPECT_EQ(store->recentEvents(5)->front().message, QStringLiteral("peer vanished"));
    EXPECT_TRUE(store->checkIntegrity().ok());
}

TEST_F(StatsStoreTest, TwoStoresAtOnceUseTheirOwnConnections)
{
    auto first = openStore();
    ASSERT_TRUE(first);
    auto second = openStore(); // the same file
    ASSERT_TRUE(second);
    const Result<std::unique_ptr<StatsStore>> other = StatsStore::open(m_dir.path() / "other.db");
    ASSERT_TRUE(other.ok());
    ASSERT_TRUE(first->recordContribution(sampleContribution(1)).ok());
    EXPECT_EQ(second->totals()->contributions, 1);
    EXPECT_EQ((*other)->totals()->contributions, 0);
    first.reset();
    EXPECT_EQ(second->totals()->contributions, 1);
}

TEST_F(StatsStoreTest, FileThatIsNotSqliteIsRefusedAndUntouched)
{
    const std::string text = "these are somebody's notes, not a database\n";
    const std::filesystem::path notes = m_dir.write("notes.txt", text);
    const Result<std::unique_ptr<StatsStore>> store = StatsStore::open(notes);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("not a SQLite database"), std::string::npos) << store.error().message;
    EXPECT_EQ(fileContent(notes), text);
    EXPECT_FALSE(std::filesystem::exists(notes.string() + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(notes.string() + "-shm"));

    const std::filesystem::path tiny = m_dir.write("tiny.db", "SQLite");
    EXPECT_FALSE(StatsStore::open(tiny).ok());
    EXPECT_EQ(fileContent(tiny), "SQLite");
}

TEST_F(StatsStoreTest, AnotherApplicationsDatabaseIsRefused)
{
    const std::filesystem::path foreign = m_dir.path() / "foreign.db";
    runSql(foreign, {QStringLiteral("CREATE TABLE bookmarks (url TEXT)"),
                     QStringLiteral("INSERT INTO bookmarks VALUES ('https://example.org')")});
    const std::string before = fileContent(foreign);
    const Result<std::unique_ptr<StatsStore>> store = StatsStore::open(foreign);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("another application"), std::string::npos) << store.error().message;
    EXPECT_TRUE(fileContent(foreign) == before) << "the other application's database was modified";
}

TEST_F(StatsStoreTest, NewerSchemaIsRefused)
{
    {
        auto store = openStore();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->recordContribution(sampleContribution(1)).ok());
    }
    runSql(m_file, {QStringLiteral("PRAGMA user_version = 2")});
    const std::string before = fileContent(m_file);
    const Result<std::unique_ptr<StatsStore>> store = StatsStore::open(m_file);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("newer"), std::string::npos) << store.error().message;
    EXPECT_TRUE(fileContent(m_file) == before) << "the newer database was modified";
}

TEST_F(StatsStoreTest, UnwritableLocationIsAnError)
{
    // A folder path that runs through a regular file cannot be created, even by root.
    const std::filesystem::path blocker = m_dir.write("blocker", "x");
    const Result<std::unique_ptr<StatsStore>> store = StatsStore::open(blocker / "stats.db");
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find("cannot create the folder"), std::string::npos) << store.error().message;
    EXPECT_EQ(fileContent(blocker), "x");

    const Result<std::unique_ptr<StatsStore>> folder = StatsStore::open(m_dir.path());
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.error().message.find("not a regular file"), std::string::npos) << folder.error().message;
}

TEST_F(StatsStoreTest, KillingTheWriterLosesNoCommittedContribution)
{
    QProcess child;
    child.setProgram(QStringLiteral(STATS_WRITER_CHILD));
    child.setArguments({QString::fromStdString(m_file.string())});
    child.start();
    ASSERT_TRUE(child.waitForStarted(10000)) << child.errorString().toStdString();

    // Let it commit a few dozen rounds, then kill it mid-stream without warning.
    QByteArray output;
    while (output.count('\n') < 40) {
        if (!child.waitForReadyRead(10000))
            FAIL() << "the writer stopped early: " << child.readAllStandardError().toStdString();
        output += child.readAllStandardOutput();
    }
    child.kill(); // SIGKILL
    ASSERT_TRUE(child.waitForFinished(10000));
    EXPECT_EQ(child.exitStatus(), QProcess::CrashExit);
    output += child.readAllStandardOutput();

    std::set<std::int64_t> committed;
    QList<QByteArray> lines = output.split('\n');
    lines.removeLast(); // whatever follows the last newline is not a whole line
    for (const QByteArray &line : lines) {
        if (line.startsWith("committed "))
            committed.insert(line.mid(10).toLongLong());
    }
    ASSERT_GE(committed.size(), 40u);
    EXPECT_EQ(*committed.begin(), 1);
    EXPECT_EQ(*committed.rbegin(), std::int64_t(committed.size())); // no gaps in what was printed

    auto store = openStore();
    ASSERT_TRUE(store);
    const Result<void> integrity = store->checkIntegrity();
    EXPECT_TRUE(integrity.ok()) << integrity.error().message;
    for (const std::int64_t round : committed) {
        const auto record = store->contribution(QStringLiteral("crash-test"), round);
        ASSERT_TRUE(record.ok());
        EXPECT_TRUE(record->has_value()) << "round " << round << " was reported committed but is missing";
    }
    // At most the one round in flight at the kill may be there without having been printed.
    EXPECT_LE(store->totals()->contributions, std::int64_t(committed.size()) + 1);
    // And the store takes new work after the crash.
    EXPECT_TRUE(store->recordContribution(sampleContribution(1)).ok());
}
