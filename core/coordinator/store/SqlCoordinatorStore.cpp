#include "SqlCoordinatorStore.h"

#include "PostgresSchema.h"
#include "SqliteSchema.h"

#include <QAtomicInteger>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>
#include <QUrlQuery>
#include <QVariant>

#include <algorithm>

namespace swarmtrain {

namespace {

Q_LOGGING_CATEGORY(lcStore, "swarmtrain.coordinator.store")

QAtomicInteger<quint64> g_connectionCounter;

QString membersToJson(const std::vector<RoundMember> &members)
{
    QJsonArray array;
    for (const RoundMember &member : members) {
        array.append(QJsonObject{{QStringLiteral("peer_id"), member.keyId},
                                 {QStringLiteral("reachable"), member.reachable},
                                 {QStringLiteral("range"), QJsonArray{double(member.begin), double(member.end)}},
                                 {QStringLiteral("probation"), member.probation}, {QStringLiteral("steps"), double(member.steps)},
                                 {QStringLiteral("staleness"), double(member.staleness)}});
    }
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

std::vector<RoundMember> membersFromJson(const QString &text)
{
    std::vector<RoundMember> members;
    for (const QJsonValue &value : QJsonDocument::fromJson(text.toUtf8()).array()) {
        const QJsonObject object = value.toObject();
        const QJsonArray range = object.value(QStringLiteral("range")).toArray();
        members.push_back({object.value(QStringLiteral("peer_id")).toString(),
                           object.value(QStringLiteral("reachable")).toBool(), qint64(range.at(0).toDouble()),
                           qint64(range.at(1).toDouble()), object.value(QStringLiteral("probation")).toBool(),
                           qint64(object.value(QStringLiteral("steps")).toDouble()),
                           qint64(object.value(QStringLiteral("staleness")).toDouble())});
    }
    return members;
}

QVariant optionalDouble(const std::optional<double> &value)
{
    return value ? QVariant(*value) : QVariant(QMetaType(QMetaType::Double));
}

std::optional<double> toOptionalDouble(const QVariant &value)
{
    return value.isNull() ? std::nullopt : std::optional<double>(value.toDouble());
}

const char kContributionColumns[] = "round, attempt, key_id, tokens, flops, seconds, loss, params_hash, bytes_up,"
                                    " bytes_down, accepted, credit, received_ms";

ContributionRecord contributionFromQuery(const QSqlQuery &query)
{
    ContributionRecord c;
    c.round = query.value(0).toLongLong();
    c.attempt = query.value(1).toInt();
    c.keyId = query.value(2).toString();
    c.tokens = query.value(3).toLongLong();
    c.flops = query.value(4).toDouble();
    c.seconds = query.value(5).toDouble();
    c.loss = query.value(6).toDouble();
    c.paramsHash = query.value(7).toString();
    c.bytesUp = query.value(8).toLongLong();
    c.bytesDown = query.value(9).toLongLong();
    if (!query.value(10).isNull())
        c.accepted = query.value(10).toBool();
    c.credit = query.value(11).toDouble();
    c.receivedMs = query.value(12).toLongLong();
    return c;
}

} // namespace

QVariant SqlCoordinatorStore::text(const QString &value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

SqlCoordinatorStore::SqlCoordinatorStore(const QString &connectionName, Dialect dialect)
    : m_dialect(dialect)
{
    m_main.db = QSqlDatabase::addDatabase(dialect == Dialect::Sqlite ? QStringLiteral("QSQLITE") : QStringLiteral("QPSQL"),
                                          connectionName);
}

SqlCoordinatorStore::~SqlCoordinatorStore()
{
    for (Connection *connection : {&m_quick, &m_main}) {
        connection->prepared.clear();
        const QString name = connection->db.connectionName();
        connection->db.close();
        connection->db = QSqlDatabase();
        if (!name.isEmpty())
            QSqlDatabase::removeDatabase(name);
    }
}

Result<std::unique_ptr<SqlCoordinatorStore>> SqlCoordinatorStore::openSqlite(const std::filesystem::path &file)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")))
        return makeError("Qt's SQLite driver (QSQLITE) is not installed");
    const QString name = QStringLiteral("swarmtrain-coordinator-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1));
    std::unique_ptr<SqlCoordinatorStore> store(new SqlCoordinatorStore(name, Dialect::Sqlite));
    store->m_main.db.setDatabaseName(QString::fromStdString(file.string()));
    if (!store->m_main.db.open())
        return makeError("cannot open " + file.string() + ": " + store->m_main.db.lastError().text().toStdString());
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON",
                               "PRAGMA busy_timeout=5000"}) {
        QSqlQuery query = store->query(QString::fromLatin1(pragma));
        if (Result<void> done = store->exec(query, pragma); !done)
            return makeError(file.string() + ": " + done.error().message);
    }
    if (Result<void> migrated = migrateSqliteSchema(store->m_main.db); !migrated)
        return makeError(file.string() + ": " + migrated.error().message);
    if (Result<void> filled = store->fillSubnets(); !filled)
        return makeError(file.string() + ": " + filled.error().message);
    return store;
}

Result<std::unique_ptr<SqlCoordinatorStore>> SqlCoordinatorStore::openPostgres(const QString &url, int schemaVersion)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
        return makeError("Qt's PostgreSQL driver (QPSQL) is not installed (Debian: libqt6sql6-psql)");
    const QUrl parsed(url, QUrl::StrictMode);
    const QString database = parsed.path().mid(1);
    if (!parsed.isValid() || (parsed.scheme() != u"postgresql" && parsed.scheme() != u"postgres")
        || parsed.host().isEmpty() || database.isEmpty() || database.contains(QLatin1Char('/'))) {
        return makeError("not a PostgreSQL address: " + parsed.toDisplayString(QUrl::RemovePassword).toStdString()
                         + " (postgresql://user@host[:port]/database)");
    }
    // libpq's own options, which the driver passes on; anything else in the address is refused.
    QStringList options = {QStringLiteral("connect_timeout=5")};
    for (const auto &[key, value] : QUrlQuery(parsed).queryItems(QUrl::FullyDecoded)) {
        static const QStringList known = {QStringLiteral("sslmode"), QStringLiteral("sslrootcert"), QStringLiteral("sslcert"),
                                          QStringLiteral("sslkey"), QStringLiteral("connect_timeout"),
                                          QStringLiteral("application_name")};
        if (!known.contains(key) || value.contains(QLatin1Char(';')))
            return makeError("unknown or malformed PostgreSQL option in the address: " + key.toStdString());
        options.append(key + QLatin1Char('=') + value);
    }
    const QString name = QStringLiteral("swarmtrain-coordinator-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1));
    std::unique_ptr<SqlCoordinatorStore> store(new SqlCoordinatorStore(name, Dialect::Postgres));
    store->m_main.db.setHostName(parsed.host());
    store->m_main.db.setPort(parsed.port(5432));
    store->m_main.db.setDatabaseName(database);
    store->m_main.db.setUserName(parsed.userName(QUrl::FullyDecoded));
    store->m_main.db.setPassword(parsed.password(QUrl::FullyDecoded));
    store->m_main.db.setConnectOptions(options.join(QLatin1Char(';')));
    const std::string where = parsed.toDisplayString(QUrl::RemovePassword).toStdString();
    if (!store->m_main.db.open())
        return makeError("cannot connect to " + where + ": " + store->m_main.db.lastError().text().toStdString());
    const int target = schemaVersion > 0 ? schemaVersion : kPostgresSchemaVersion;
    if (Result<void> migrated = migratePostgresSchema(store->m_main.db, target); !migrated)
        return makeError(where + ": " + migrated.error().message);
    store->m_quick.db = QSqlDatabase::cloneDatabase(store->m_main.db, name + QStringLiteral("-quick"));
    store->m_quick.setUp = QStringLiteral("SET synchronous_commit TO off");
    if (!store->open(store->m_quick))
        return makeError("cannot connect to " + where + ": " + store->m_quick.db.lastError().text().toStdString());
    return store;
}

QString SqlCoordinatorStore::upsert(const QString &table, const QString &columns, const QString &key)
{
    QStringList placeholders, updates;
    const QStringList keys = key.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &column : columns.split(QLatin1Char(','))) {
        placeholders.append(QStringLiteral("?"));
        const auto same = [&](const QString &k) { return k.trimmed() == column.trimmed(); };
        if (std::none_of(keys.begin(), keys.end(), same))
            updates.append(QStringLiteral("%1 = excluded.%1").arg(column.trimmed()));
    }
    return QStringLiteral("INSERT INTO %1 (%2) VALUES (%3) ON CONFLICT (%4) DO UPDATE SET %5")
        .arg(table, columns, placeholders.join(QStringLiteral(", ")), key, updates.join(QStringLiteral(", ")));
}

