#include "StatsStore.h"

#include "QtText.h"

#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QTimeZone>
#include <QVariant>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <string>

namespace swarmtrain {

namespace {

Q_LOGGING_CATEGORY(lcStats, "swarmtrain.stats")

constexpr char kSqliteMagic[16] = "SQLite format 3"; // with its terminating NUL: 16 bytes
constexpr int kBusyTimeoutMs = 5000;
constexpr int kMaxDays = 3660;

Error sqlError(const std::string &what, const QSqlError &error)
{
    return makeError("stats database: " + what + ": " + error.text().toStdString());
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) about "literal" + std::string&&.
std::string statementFailed(const QString &sql)
{
    std::string text = "statement \"";
    text += sql.toStdString();
    text += "\" failed";
    return text;
}

// Prepares, binds and runs one statement.
Result<QSqlQuery> execute(const QSqlDatabase &db, const QString &sql, std::initializer_list<QVariant> values = {})
{
    QSqlQuery query(db);
    if (!query.prepare(sql))
        return sqlError(statementFailed(sql), query.lastError());
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec())
        return sqlError(statementFailed(sql), query.lastError());
    return query;
}

Result<void> executeAll(const QSqlDatabase &db, std::initializer_list<QString> statements)
{
    for (const QString &sql : statements) {
        QSqlQuery query(db);
        if (!query.exec(sql))
            return sqlError(statementFailed(sql), query.lastError());
    }
    return {};
}

// An existing non-empty file must carry SQLite's header before SQLite may touch it:
// opening anything else could turn somebody's file into a database.
Result<void> checkExistingFile(const std::filesystem::path &file)
{
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(file, ec);
    // A missing folder, or a folder path through a file, is for create_directories to report.
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        return makeError("stats database " + file.string() + ": " + ec.message());
    if (!std::filesystem::exists(status))
        return {};
    if (!std::filesystem::is_regular_file(status))
        return makeError("stats database " + file.string() + " is not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec)
        return makeError("stats database " + file.string() + ": " + ec.message());
    if (size == 0)
        return {};
    char header[sizeof kSqliteMagic] = {};
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return makeError("stats database " + file.string() + " cannot be read");
    in.read(header, sizeof header);
    if (in.gcount() != std::streamsize(sizeof header) || std::memcmp(header, kSqliteMagic, sizeof header) != 0)
        return makeError("stats database " + file.string() + " is not a SQLite database; it was left untouched");
    return {};
}

Result<void> validate(const Contribution &c)
{
    if (c.swarm.isEmpty())
        return makeError("contribution without a swarm name");
    if (!c.startedAt.isValid() || !c.finishedAt.isValid() || c.finishedAt < c.startedAt)
        return makeError("contribution of round " + std::to_string(c.round) + " has invalid start/finish times");
    if (c.tokens < 0 || c.bytesUp < 0 || c.bytesDown < 0)
        return makeError("contribution of round " + std::to_string(c.round) + " has a negative count");
    if (!std::isfinite(c.flops) || c.flops < 0.0 || !std::isfinite(c.computeSeconds) || c.computeSeconds < 0.0)
        return makeError("contribution of round " + std::to_string(c.round) +
                         " has FLOPs or compute seconds that are negative or not finite");
    return {};
}

Verdict verdictFromColumn(int value)
{
    switch (value) {
    case 1:
        return Verdict::Accepted;
    case 2:
        return Verdict::Rejected;
    default:
        return Verdict::Pending;
    }
}

QDateTime fromMs(qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC); }

QDateTime startOfDay(QDate day, const QDateTime &like)
{
    if (like.timeSpec() == Qt::TimeZone)
        return day.startOfDay(like.timeZone());
    return day.startOfDay(like.timeSpec(), like.offsetFromUtc());
}

QString selectContributions(const QString &tail)
{
    return QStringLiteral("SELECT swarm, round, started_at, finished_at, tokens, flops, compute_seconds,"
                          " bytes_up, bytes_down, verdict, credit FROM contributions ") +
           tail;
}

RecordedContribution readContribution(const QSqlQuery &query)
{
    RecordedContribution record;
    Contribution &c = record.contribution;
    c.swarm = query.value(0).toString();
    c.round = query.value(1).toLongLong();
    c.startedAt = fromMs(query.value(2).toLongLong());
    c.finishedAt = fromMs(query.value(3).toLongLong());
    c.tokens = query.value(4).toLongLong();
    c.flops = query.value(5).toDouble();
    c.computeSeconds = query.value(6).toDouble();
    c.bytesUp = query.value(7).toLongLong();
    c.bytesDown = query.value(8).toLongLong();
    record.verdict = verdictFromColumn(query.value(9).toInt());
    record.credit = query.value(10).toDouble();
    return record;
}

} // namespace

