#include "SqlCoordinatorStore.h"

#include "PeerAddress.h"

#include <QSqlQuery>
#include <QVariant>

namespace swarmtrain {

namespace {

const char kPeerColumns[] =
    "key_id, public_key, device, endpoint, reachable, client_version, ordinal, assigned_shards, joined_ms,"
    " last_seen_ms, state, pause_reason, tokens_per_s, base_round, rejected_requests, credit, tokens, address, offences,"
    " banned_reason, accepted_rounds, verified_rounds, quarantined, inner_steps, display_name";
// Written with the peer, never read into PeerRecord: derived from its address.
const char kDerivedPeerColumns[] = ", subnet";

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

} // namespace

Result<void> SqlCoordinatorStore::savePeer(const PeerRecord &peer)
{
    QSqlQuery q = query(upsert(QStringLiteral("peers"),
                               QLatin1StringView(kPeerColumns) + QLatin1StringView(kDerivedPeerColumns), QStringLiteral("key_id")));
    q.addBindValue(text(peer.keyId));
    q.addBindValue(peer.publicKey.isNull() ? QByteArray("") : peer.publicKey);
    q.addBindValue(text(QString::fromUtf8(peer.deviceJson)));
    q.addBindValue(text(peer.endpoint));
    q.addBindValue(int(peer.reachable));
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
    q.addBindValue(int(peer.quarantined));
    q.addBindValue(peer.innerSteps);
    q.addBindValue(text(peer.displayName));
    q.addBindValue(text(subnetOf(QHostAddress(peer.address))));
    return exec(q, "saving a peer");
}

Result<std::vector<PeerRecord>> SqlCoordinatorStore::selectPeers(const QString &sql, const QVariant &value)
{
    QSqlQuery q = query(sql);
    if (value.isValid())
        q.addBindValue(value);
    if (Result<void> done = exec(q, "reading peers"); !done)
        return done.error();
    std::vector<PeerRecord> peers;
    while (q.next())
        peers.push_back(peerFromQuery(q));
    return peers;
}

Result<std::optional<PeerRecord>> SqlCoordinatorStore::peer(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM peers WHERE key_id = ?").arg(QLatin1StringView(kPeerColumns)));
    q.addBindValue(text(keyId));
    if (Result<void> done = exec(q, "reading a peer"); !done)
        return done.error();
    if (!q.next())
        return std::optional<PeerRecord>();
    return std::optional<PeerRecord>(peerFromQuery(q));
}

Result<std::vector<PeerRecord>> SqlCoordinatorStore::peers()
{
    return selectPeers(QStringLiteral("SELECT %1 FROM peers ORDER BY ordinal").arg(QLatin1StringView(kPeerColumns)), {});
}

Result<std::vector<PeerRecord>> SqlCoordinatorStore::peersSeenSince(qint64 sinceMs)
{
    return selectPeers(QStringLiteral("SELECT %1 FROM peers WHERE last_seen_ms >= ? ORDER BY ordinal")
                           .arg(QLatin1StringView(kPeerColumns)),
                       sinceMs);
}

Result<qint64> SqlCoordinatorStore::peerCount()
{
    QSqlQuery q = query(QStringLiteral("SELECT COUNT(*) FROM peers"));
    if (Result<void> done = exec(q, "counting the peers"); !done)
        return done.error();
    return q.next() ? q.value(0).toLongLong() : qint64(0);
}

Result<qint64> SqlCoordinatorStore::nextOrdinal()
{
    QSqlQuery q = query(QStringLiteral("SELECT MAX(ordinal) FROM peers"));
    if (Result<void> done = exec(q, "reading the last ordinal"); !done)
        return done.error();
    return q.next() && !q.value(0).isNull() ? q.value(0).toLongLong() + 1 : qint64(0);
}

Result<NearbyPeers> SqlCoordinatorStore::onlinePeersNear(const QString &address, qint64 seenSinceMs,
                                                            const QString &exceptKeyId, qint64 atMost)
{
    NearbyPeers nearby;
    const QHostAddress parsed(address);
    if (parsed.isNull())
        return nearby;
    const QString column[] = {QStringLiteral("address"), QStringLiteral("subnet")};
    const QString value[] = {normalizedAddress(parsed).toString(), subnetOf(parsed)};
    qint64 *count[] = {&nearby.sameAddress, &nearby.sameSubnet};
    for (int i = 0; i < 2; ++i) {
        QSqlQuery q = query(QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM peers WHERE %1 = ? AND last_seen_ms >= ?"
                                           " AND key_id != ? AND banned_reason = '' LIMIT ?) AS near")
                                .arg(column[i]));
        q.addBindValue(value[i]);
        q.addBindValue(seenSinceMs);
        q.addBindValue(text(exceptKeyId));
        q.addBindValue(atMost);
        if (Result<void> done = exec(q, "counting the peers near an address"); !done)
            return done.error();
        *count[i] = q.next() ? q.value(0).toLongLong() : 0;
    }
    return nearby;
}

