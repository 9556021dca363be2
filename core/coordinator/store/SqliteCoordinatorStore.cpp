#include "SqliteCoordinatorStore.h"

#include "SqliteSchema.h"

#include <QAtomicInteger>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace swarmtrain {

namespace {

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

QVariant SqliteCoordinatorStore::text(const QString &value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

SqliteCoordinatorStore::SqliteCoordinatorStore(QString connectionName)
    : m_connectionName(std::move(connectionName))
    , m_db(QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName))
{
}

SqliteCoordinatorStore::~SqliteCoordinatorStore()
{
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

Result<std::unique_ptr<SqliteCoordinatorStore>> SqliteCoordinatorStore::open(const std::filesystem::path &file)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")))
        return makeError("Qt's SQLite driver (QSQLITE) is not installed");
    const QString name = QStringLiteral("swarmtrain-coordinator-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1));
    std::unique_ptr<SqliteCoordinatorStore> store(new SqliteCoordinatorStore(name));
    store->m_db.setDatabaseName(QString::fromStdString(file.string()));
    if (!store->m_db.open())
        return makeError("cannot open " + file.string() + ": " + store->m_db.lastError().text().toStdString());
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON",
                               "PRAGMA busy_timeout=5000"}) {
        QSqlQuery query = store->query(QString::fromLatin1(pragma));
        if (Result<void> done = store->exec(query, pragma); !done)
            return makeError(file.string() + ": " + done.error().message);
    }
    if (Result<void> migrated = migrateSqliteSchema(store->m_db); !migrated)
        return makeError(file.string() + ": " + migrated.error().message);
    if (Result<void> filled = store->fillSubnets(); !filled)
        return makeError(file.string() + ": " + filled.error().message);
    return store;
}

QSqlQuery SqliteCoordinatorStore::query(const QString &sql)
{
    QSqlQuery query(m_db);
    query.prepare(sql);
    return query;
}

Result<void> SqliteCoordinatorStore::exec(QSqlQuery &query, const char *what)
{
    if (!query.exec())
        return makeError(std::string(what) + " failed: " + query.lastError().text().toStdString());
    return {};
}

Result<void> SqliteCoordinatorStore::inTransaction(const std::function<Result<void>()> &work)
{
    if (!m_db.transaction())
        return makeError("cannot begin a transaction: " + m_db.lastError().text().toStdString());
    Result<void> result = work();
    if (!result) {
        m_db.rollback();
        return result;
    }
    if (!m_db.commit()) {
        const std::string why = m_db.lastError().text().toStdString();
        m_db.rollback();
        return makeError("cannot commit: " + why);
    }
    return {};
}

Result<std::optional<QString>> SqliteCoordinatorStore::meta(const QString &key)
{
    QSqlQuery q = query(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    q.addBindValue(text(key));
    if (Result<void> done = exec(q, "reading meta"); !done)
        return done.error();
    if (!q.next())
        return std::optional<QString>();
    return std::optional<QString>(q.value(0).toString());
}

Result<void> SqliteCoordinatorStore::setMeta(const QString &key, const QString &value)
{
    QSqlQuery q = query(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"));
    q.addBindValue(text(key));
    q.addBindValue(text(value));
    return exec(q, "writing meta");
}

Result<std::vector<RoundRecord>> SqliteCoordinatorStore::selectRounds(const QString &where, qint64 value)
{
    QSqlQuery q = query(QStringLiteral("SELECT number, attempt, state, gathering_since_ms, started_ms, deadline_ms,"
                                       " finished_ms, members, agreed_hash, uploader, val_loss, share, schedule_advance FROM rounds ")
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
        rounds.push_back(std::move(round));
    }
    return rounds;
}

Result<std::optional<RoundRecord>> SqliteCoordinatorStore::currentRound()
{
    Result<std::vector<RoundRecord>> rounds = selectRounds(QStringLiteral("ORDER BY number DESC LIMIT 1"), 0);
    if (!rounds)
        return rounds.error();
    if (rounds->empty())
        return std::optional<RoundRecord>();
    return std::optional<RoundRecord>(rounds->front());
}

Result<std::optional<RoundRecord>> SqliteCoordinatorStore::round(qint64 number)
{
    Result<std::vector<RoundRecord>> rounds = selectRounds(QStringLiteral("WHERE number = ?"), number);
    if (!rounds)
        return rounds.error();
    if (rounds->empty())
        return std::optional<RoundRecord>();
    return std::optional<RoundRecord>(rounds->front());
}

Result<void> SqliteCoordinatorStore::writeRound(const RoundRecord &round)
{
    QSqlQuery q = query(QStringLiteral("INSERT OR REPLACE INTO rounds (number, attempt, state, gathering_since_ms,"
                                       " started_ms, deadline_ms, finished_ms, members, agreed_hash, uploader, val_loss,"
                                       " share, schedule_advance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (const QVariant &value :
         {QVariant(round.number), QVariant(round.attempt), QVariant(roundStateName(round.state)),
          QVariant(round.gatheringSinceMs), QVariant(round.startedMs), QVariant(round.deadlineMs),
          QVariant(round.finishedMs), QVariant(membersToJson(round.members)), QVariant(text(round.agreedHash)),
          QVariant(text(round.uploaderKeyId)), optionalDouble(round.validationLoss), QVariant(round.share),
          QVariant(round.scheduleAdvance)})
        q.addBindValue(value);
    return exec(q, "saving a round");
}

Result<void> SqliteCoordinatorStore::saveRound(const RoundRecord &round)
{
    return writeRound(round);
}

Result<void> SqliteCoordinatorStore::reopenRound(qint64 abandoned, const RoundRecord &reopened)
{
    return inTransaction([&]() -> Result<void> {
        QSqlQuery drop = query(QStringLiteral("DELETE FROM rounds WHERE number = ?"));
        drop.addBindValue(abandoned);
        if (Result<void> done = exec(drop, "dropping a round"); !done)
            return done;
        return writeRound(reopened);
    });
}

Result<void> SqliteCoordinatorStore::addContribution(const ContributionRecord &c)
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
    q.addBindValue(c.accepted ? QVariant(*c.accepted) : QVariant(QMetaType(QMetaType::Bool)));
    q.addBindValue(c.credit);
    q.addBindValue(c.receivedMs);
    return exec(q, "saving a contribution");
}

Result<std::vector<ContributionRecord>> SqliteCoordinatorStore::contributions(qint64 round, int attempt)
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM contributions WHERE round = ? AND attempt = ? ORDER BY received_ms,"
                                       " rowid")
                            .arg(QLatin1StringView(kContributionColumns)));
    q.addBindValue(round);
    q.addBindValue(attempt);
    if (Result<void> done = exec(q, "reading contributions"); !done)
        return done.error();
    std::vector<ContributionRecord> list;
    while (q.next())
        list.push_back(contributionFromQuery(q));
    return list;
}