StatsStore::StatsStore(std::filesystem::path file, Options options, QString connectionName)
    : m_file(std::move(file)), m_options(options), m_connectionName(std::move(connectionName))
{
}

StatsStore::~StatsStore()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

Result<std::unique_ptr<StatsStore>> StatsStore::open(const std::filesystem::path &file, Options options)
{
    if (options.maxEvents < 1)
        return makeError("stats database: maxEvents must be at least 1");
    static std::atomic<quint64> instances{0};
    std::unique_ptr<StatsStore> store(
        new StatsStore(file, options, QStringLiteral("swarmtrain.stats.%1").arg(instances.fetch_add(1))));
    if (Result<void> ready = store->initialize(); !ready.ok())
        return ready.error();
    return store;
}

Result<void> StatsStore::initialize()
{
    if (Result<void> existing = checkExistingFile(m_file); !existing.ok())
        return existing;
    if (m_file.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(m_file.parent_path(), ec);
        if (ec)
            return makeError("cannot create the folder of the stats database " + m_file.string() + ": " + ec.message());
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    if (!db.isValid())
        return makeError("Qt's SQLite driver (QSQLITE) is not available");
    db.setDatabaseName(toQString(m_file));
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs));
    if (!db.open())
        return sqlError("cannot open " + m_file.string(), db.lastError());
    // Whose file this is gets settled before anything (even the switch to WAL, which
    // rewrites the header) changes it.
    Result<int> schemaVersion = checkOwnership();
    if (!schemaVersion.ok())
        return schemaVersion.error();

    Result<QSqlQuery> journal = execute(db, QStringLiteral("PRAGMA journal_mode=WAL"));
    if (!journal.ok())
        return journal.error();
    if (!journal->next() || journal->value(0).toString().compare(u"wal", Qt::CaseInsensitive) != 0)
        return makeError("stats database " + m_file.string() + " cannot be switched to WAL mode");
    journal->finish();
    // FULL: in WAL mode the log is fsynced at every commit, so a power cut loses nothing that
    // was reported as recorded (NORMAL would only protect against a crash).
    if (Result<void> sync = executeAll(db, {QStringLiteral("PRAGMA synchronous=FULL")}); !sync.ok())
        return sync;
    if (*schemaVersion == 0) {
        if (Result<void> schema = createSchema(); !schema.ok())
            return schema;
    }
    // A read-only file opens fine and fails on the first write; find out now.
    if (Result<void> writable = executeAll(db, {QStringLiteral("BEGIN IMMEDIATE"), QStringLiteral("ROLLBACK")});
        !writable.ok())
        return makeError("stats database " + m_file.string() + " is not writable: " + writable.error().message);
    return {};
}

Result<int> StatsStore::checkOwnership()
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> version = execute(db, QStringLiteral("PRAGMA user_version"));
    if (!version.ok())
        return version.error();
    if (!version->next())
        return sqlError("cannot read the schema version", version->lastError());
    const int schemaVersion = version->value(0).toInt();
    version->finish();
    if (schemaVersion > kSchemaVersion)
        return makeError("stats database " + m_file.string() + " has schema " + std::to_string(schemaVersion) +
                         ", newer than this SwarmTrain understands (" + std::to_string(kSchemaVersion) +
                         "); it was left untouched");
    if (schemaVersion == kSchemaVersion)
        return schemaVersion;

    Result<QSqlQuery> tables = execute(db, QStringLiteral("SELECT count(*) FROM sqlite_master"));
    if (!tables.ok())
        return tables.error();
    if (!tables->next() || tables->value(0).toLongLong() != 0)
        return makeError("stats database " + m_file.string() +
                         " is a SQLite database of another application; it was left untouched");
    return 0;
}

