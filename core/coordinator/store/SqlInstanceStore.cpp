// SqlCoordinatorStore's part for several coordinator instances on one database (issue 20): the
// lease of the instance that runs the timed work, and the signed requests seen by any of them.
#include "SqlCoordinatorStore.h"

#include <QSqlQuery>
#include <QVariant>

namespace swarmtrain {

namespace {

// How often recordRequest forgets the requests too old to be replayed anyway.
constexpr qint64 kForgetRequestsEveryMs = 10'000;

} // namespace

Result<bool> SqlCoordinatorStore::takeLease(const QString &name, const QString &holder, qint64 nowMs, qint64 untilMs)
{
    // One statement, atomic on both databases: of two instances after an expired lease, the
    // second's update finds the first's row and its WHERE no longer holds.
    QSqlQuery q = query(QStringLiteral("INSERT INTO leases (name, holder, until_ms) VALUES (?, ?, ?)"
                                       " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
                                       " until_ms = excluded.until_ms"
                                       " WHERE leases.holder = excluded.holder OR leases.until_ms < ?"));
    q.addBindValue(text(name));
    q.addBindValue(text(holder));
    q.addBindValue(untilMs);
    q.addBindValue(nowMs);
    if (Result<void> done = exec(q, "taking the lease"); !done)
        return done.error();
    return q.numRowsAffected() == 1;
}

Result<bool> SqlCoordinatorStore::recordRequest(const QString &signature, qint64 signedMs, qint64 forgetBeforeMs)
{
    if (forgetBeforeMs - m_requestsForgottenMs >= kForgetRequestsEveryMs) {
        QSqlQuery forget = query(QStringLiteral("DELETE FROM seen_requests WHERE signed_ms < ?"));
        forget.addBindValue(forgetBeforeMs);
        if (Result<void> done = exec(forget, "forgetting old requests"); !done)
            return done.error();
        m_requestsForgottenMs = forgetBeforeMs;
    }
    QSqlQuery q = query(QStringLiteral("INSERT INTO seen_requests (signature, signed_ms) VALUES (?, ?)"
                                       " ON CONFLICT DO NOTHING"));
    q.addBindValue(text(signature));
    q.addBindValue(signedMs);
    if (Result<void> done = exec(q, "recording a request"); !done)
        return done.error();
    return q.numRowsAffected() == 1;
}

} // namespace swarmtrain