bool SqlCoordinatorStore::open(Connection &connection)
{
    connection.prepared.clear(); // prepared on a connection that is gone
    if (!connection.db.open())
        return false;
    // Not a prepared statement: PostgreSQL prepares only queries and row changes.
    if (QSqlQuery setUp(connection.db); !connection.setUp.isEmpty() && !setUp.exec(connection.setUp)) {
        connection.db.close();
        return false;
    }
    return true;
}

QSqlQuery SqlCoordinatorStore::queryOn(Connection &connection, const QString &sql)
{
    if (!connection.db.isOpen())
        open(connection); // the server was away when it was last tried; if it still is, exec says so
    // On PostgreSQL, prepared once: a fresh statement costs a PREPARE and a DEALLOCATE round trip
    // besides its EXECUTE, and the driver fetches each result whole, so a statement kept holds
    // nothing open. (Not on SQLite: a statement kept unfinished would hold its read snapshot.)
    // A copy shares the prepared statement; finish() drops the last rows.
    const bool keep = m_dialect == Dialect::Postgres;
    if (const auto found = connection.prepared.find(sql); keep && found != connection.prepared.end()) {
        found->finish();
        // Qt deprecates the copy as surprising (copies share one result); sharing is the point here.
        QT_WARNING_PUSH
        QT_WARNING_DISABLE_DEPRECATED
        return *found;
        QT_WARNING_POP
    }
    QSqlQuery query(connection.db);
    query.setForwardOnly(true);
    if (query.prepare(sql) && keep && connection.prepared.size() < kMaxPreparedStatements)
        connection.prepared.insert(sql, query);
    return query;
}