Result<void> StatsStore::createSchema()
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    // IMMEDIATE takes the write lock first, so two processes starting on a new file cannot
    // both create the tables; the second finds the first one's schema.
    if (Result<void> begun = executeAll(db, {QStringLiteral("BEGIN IMMEDIATE")}); !begun.ok())
        return begun;
    Result<QSqlQuery> version = execute(db, QStringLiteral("PRAGMA user_version"));
    const bool alreadyCreated = version.ok() && version->next() && version->value(0).toInt() == kSchemaVersion;
    if (version.ok())
        version->finish();
    // verdict: 0 pending, 1 accepted, 2 rejected. Times in milliseconds since the epoch (UTC).
    Result<void> created = alreadyCreated ? Result<void>() : executeAll(
        db, {QStringLiteral("CREATE TABLE contributions ("
                            " swarm TEXT NOT NULL, round INTEGER NOT NULL,"
                            " started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL,"
                            " tokens INTEGER NOT NULL, flops REAL NOT NULL, compute_seconds REAL NOT NULL,"
                            " bytes_up INTEGER NOT NULL, bytes_down INTEGER NOT NULL,"
                            " verdict INTEGER NOT NULL DEFAULT 0, credit REAL NOT NULL DEFAULT 0,"
                            " PRIMARY KEY (swarm, round))"),
             QStringLiteral("CREATE INDEX contributions_by_finish ON contributions (finished_at)"),
             QStringLiteral("CREATE TABLE events ("
                            " id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,"
                            " kind TEXT NOT NULL, message TEXT NOT NULL)"),
             QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion)});
    if (!created.ok()) {
        (void)executeAll(db, {QStringLiteral("ROLLBACK")});
        return created;
    }
    if (Result<void> committed = executeAll(db, {QStringLiteral("COMMIT")}); !committed.ok())
        return committed;
    if (!alreadyCreated)
        qCInfo(lcStats) << "created stats database" << toQString(m_file);
    return {};
}

Result<void> StatsStore::recordContribution(const Contribution &c)
{
    if (Result<void> valid = validate(c); !valid.ok())
        return valid;
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> inserted = execute(
        db,
        QStringLiteral("INSERT INTO contributions (swarm, round, started_at, finished_at, tokens, flops,"
                       " compute_seconds, bytes_up, bytes_down) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                       " ON CONFLICT (swarm, round) DO NOTHING"),
        {c.swarm, qint64(c.round), c.startedAt.toMSecsSinceEpoch(), c.finishedAt.toMSecsSinceEpoch(),
         qint64(c.tokens), c.flops, c.computeSeconds, qint64(c.bytesUp), qint64(c.bytesDown)});
    if (!inserted.ok())
        return inserted.error();
    if (inserted->numRowsAffected() != 1)
        return makeError("round " + std::to_string(c.round) + " of swarm " + c.swarm.toStdString() +
                         " is already recorded");
    return {};
}

Result<void> StatsStore::markAccepted(const QString &swarm, std::int64_t round, bool accepted, double credit)
{
    if (!std::isfinite(credit) || credit < 0.0)
        return makeError("credit for round " + std::to_string(round) + " must be finite and not negative");
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> updated =
        execute(db, QStringLiteral("UPDATE contributions SET verdict = ?, credit = ? WHERE swarm = ? AND round = ?"),
                {accepted ? 1 : 2, credit, swarm, qint64(round)});
    if (!updated.ok())
        return updated.error();
    if (updated->numRowsAffected() != 1)
        return makeError("no contribution recorded for round " + std::to_string(round) + " of swarm " +
                         swarm.toStdString());
    return {};
}

Result<void> StatsStore::recordEvent(const QString &kind, const QString &message, const QDateTime &at)
{
    if (kind.isEmpty() || !at.isValid())
        return makeError("an event needs a kind and a valid time");
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    if (!db.transaction())
        return sqlError("cannot begin recording an event", db.lastError());
    Result<QSqlQuery> inserted = execute(db, QStringLiteral("INSERT INTO events (at, kind, message) VALUES (?, ?, ?)"),
                                         {at.toMSecsSinceEpoch(), kind, message});
    if (inserted.ok()) {
        const qint64 id = inserted->lastInsertId().toLongLong();
        inserted->finish();
        Result<QSqlQuery> pruned =
            execute(db, QStringLiteral("DELETE FROM events WHERE id <= ?"), {id - qint64(m_options.maxEvents)});
        if (!pruned.ok())
            inserted = pruned.error();
    }
    if (!inserted.ok()) {
        db.rollback();
        return inserted.error();
    }
    if (!db.commit())
        return sqlError("cannot commit an event", db.lastError());
    return {};
}

Result<StatsTotals> StatsStore::totals() const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> query = execute(
        db, QStringLiteral("SELECT count(*), coalesce(sum(tokens), 0), total(flops), total(compute_seconds),"
                           " coalesce(sum(verdict = 1), 0), coalesce(sum(verdict = 2), 0),"
                           " total(CASE WHEN verdict = 1 THEN credit END),"
                           " coalesce(sum(bytes_up), 0), coalesce(sum(bytes_down), 0)"
                           " FROM contributions"));
    if (!query.ok())
        return query.error();
    if (!query->next())
        return sqlError("totals returned no row", query->lastError());
    StatsTotals totals;
    totals.contributions = query->value(0).toLongLong();
    totals.tokens = query->value(1).toLongLong();
    totals.flops = query->value(2).toDouble();
    totals.computeHours = query->value(3).toDouble() / 3600.0;
    totals.acceptedRounds = query->value(4).toLongLong();
    totals.rejectedRounds = query->value(5).toLongLong();
    totals.credit = query->value(6).toDouble();
    totals.bytesUp = query->value(7).toLongLong();
    totals.bytesDown = query->value(8).toLongLong();
    return totals;
}

