// SqlCoordinatorStore's part for verifiable contributions (issue 16): commitments, owners'
// reports about pieces, spot checks and their consequences for credit.
#include "SqlCoordinatorStore.h"

#include <QSqlQuery>
#include <QVariant>

namespace swarmtrain {

namespace {

const char kSpotCheckColumns[] = "round, attempt, member, verifier, state, assigned_ms, update_file, update_sha256,"
                                 " cosine, relative_norm, finished_ms, detail";

QVariant optionalReal(const std::optional<double> &value)
{
    return value ? QVariant(*value) : QVariant(QMetaType(QMetaType::Double));
}

std::optional<double> realOrNull(const QVariant &value)
{
    return value.isNull() ? std::nullopt : std::optional<double>(value.toDouble());
}

SpotCheckRecord spotCheckFromQuery(const QSqlQuery &q)
{
    SpotCheckRecord check;
    check.round = q.value(0).toLongLong();
    check.attempt = q.value(1).toInt();
    check.memberKeyId = q.value(2).toString();
    check.verifierKeyId = q.value(3).toString();
    check.state = spotCheckStateFromName(q.value(4).toString()).value_or(SpotCheckState::Expired);
    check.assignedMs = q.value(5).toLongLong();
    check.updateFile = q.value(6).toString();
    check.updateSha256 = q.value(7).toString();
    check.cosine = realOrNull(q.value(8));
    check.relativeNorm = realOrNull(q.value(9));
    check.finishedMs = q.value(10).toLongLong();
    check.detail = q.value(11).toString();
    return check;
}

} // namespace

Result<void> SqlCoordinatorStore::addCommitments(const std::vector<CommitmentRecord> &pieces)
{
    return inTransaction([&]() -> Result<void> {
        for (const CommitmentRecord &piece : pieces) {
            QSqlQuery q = query(QStringLiteral("INSERT INTO commitments (round, attempt, key_id, owner, sha256)"
                                               " VALUES (?, ?, ?, ?, ?)"));
            q.addBindValue(piece.round);
            q.addBindValue(piece.attempt);
            q.addBindValue(text(piece.keyId));
            q.addBindValue(text(piece.ownerKeyId));
            q.addBindValue(text(piece.sha256));
            if (Result<void> done = exec(q, "saving a commitment"); !done)
                return done;
        }
        return {};
    });
}

Result<std::vector<CommitmentRecord>> SqlCoordinatorStore::selectCommitments(QSqlQuery &q)
{
    if (Result<void> done = exec(q, "reading commitments"); !done)
        return done.error();
    std::vector<CommitmentRecord> list;
    while (q.next()) {
        list.push_back({q.value(0).toLongLong(), q.value(1).toInt(), q.value(2).toString(), q.value(3).toString(),
                        q.value(4).toString()});
    }
    return list;
}

Result<std::vector<CommitmentRecord>> SqlCoordinatorStore::commitments(qint64 round, int attempt)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, attempt, key_id, owner, sha256 FROM commitments"
                                       " WHERE round = ? AND attempt = ? ORDER BY key_id, owner"));
    q.addBindValue(round);
    q.addBindValue(attempt);
    return selectCommitments(q);
}

Result<std::vector<CommitmentRecord>> SqlCoordinatorStore::lastCommitments(const QString &keyId, qint64 beforeRound)
{
    QSqlQuery q = query(QStringLiteral(
        "SELECT round, attempt, key_id, owner, sha256 FROM commitments WHERE key_id = ? AND (round, attempt) ="
        " (SELECT round, attempt FROM commitments WHERE key_id = ? AND round < ? ORDER BY round DESC, attempt DESC"
        " LIMIT 1) ORDER BY owner"));
    q.addBindValue(text(keyId));
    q.addBindValue(text(keyId));
    q.addBindValue(beforeRound);
    return selectCommitments(q);
}