bool SqlCoordinatorStore::reconnectIfLost(Connection &connection)
{
    if (m_dialect != Dialect::Postgres)
        return false;
    if (QSqlQuery probe(connection.db); probe.exec(QStringLiteral("SELECT 1")))
        return false; // it answers: the statement itself failed
    connection.db.close();
    if (!open(connection))
        return false;
    qCInfo(lcStore) << "connected to the database again";
    return true;
}

Result<void> SqlCoordinatorStore::execOn(Connection &connection, QSqlQuery &query, const char *what)
{
    if (query.exec())
        return {};
    const QString why = query.lastError().text();
    if (!(m_inTransaction && &connection == &m_main) && reconnectIfLost(connection)) {
        QSqlQuery again(connection.db);
        again.prepare(query.lastQuery());
        for (const QVariant &value : query.boundValues())
            again.addBindValue(value);
        query = std::move(again);
        if (query.exec())
            return {};
    }
    return makeError(std::string(what) + " failed: " + why.toStdString());
}

Result<void> SqlCoordinatorStore::inTransaction(const std::function<Result<void>()> &work)
{
    if (!m_main.db.transaction() && !(reconnectIfLost(m_main) && m_main.db.transaction()))
        return makeError("cannot begin a transaction: " + m_main.db.lastError().text().toStdString());
    m_inTransaction = true;
    Result<void> result = work();
    m_inTransaction = false;
    if (!result) {
        m_main.db.rollback();
        return result;
    }
    if (!m_main.db.commit()) {
        const std::string why = m_main.db.lastError().text().toStdString();
        m_main.db.rollback();
        return makeError("cannot commit: " + why);
    }
    return {};
}