Result<void> SqlCoordinatorStore::fillSubnets()
{
    QSqlQuery read = query(QStringLiteral("SELECT key_id, address FROM peers WHERE subnet = '' AND address != ''"));
    if (Result<void> done = exec(read, "reading peers without a subnet"); !done)
        return done;
    std::vector<std::pair<QString, QString>> filled;
    while (read.next())
        filled.emplace_back(read.value(0).toString(), subnetOf(QHostAddress(read.value(1).toString())));
    read.finish();
    return inTransaction([&]() -> Result<void> {
        for (const auto &[keyId, subnet] : filled) {
            QSqlQuery q = query(QStringLiteral("UPDATE peers SET subnet = ? WHERE key_id = ?"));
            q.addBindValue(text(subnet));
            q.addBindValue(text(keyId));
            if (Result<void> done = exec(q, "storing a peer's subnet"); !done)
                return done;
        }
        return {};
    });
}

Result<std::vector<PeerRecord>> SqlCoordinatorStore::leaderboard(int limit)
{
    return selectPeers(QStringLiteral("SELECT %1 FROM peers ORDER BY credit DESC, ordinal LIMIT ?")
                           .arg(QLatin1StringView(kPeerColumns)),
                       QVariant(limit));
}

Result<void> SqlCoordinatorStore::recordHeartbeat(const QString &keyId, const QString &state, const QString &reason,
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

Result<void> SqlCoordinatorStore::spendReadiness(const QString &keyId, qint64 nextBaseRound)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET state = 'training', base_round = ?, inner_steps = 0"
                                       " WHERE key_id = ? AND state = 'ready' AND base_round < ?"));
    for (const QVariant &value : {QVariant(nextBaseRound), QVariant(text(keyId)), QVariant(nextBaseRound)})
        q.addBindValue(value);
    return exec(q, "spending a peer's readiness");
}

Result<void> SqlCoordinatorStore::countRejectedRequest(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET rejected_requests = rejected_requests + 1 WHERE key_id = ?"));
    q.addBindValue(text(keyId));
    return exec(q, "counting a rejected request");
}

Result<qint64> SqlCoordinatorStore::recordOffence(const QString &keyId, const QString &kind, const QString &detail,
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

Result<void> SqlCoordinatorStore::creditPipelineStep(qint64 step, const std::vector<StepCredit> &credits)
{
    return inTransaction([&]() -> Result<void> {
        // The marker first: of two instances crediting the step, the second waits for the first's
        // row lock here, then finds the step credited and changes nothing.
        QSqlQuery first = query(QStringLiteral("INSERT INTO meta (key, value) VALUES ('pipeline_credited_step', '-1')"
                                               " ON CONFLICT DO NOTHING"));
        if (Result<void> done = exec(first, "marking a pipeline step credited"); !done)
            return done;
        QSqlQuery mark = query(QStringLiteral("UPDATE meta SET value = ? WHERE key = 'pipeline_credited_step'"
                                              " AND CAST(value AS BIGINT) < ?"));
        mark.addBindValue(text(QString::number(step)));
        mark.addBindValue(step);
        if (Result<void> done = exec(mark, "marking a pipeline step credited"); !done)
            return done;
        if (mark.numRowsAffected() != 1)
            return {}; // credited already
        for (const StepCredit &credit : credits) {
            QSqlQuery q = query(QStringLiteral("UPDATE peers SET credit = credit + ?, tokens = tokens + ? WHERE key_id = ?"
                                               " AND banned_reason = ''"));
            q.addBindValue(credit.credit);
            q.addBindValue(credit.tokens);
            q.addBindValue(text(credit.keyId));
            if (Result<void> done = exec(q, "crediting a pipeline peer"); !done)
                return done;
        }
        return {};
    });
}

} // namespace swarmtrain