Result<std::optional<ContributionRecord>> SqliteCoordinatorStore::lastContribution(const QString &keyId)
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

Result<void> SqliteCoordinatorStore::closeRound(const RoundRecord &closed, const std::vector<ContributionRecord> &verdicts,
                                                const std::optional<RoundRecord> &next)
{
    return inTransaction([&]() -> Result<void> {
        for (const ContributionRecord &verdict : verdicts) {
            QSqlQuery update = query(QStringLiteral("UPDATE contributions SET accepted = ?, credit = ? WHERE round = ? AND"
                                                    " attempt = ? AND key_id = ?"));
            update.addBindValue(verdict.accepted.value_or(false));
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
        if (Result<void> done = writeRound(closed); !done)
            return done;
        if (next)
            return writeRound(*next);
        return {};
    });
}

Result<std::vector<CheckpointRecord>> SqliteCoordinatorStore::selectCheckpoints(const QString &where, qint64 value)
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

Result<void> SqliteCoordinatorStore::recordLinks(const std::vector<LinkRecord> &links, qint64 forgetBeforeMs)
{
    return inTransaction([&]() -> Result<void> {
        for (const LinkRecord &link : links) {
            QSqlQuery q = query(QStringLiteral("INSERT OR REPLACE INTO links (from_key, to_key, rtt_ms, bytes_per_s,"
                                               " measured_ms) VALUES (?, ?, ?, ?, ?)"));
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

Result<std::vector<LinkRecord>> SqliteCoordinatorStore::links(qint64 sinceMs)
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

Result<void> SqliteCoordinatorStore::addCheckpoint(const CheckpointRecord &checkpoint)
{
    QSqlQuery q = query(QStringLiteral("INSERT OR REPLACE INTO checkpoints (round, file, sha256, bytes, params_hash,"
                                       " val_loss) VALUES (?, ?, ?, ?, ?, ?)"));
    q.addBindValue(checkpoint.round);
    q.addBindValue(text(checkpoint.fileName));
    q.addBindValue(text(checkpoint.sha256));
    q.addBindValue(checkpoint.bytes);
    q.addBindValue(text(checkpoint.parametersHash));
    q.addBindValue(optionalDouble(checkpoint.validationLoss));
    return exec(q, "saving a checkpoint");
}

Result<std::optional<CheckpointRecord>> SqliteCoordinatorStore::latestCheckpoint()
{
    Result<std::vector<CheckpointRecord>> list = selectCheckpoints(QStringLiteral("ORDER BY round DESC LIMIT 1"), 0);
    if (!list)
        return list.error();
    if (list->empty())
        return std::optional<CheckpointRecord>();
    return std::optional<CheckpointRecord>(list->front());
}

Result<std::optional<CheckpointRecord>> SqliteCoordinatorStore::checkpoint(qint64 round)
{
    Result<std::vector<CheckpointRecord>> list = selectCheckpoints(QStringLiteral("WHERE round = ?"), round);
    if (!list)
        return list.error();
    if (list->empty())
        return std::optional<CheckpointRecord>();
    return std::optional<CheckpointRecord>(list->front());
}

Result<std::vector<CheckpointRecord>> SqliteCoordinatorStore::checkpoints()
{
    return selectCheckpoints(QStringLiteral("ORDER BY round"), 0);
}

Result<void> SqliteCoordinatorStore::setValidationLoss(qint64 round, double loss)
{
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