Result<std::optional<QString>> SqlCoordinatorStore::meta(const QString &key)
{
    QSqlQuery q = query(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    q.addBindValue(text(key));
    if (Result<void> done = exec(q, "reading meta"); !done)
        return done.error();
    if (!q.next())
        return std::optional<QString>();
    return std::optional<QString>(q.value(0).toString());
}

Result<void> SqlCoordinatorStore::setMeta(const QString &key, const QString &value)
{
    QSqlQuery q = query(upsert(QStringLiteral("meta"), QStringLiteral("key, value"), QStringLiteral("key")));
    q.addBindValue(text(key));
    q.addBindValue(text(value));
    return exec(q, "writing meta");
}

Result<std::vector<RoundRecord>> SqlCoordinatorStore::selectRounds(const QString &where, qint64 value)
{
    QSqlQuery q = query(QStringLiteral("SELECT number, attempt, state, gathering_since_ms, started_ms, deadline_ms,"
                                       " finished_ms, members, agreed_hash, uploader, val_loss, share, schedule_advance, revision,"
                                       " check_seed FROM rounds ")
                        + where);
    if (where.contains(QLatin1Char('?')))
        q.addBindValue(value);
    if (Result<void> done = exec(q, "reading rounds"); !done)
        return done.error();
    std::vector<RoundRecord> rounds;
    while (q.next()) {
        RoundRecord round;
        round.number = q.value(0).toLongLong();
        round.attempt = q.value(1).toInt();
        const std::optional<RoundState> state = roundStateFromName(q.value(2).toString());
        if (!state)
            return makeError("round " + std::to_string(round.number) + " has an unknown state");
        round.state = *state;
        round.gatheringSinceMs = q.value(3).toLongLong();
        round.startedMs = q.value(4).toLongLong();
        round.deadlineMs = q.value(5).toLongLong();
        round.finishedMs = q.value(6).toLongLong();
        round.members = membersFromJson(q.value(7).toString());
        round.agreedHash = q.value(8).toString();
        round.uploaderKeyId = q.value(9).toString();
        round.validationLoss = toOptionalDouble(q.value(10));
        round.share = q.value(11).toDouble();
        round.scheduleAdvance = q.value(12).toLongLong();
        round.revision = q.value(13).toLongLong();
        round.checkSeed = quint64(q.value(14).toLongLong()); // stored as the signed 64 bits SQL has
        rounds.push_back(std::move(round));
    }
    return rounds;
}

Result<std::optional<RoundRecord>> SqlCoordinatorStore::currentRound()
{
    Result<std::vector<RoundRecord>> rounds = selectRounds(QStringLiteral("ORDER BY number DESC LIMIT 1"), 0);
    if (!rounds)
        return rounds.error();
    if (rounds->empty())
        return std::optional<RoundRecord>();
    return std::optional<RoundRecord>(rounds->front());
}

Result<std::optional<RoundRecord>> SqlCoordinatorStore::knownCurrentRound()
{
    if (m_knownRound && std::chrono::steady_clock::now() < m_soleRoundWriterUntil)
        return m_knownRound;
    Result<std::optional<RoundRecord>> round = currentRound();
    // Not one read inside a transaction: it may yet be rolled back.
    if (round && !m_inTransaction)
        m_knownRound = *round;
    return round;
}

Result<std::optional<RoundRecord>> SqlCoordinatorStore::round(qint64 number)
{
    Result<std::vector<RoundRecord>> rounds = selectRounds(QStringLiteral("WHERE number = ?"), number);
    if (!rounds)
        return rounds.error();
    if (rounds->empty())
        return std::optional<RoundRecord>();
    return std::optional<RoundRecord>(rounds->front());
}

Result<void> SqlCoordinatorStore::writeRound(const RoundRecord &round)
{
    m_knownRound.reset();
    const bool insert = round.revision == 0;
    QSqlQuery q = query(insert ? QStringLiteral("INSERT INTO rounds (attempt, state, gathering_since_ms, started_ms,"
                                                " deadline_ms, finished_ms, members, agreed_hash, uploader, val_loss, share,"
                                                " schedule_advance, check_seed, number, revision)"
                                                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING")
                               : QStringLiteral("UPDATE rounds SET attempt = ?, state = ?, gathering_since_ms = ?,"
                                                " started_ms = ?, deadline_ms = ?, finished_ms = ?, members = ?,"
                                                " agreed_hash = ?, uploader = ?, val_loss = ?, share = ?,"
                                                " schedule_advance = ?, check_seed = ?, revision = revision + 1"
                                                " WHERE number = ? AND revision = ?"));
    for (const QVariant &value :
         {QVariant(round.attempt), QVariant(roundStateName(round.state)), QVariant(round.gatheringSinceMs),
          QVariant(round.startedMs), QVariant(round.deadlineMs), QVariant(round.finishedMs),
          QVariant(membersToJson(round.members)), QVariant(text(round.agreedHash)), QVariant(text(round.uploaderKeyId)),
          optionalDouble(round.validationLoss), QVariant(round.share), QVariant(round.scheduleAdvance),
          QVariant(qint64(round.checkSeed)), QVariant(round.number)})
        q.addBindValue(value);
    if (!insert)
        q.addBindValue(round.revision);
    if (Result<void> done = exec(q, "saving a round"); !done)
        return done;
    if (q.numRowsAffected() != 1) {
        return makeError("round " + std::to_string(round.number) + " " + kChangedMeanwhile + "; not saved");
    }
    return {};
}

Result<void> SqlCoordinatorStore::saveRound(const RoundRecord &round)
{
    return writeRound(round);
}

Result<void> SqlCoordinatorStore::reopenRound(qint64 abandoned, const RoundRecord &reopened)
{
    return inTransaction([&]() -> Result<void> {
        QSqlQuery drop = query(QStringLiteral("DELETE FROM rounds WHERE number = ?"));
        drop.addBindValue(abandoned);
        if (Result<void> done = exec(drop, "dropping a round"); !done)
            return done;
        return writeRound(reopened);
    });
}

Result<void> SqlCoordinatorStore::addContribution(const ContributionRecord &c)
{
    QSqlQuery q = query(QStringLiteral("INSERT INTO contributions (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                            .arg(QLatin1StringView(kContributionColumns)));
    q.addBindValue(c.round);
    q.addBindValue(c.attempt);
    q.addBindValue(text(c.keyId));
    q.addBindValue(c.tokens);
    q.addBindValue(c.flops);
    q.addBindValue(c.seconds);
    q.addBindValue(c.loss);
    q.addBindValue(text(c.paramsHash));
    q.addBindValue(c.bytesUp);
    q.addBindValue(c.bytesDown);
    q.addBindValue(c.accepted ? QVariant(int(*c.accepted)) : QVariant(QMetaType(QMetaType::Int)));
    q.addBindValue(c.credit);
    q.addBindValue(c.receivedMs);
    return exec(q, "saving a contribution");
}

Result<std::vector<ContributionRecord>> SqlCoordinatorStore::contributions(qint64 round, int attempt)
{
    // In the order they came (the first accepted is asked for the new state).
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM contributions WHERE round = ? AND attempt = ? ORDER BY received_ms, %2")
                            .arg(QLatin1StringView(kContributionColumns),
                                 m_dialect == Dialect::Sqlite ? QStringLiteral("rowid") : QStringLiteral("arrival")));
    q.addBindValue(round);
    q.addBindValue(attempt);
    if (Result<void> done = exec(q, "reading contributions"); !done)
        return done.error();
    std::vector<ContributionRecord> list;
    while (q.next())
        list.push_back(contributionFromQuery(q));
    return list;
}

Result<std::optional<ContributionRecord>> SqlCoordinatorStore::lastContribution(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM contributions WHERE key_id = ? ORDER BY round DESC, attempt DESC"
                                       " LIMIT 1")
                            .arg(QLatin1StringView(kContributionColumns)));
    q.addBindValue(text(keyId));
    if (Result<void> done = exec(q, "reading a contribution"); !done)
        return done.error();
    if (!q.next())
        return std::optional<ContributionRecord>();
    return std::optional<ContributionRecord>(contributionFromQuery(q));
}

Result<void> SqlCoordinatorStore::closeRound(const RoundRecord &closed, const std::vector<ContributionRecord> &verdicts,
                                                const std::optional<RoundRecord> &next)
{
    return inTransaction([&]() -> Result<void> {
        // The round first: of two instances closing it, the second waits here and then fails.
        if (Result<void> done = writeRound(closed); !done)
            return done;
        for (const ContributionRecord &verdict : verdicts) {
            QSqlQuery update = query(QStringLiteral("UPDATE contributions SET accepted = ?, credit = ? WHERE round = ? AND"
                                                    " attempt = ? AND key_id = ?"));
            update.addBindValue(int(verdict.accepted.value_or(false)));
            update.addBindValue(verdict.credit);
            update.addBindValue(verdict.round);
            update.addBindValue(verdict.attempt);
            update.addBindValue(text(verdict.keyId));
            if (Result<void> done = exec(update, "recording a verdict"); !done)
                return done;
            if (!verdict.accepted.value_or(false))
                continue;
            QSqlQuery credit = query(QStringLiteral("UPDATE peers SET credit = credit + ?, tokens = tokens + ?,"
                                                    " accepted_rounds = accepted_rounds + 1 WHERE key_id = ?"));
            credit.addBindValue(verdict.credit);
            credit.addBindValue(verdict.tokens);
            credit.addBindValue(text(verdict.keyId));
            if (Result<void> done = exec(credit, "crediting a peer"); !done)
                return done;
        }
        if (next)
            return writeRound(*next);
        return {};
    });
}

Result<std::vector<CheckpointRecord>> SqlCoordinatorStore::selectCheckpoints(const QString &where, qint64 value)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, file, sha256, bytes, params_hash, val_loss FROM checkpoints ")
                        + where);
    if (where.contains(QLatin1Char('?')))
        q.addBindValue(value);
    if (Result<void> done = exec(q, "reading checkpoints"); !done)
        return done.error();
    std::vector<CheckpointRecord> list;
    while (q.next()) {
        list.push_back({q.value(0).toLongLong(), q.value(1).toString(), q.value(2).toString(), q.value(3).toLongLong(),
                        q.value(4).toString(), toOptionalDouble(q.value(5))});
    }
    return list;
}