Result<void> SqlCoordinatorStore::addUpdateReports(const std::vector<UpdateReportRecord> &reports)
{
    return inTransaction([&]() -> Result<void> {
        for (const UpdateReportRecord &report : reports) {
            QSqlQuery q = query(QStringLiteral("INSERT INTO update_reports (round, attempt, reporter, sender, kind, detail)"
                                               " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"));
            q.addBindValue(report.round);
            q.addBindValue(report.attempt);
            q.addBindValue(text(report.reporterKeyId));
            q.addBindValue(text(report.senderKeyId));
            q.addBindValue(text(report.kind));
            q.addBindValue(text(report.detail));
            if (Result<void> done = exec(q, "saving a report about a piece"); !done)
                return done;
        }
        return {};
    });
}

Result<std::vector<UpdateReportRecord>> SqlCoordinatorStore::updateReports(qint64 round, int attempt)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, attempt, reporter, sender, kind, detail FROM update_reports"
                                       " WHERE round = ? AND attempt = ? ORDER BY sender, reporter"));
    q.addBindValue(round);
    q.addBindValue(attempt);
    return selectUpdateReports(q);
}

Result<std::vector<UpdateReportRecord>> SqlCoordinatorStore::disputes(qint64 fromRound, qint64 toRound)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, attempt, reporter, sender, kind, detail FROM update_reports"
                                       " WHERE round >= ? AND round <= ? AND kind = 'disputed'"
                                       " ORDER BY round, attempt, reporter, sender"));
    q.addBindValue(fromRound);
    q.addBindValue(toRound);
    return selectUpdateReports(q);
}

Result<std::vector<UpdateReportRecord>> SqlCoordinatorStore::evidenceRulings(qint64 fromRound, qint64 toRound)
{
    QSqlQuery q = query(QStringLiteral("SELECT round, attempt, reporter, sender, kind, detail FROM update_reports"
                                       " WHERE round >= ? AND round <= ?"
                                       " AND kind IN ('evidence_upheld', 'evidence_refuted')"
                                       " ORDER BY round, attempt, sender"));
    q.addBindValue(fromRound);
    q.addBindValue(toRound);
    return selectUpdateReports(q);
}

Result<std::vector<UpdateReportRecord>> SqlCoordinatorStore::selectUpdateReports(QSqlQuery &q)
{
    if (Result<void> done = exec(q, "reading reports about pieces"); !done)
        return done.error();
    std::vector<UpdateReportRecord> list;
    while (q.next()) {
        list.push_back({q.value(0).toLongLong(), q.value(1).toInt(), q.value(2).toString(), q.value(3).toString(),
                        q.value(4).toString(), q.value(5).toString()});
    }
    return list;
}

Result<void> SqlCoordinatorStore::saveSpotCheck(const SpotCheckRecord &check)
{
    QSqlQuery q = query(upsert(QStringLiteral("spot_checks"), QLatin1StringView(kSpotCheckColumns), QStringLiteral("round, member")));
    q.addBindValue(check.round);
    q.addBindValue(check.attempt);
    q.addBindValue(text(check.memberKeyId));
    q.addBindValue(text(check.verifierKeyId));
    q.addBindValue(spotCheckStateName(check.state));
    q.addBindValue(check.assignedMs);
    q.addBindValue(text(check.updateFile));
    q.addBindValue(text(check.updateSha256));
    q.addBindValue(optionalReal(check.cosine));
    q.addBindValue(optionalReal(check.relativeNorm));
    q.addBindValue(check.finishedMs);
    q.addBindValue(text(check.detail));
    return exec(q, "saving a spot check");
}

Result<std::optional<SpotCheckRecord>> SqlCoordinatorStore::spotCheck(qint64 round, const QString &memberKeyId)
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM spot_checks WHERE round = ? AND member = ?")
                            .arg(QLatin1StringView(kSpotCheckColumns)));
    q.addBindValue(round);
    q.addBindValue(text(memberKeyId));
    if (Result<void> done = exec(q, "reading a spot check"); !done)
        return done.error();
    if (!q.next())
        return std::optional<SpotCheckRecord>();
    return std::optional<SpotCheckRecord>(spotCheckFromQuery(q));
}

