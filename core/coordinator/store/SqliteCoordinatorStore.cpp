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

const char kPeerColumns[] =
    "key_id, public_key, device, endpoint, reachable, client_version, ordinal, assigned_shards, joined_ms,"
    " last_seen_ms, state, pause_reason, tokens_per_s, base_round, rejected_requests, credit, tokens, address, offences,"
    " banned_reason, accepted_rounds, verified_rounds, quarantined, inner_steps, display_name";

const char kContributionColumns[] = "round, attempt, key_id, tokens, flops, seconds, loss, params_hash, bytes_up,"
                                    " bytes_down, accepted, credit, received_ms";

PeerRecord peerFromQuery(const QSqlQuery &query)
{
    PeerRecord peer;
    peer.keyId = query.value(0).toString();
    peer.publicKey = query.value(1).toByteArray();
    peer.deviceJson = query.value(2).toString().toUtf8();
    peer.endpoint = query.value(3).toString();
    peer.reachable = query.value(4).toBool();
    peer.clientVersion = query.value(5).toString();
    peer.ordinal = query.value(6).toLongLong();
    const QString shards = query.value(7).toString();
    peer.assignedShards = shards.isEmpty() ? QStringList() : shards.split(QLatin1Char(','));
    peer.joinedMs = query.value(8).toLongLong();
    peer.lastSeenMs = query.value(9).toLongLong();
    peer.state = query.value(10).toString();
    peer.pauseReason = query.value(11).toString();
    peer.tokensPerSecond = query.value(12).toDouble();
    peer.baseRound = query.value(13).toLongLong();
    peer.rejectedRequests = query.value(14).toLongLong();
    peer.credit = query.value(15).toDouble();
    peer.tokens = query.value(16).toLongLong();
    peer.address = query.value(17).toString();
    peer.offences = query.value(18).toLongLong();
    peer.bannedReason = query.value(19).toString();
    peer.acceptedRounds = query.value(20).toLongLong();
    peer.verifiedRounds = query.value(21).toLongLong();
    peer.quarantined = query.value(22).toBool();
    peer.innerSteps = query.value(23).toLongLong();
    peer.displayName = query.value(24).toString();
    return peer;
}

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