Result<std::vector<DailyStats>> StatsStore::daily(int days, const QDateTime &now) const
{
    if (days < 1 || days > kMaxDays || !now.isValid())
        return makeError("daily statistics need 1 to " + std::to_string(kMaxDays) + " days and a valid time");
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    QSqlQuery query(db);
    // Day bounds come from Qt, so days of 23 or 25 hours (daylight saving) are right.
    if (!query.prepare(QStringLiteral("SELECT total(compute_seconds), coalesce(sum(tokens), 0),"
                                      " total(CASE WHEN verdict = 1 THEN credit END)"
                                      " FROM contributions WHERE finished_at >= ? AND finished_at < ?")))
        return sqlError("cannot prepare the daily query", query.lastError());
    std::vector<DailyStats> result;
    result.reserve(std::size_t(days));
    const QDate today = now.date();
    for (int back = days - 1; back >= 0; --back) {
        const QDate day = today.addDays(-back);
        query.bindValue(0, startOfDay(day, now).toMSecsSinceEpoch());
        query.bindValue(1, startOfDay(day.addDays(1), now).toMSecsSinceEpoch());
        if (!query.exec() || !query.next())
            return sqlError("daily query failed", query.lastError());
        result.push_back({day, query.value(0).toDouble(), query.value(1).toLongLong(),
                          query.value(2).toDouble()});
        query.finish();
    }
    return result;
}

Result<std::vector<StatsEvent>> StatsStore::recentEvents(int count) const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> query = execute(
        db, QStringLiteral("SELECT id, at, kind, message FROM events ORDER BY id DESC LIMIT ?"), {std::max(count, 0)});
    if (!query.ok())
        return query.error();
    std::vector<StatsEvent> events;
    while (query->next())
        events.push_back({query->value(0).toLongLong(), fromMs(query->value(1).toLongLong()),
                          query->value(2).toString(), query->value(3).toString()});
    return events;
}

Result<std::vector<RecordedContribution>> StatsStore::recentContributions(int count) const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> query = execute(db, selectContributions(QStringLiteral("ORDER BY finished_at DESC, round DESC LIMIT ?")),
                                      {std::max(count, 0)});
    if (!query.ok())
        return query.error();
    std::vector<RecordedContribution> records;
    while (query->next())
        records.push_back(readContribution(*query));
    return records;
}

Result<std::optional<RecordedContribution>> StatsStore::contribution(const QString &swarm, std::int64_t round) const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> query =
        execute(db, selectContributions(QStringLiteral("WHERE swarm = ? AND round = ?")), {swarm, qint64(round)});
    if (!query.ok())
        return query.error();
    if (!query->next())
        return std::optional<RecordedContribution>();
    return std::optional<RecordedContribution>(readContribution(*query));
}

Result<void> StatsStore::checkIntegrity() const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    Result<QSqlQuery> query = execute(db, QStringLiteral("PRAGMA integrity_check"));
    if (!query.ok())
        return query.error();
    QStringList problems;
    while (query->next())
        problems.append(query->value(0).toString());
    if (problems == QStringList{QStringLiteral("ok")})
        return {};
    return makeError("stats database " + m_file.string() + " failed its integrity check: " +
                     problems.join(u"; ").toStdString());
}

} // namespace swarmtrain