Result<void> SqlCoordinatorStore::recordLinks(const std::vector<LinkRecord> &links, qint64 forgetBeforeMs)
{
    return inTransaction([&]() -> Result<void> {
        for (const LinkRecord &link : links) {
            QSqlQuery q = query(upsert(QStringLiteral("links"), QStringLiteral("from_key, to_key, rtt_ms, bytes_per_s, measured_ms"),
                                       QStringLiteral("from_key, to_key")));
            q.addBindValue(text(link.fromKeyId));
            q.addBindValue(text(link.toKeyId));
            q.addBindValue(link.rttMs);
            q.addBindValue(link.bytesPerSecond);
            q.addBindValue(link.measuredMs);
            if (Result<void> done = exec(q, "recording a link"); !done)
                return done;
        }
        QSqlQuery forget = query(QStringLiteral("DELETE FROM links WHERE measured_ms < ?"));
        forget.addBindValue(forgetBeforeMs);
        return exec(forget, "forgetting old links");
    });
}

Result<std::vector<LinkRecord>> SqlCoordinatorStore::links(qint64 sinceMs)
{
    QSqlQuery q = query(QStringLiteral("SELECT from_key, to_key, rtt_ms, bytes_per_s, measured_ms FROM links"
                                       " WHERE measured_ms >= ?"));
    q.addBindValue(sinceMs);
    if (Result<void> done = exec(q, "reading links"); !done)
        return done.error();
    std::vector<LinkRecord> links;
    while (q.next()) {
        links.push_back({q.value(0).toString(), q.value(1).toString(), q.value(2).toDouble(), q.value(3).toDouble(),
                         q.value(4).toLongLong()});
    }
    return links;
}