Result<void> SqliteCoordinatorStore::savePeer(const PeerRecord &peer)
{
    QSqlQuery q = query(QStringLiteral("INSERT OR REPLACE INTO peers (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                            .arg(QLatin1StringView(kPeerColumns)));
    q.addBindValue(text(peer.keyId));
    q.addBindValue(peer.publicKey.isNull() ? QByteArray("") : peer.publicKey);
    q.addBindValue(text(QString::fromUtf8(peer.deviceJson)));
    q.addBindValue(text(peer.endpoint));
    q.addBindValue(peer.reachable);
    q.addBindValue(text(peer.clientVersion));
    q.addBindValue(peer.ordinal);
    q.addBindValue(text(peer.assignedShards.join(QLatin1Char(','))));
    q.addBindValue(peer.joinedMs);
    q.addBindValue(peer.lastSeenMs);
    q.addBindValue(text(peer.state));
    q.addBindValue(text(peer.pauseReason));
    q.addBindValue(peer.tokensPerSecond);
    q.addBindValue(peer.baseRound);
    q.addBindValue(peer.rejectedRequests);
    q.addBindValue(peer.credit);
    q.addBindValue(peer.tokens);
    q.addBindValue(text(peer.address));
    q.addBindValue(peer.offences);
    q.addBindValue(text(peer.bannedReason));
    q.addBindValue(peer.acceptedRounds);
    q.addBindValue(peer.verifiedRounds);
    q.addBindValue(peer.quarantined);
    q.addBindValue(peer.innerSteps);
    q.addBindValue(text(peer.displayName));
    return exec(q, "saving a peer");
}

Result<std::vector<PeerRecord>> SqliteCoordinatorStore::selectPeers(const QString &sql, int limit)
{
    QSqlQuery q = query(sql);
    if (limit >= 0)
        q.addBindValue(limit);
    if (Result<void> done = exec(q, "reading peers"); !done)
        return done.error();
    std::vector<PeerRecord> peers;
    while (q.next())
        peers.push_back(peerFromQuery(q));
    return peers;
}

Result<std::optional<PeerRecord>> SqliteCoordinatorStore::peer(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM peers WHERE key_id = ?").arg(QLatin1StringView(kPeerColumns)));
    q.addBindValue(text(keyId));
    if (Result<void> done = exec(q, "reading a peer"); !done)
        return done.error();
    if (!q.next())
        return std::optional<PeerRecord>();
    return std::optional<PeerRecord>(peerFromQuery(q));
}

Result<std::vector<PeerRecord>> SqliteCoordinatorStore::peers()
{
    return selectPeers(QStringLiteral("SELECT %1 FROM peers ORDER BY ordinal").arg(QLatin1StringView(kPeerColumns)), -1);
}

Result<std::vector<PeerRecord>> SqliteCoordinatorStore::leaderboard(int limit)
{
    return selectPeers(QStringLiteral("SELECT %1 FROM peers ORDER BY credit DESC, ordinal LIMIT ?")
                           .arg(QLatin1StringView(kPeerColumns)),
                       limit);
}

Result<void> SqliteCoordinatorStore::recordHeartbeat(const QString &keyId, const QString &state, const QString &reason,
                                                     double tokensPerSecond, qint64 baseRound, qint64 innerSteps,
                                                     qint64 nowMs)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET state = ?, pause_reason = ?, tokens_per_s = ?, base_round = ?,"
                                       " inner_steps = ?, last_seen_ms = ? WHERE key_id = ?"));
    for (const QVariant &value : {QVariant(text(state)), QVariant(text(reason)), QVariant(tokensPerSecond),
                                  QVariant(baseRound), QVariant(innerSteps), QVariant(nowMs), QVariant(text(keyId))})
        q.addBindValue(value);
    return exec(q, "recording a heartbeat");
}

Result<void> SqliteCoordinatorStore::countRejectedRequest(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET rejected_requests = rejected_requests + 1 WHERE key_id = ?"));
    q.addBindValue(text(keyId));
    return exec(q, "counting a rejected request");
}

Result<qint64> SqliteCoordinatorStore::recordOffence(const QString &keyId, const QString &kind, const QString &detail,
                                                    qint64 nowMs, bool once)
{
    Result<qint64> count = makeError("no such peer");
    Result<void> done = inTransaction([&]() -> Result<void> {
        QSqlQuery seen = query(QStringLiteral("SELECT 1 FROM offences WHERE key_id = ? AND kind = ? AND detail = ?"));
        for (const QString &value : {keyId, kind, detail})
            seen.addBindValue(text(value));
        if (Result<void> selected = once ? exec(seen, "reading offences") : Result<void>(); !selected)
            return selected;
        if (!(once && seen.next())) { // else a retry of one already counted
            QSqlQuery insert = query(QStringLiteral("INSERT INTO offences (key_id, at_ms, kind, detail) VALUES (?, ?, ?, ?)"));
            insert.addBindValue(text(keyId));
            insert.addBindValue(nowMs);
            insert.addBindValue(text(kind));
            insert.addBindValue(text(detail));
            if (Result<void> inserted = exec(insert, "recording an offence"); !inserted)
                return inserted;
            QSqlQuery update = query(QStringLiteral("UPDATE peers SET offences = offences + 1 WHERE key_id = ?"));
            update.addBindValue(text(keyId));
            if (Result<void> updated = exec(update, "counting an offence"); !updated)
                return updated;
        }
        QSqlQuery read = query(QStringLiteral("SELECT offences FROM peers WHERE key_id = ?"));
        read.addBindValue(text(keyId));
        if (Result<void> selected = exec(read, "reading offences"); !selected)
            return selected;
        count = read.next() ? read.value(0).toLongLong() : qint64(0);
        return {};
    });
    if (!done)
        return done.error();
    return count;
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