Result<std::vector<SpotCheckRecord>> SqlCoordinatorStore::openSpotChecks()
{
    QSqlQuery q = query(QStringLiteral("SELECT %1 FROM spot_checks WHERE state IN ('awaiting_update', 'checking')"
                                       " ORDER BY assigned_ms, round, member")
                            .arg(QLatin1StringView(kSpotCheckColumns)));
    if (Result<void> done = exec(q, "reading spot checks"); !done)
        return done.error();
    std::vector<SpotCheckRecord> list;
    while (q.next())
        list.push_back(spotCheckFromQuery(q));
    return list;
}

Result<void> SqlCoordinatorStore::revokeContribution(qint64 round, int attempt, const QString &keyId)
{
    return inTransaction([&]() -> Result<void> {
        QSqlQuery read = query(QStringLiteral("SELECT credit, tokens, accepted FROM contributions WHERE round = ? AND"
                                              " attempt = ? AND key_id = ?"));
        read.addBindValue(round);
        read.addBindValue(attempt);
        read.addBindValue(text(keyId));
        if (Result<void> done = exec(read, "reading a contribution"); !done)
            return done;
        if (!read.next())
            return makeError("no such contribution");
        const bool wasAccepted = read.value(2).toBool();
        const double credit = wasAccepted ? read.value(0).toDouble() : 0.0;
        const qint64 tokens = wasAccepted ? read.value(1).toLongLong() : 0;
        QSqlQuery revoke = query(QStringLiteral("UPDATE contributions SET accepted = 0, credit = 0 WHERE round = ? AND"
                                                " attempt = ? AND key_id = ?"));
        revoke.addBindValue(round);
        revoke.addBindValue(attempt);
        revoke.addBindValue(text(keyId));
        if (Result<void> done = exec(revoke, "revoking a contribution"); !done)
            return done;
        QSqlQuery peer = query(QStringLiteral("UPDATE peers SET credit = CASE WHEN credit > ? THEN credit - ? ELSE 0 END,"
                                              " tokens = CASE WHEN tokens > ? THEN tokens - ? ELSE 0 END,"
                                              " accepted_rounds = 0, verified_rounds = 0 WHERE key_id = ?"));
        for (const QVariant &value : {QVariant(credit), QVariant(credit), QVariant(tokens), QVariant(tokens)})
            peer.addBindValue(value);
        peer.addBindValue(text(keyId));
        return exec(peer, "taking credit back");
    });
}

Result<void> SqlCoordinatorStore::countVerifiedRound(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET verified_rounds = verified_rounds + 1, quarantined = 0"
                                       " WHERE key_id = ?"));
    q.addBindValue(text(keyId));
    return exec(q, "counting a verified round");
}

Result<void> SqlCoordinatorStore::quarantinePeer(const QString &keyId)
{
    QSqlQuery q = query(QStringLiteral("UPDATE peers SET quarantined = 1 WHERE key_id = ?"));
    q.addBindValue(text(keyId));
    return exec(q, "quarantining a peer");
}

Result<void> SqlCoordinatorStore::banPeer(const QString &keyId, const QString &reason)
{
    return inTransaction([&]() -> Result<void> {
        QSqlQuery peer = query(QStringLiteral("UPDATE peers SET banned_reason = ?, credit = 0, tokens = 0,"
                                              " accepted_rounds = 0, verified_rounds = 0 WHERE key_id = ?"));
        peer.addBindValue(text(reason));
        peer.addBindValue(text(keyId));
        if (Result<void> banned = exec(peer, "banning a peer"); !banned)
            return banned;
        QSqlQuery work = query(QStringLiteral("UPDATE contributions SET credit = 0 WHERE key_id = ?"));
        work.addBindValue(text(keyId));
        return exec(work, "taking a banned peer's credit");
    });
}

} // namespace swarmtrain