Result<void> SqlCoordinatorStore::addCheckpoint(const CheckpointRecord &checkpoint)
{
    QSqlQuery q = query(upsert(QStringLiteral("checkpoints"), QStringLiteral("round, file, sha256, bytes, params_hash, val_loss"),
                               QStringLiteral("round")));
    q.addBindValue(checkpoint.round);
    q.addBindValue(text(checkpoint.fileName));
    q.addBindValue(text(checkpoint.sha256));
    q.addBindValue(checkpoint.bytes);
    q.addBindValue(text(checkpoint.parametersHash));
    q.addBindValue(optionalDouble(checkpoint.validationLoss));
    return exec(q, "saving a checkpoint");
}

Result<std::optional<CheckpointRecord>> SqlCoordinatorStore::latestCheckpoint()
{
    Result<std::vector<CheckpointRecord>> list = selectCheckpoints(QStringLiteral("ORDER BY round DESC LIMIT 1"), 0);
    if (!list)
        return list.error();
    if (list->empty())
        return std::optional<CheckpointRecord>();
    return std::optional<CheckpointRecord>(list->front());
}

Result<std::optional<CheckpointRecord>> SqlCoordinatorStore::checkpoint(qint64 round)
{
    Result<std::vector<CheckpointRecord>> list = selectCheckpoints(QStringLiteral("WHERE round = ?"), round);
    if (!list)
        return list.error();
    if (list->empty())
        return std::optional<CheckpointRecord>();
    return std::optional<CheckpointRecord>(list->front());
}

Result<std::vector<CheckpointRecord>> SqlCoordinatorStore::checkpoints()
{
    return selectCheckpoints(QStringLiteral("ORDER BY round"), 0);
}

Result<void> SqlCoordinatorStore::setValidationLoss(qint64 round, double loss)
{
    m_knownRound.reset();
    return inTransaction([&]() -> Result<void> {
        QSqlQuery checkpoint = query(QStringLiteral("UPDATE checkpoints SET val_loss = ? WHERE round = ?"));
        checkpoint.addBindValue(loss);
        checkpoint.addBindValue(round);
        if (Result<void> done = exec(checkpoint, "recording a validation loss"); !done)
            return done;
        QSqlQuery roundRow = query(QStringLiteral("UPDATE rounds SET val_loss = ? WHERE number = ?"));
        roundRow.addBindValue(loss);
        roundRow.addBindValue(round - 1);
        return exec(roundRow, "recording a validation loss");
    });
}

} // namespace swarmtrain
