// SqlCoordinatorStore's part for several coordinator instances on one database (issue 20): the
// lease of the instance that runs the timed work, the signed requests seen by any of them, and the
// rate limits they all count against.
#include "SqlCoordinatorStore.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <cmath>

namespace swarmtrain {

namespace {

// How often recordRequest forgets the requests too old to be replayed anyway, and takeToken the
// buckets untouched for long.
constexpr qint64 kForgetRequestsEveryMs = 10'000;
// A bucket untouched this long is dropped (full again at any rate the coordinator allows).
constexpr qint64 kForgetBucketsAfterMs = 600'000;
// Tries of a bucket's read and conditional write before giving up (another instance wrote it each time).
constexpr int kBucketAttempts = 8;

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
        QSqlQuery forget = quickQuery(QStringLiteral("DELETE FROM seen_requests WHERE signed_ms < ?"));
        forget.addBindValue(forgetBeforeMs);
        if (Result<void> done = quickExec(forget, "forgetting old requests"); !done)
            return done.error();
        m_requestsForgottenMs = forgetBeforeMs;
    }
    QSqlQuery q = quickQuery(QStringLiteral("INSERT INTO seen_requests (signature, signed_ms) VALUES (?, ?)"
                                            " ON CONFLICT DO NOTHING"));
    q.addBindValue(text(signature));
    q.addBindValue(signedMs);
    if (Result<void> done = quickExec(q, "recording a request"); !done)
        return done.error();
    return q.numRowsAffected() == 1;
}

Result<qint64> SqlCoordinatorStore::takeToken(const QString &bucket, double perSecond, double burst, qint64 nowMs)
{
    if (nowMs - m_bucketsForgottenMs >= kForgetRequestsEveryMs) {
        QSqlQuery forget = quickQuery(QStringLiteral("DELETE FROM rate_buckets WHERE updated_ms < ?"));
        forget.addBindValue(nowMs - kForgetBucketsAfterMs);
        if (Result<void> done = quickExec(forget, "forgetting full rate buckets"); !done)
            return done.error();
        m_bucketsForgottenMs = nowMs;
    }
    // Read, then write only if no instance wrote it meanwhile (its version), else read again.
    for (int attempt = 0; attempt < kBucketAttempts; ++attempt) {
        QSqlQuery read =
            quickQuery(QStringLiteral("SELECT tokens, updated_ms, version FROM rate_buckets WHERE bucket = ?"));
        read.addBindValue(text(bucket));
        if (Result<void> done = quickExec(read, "reading a rate bucket"); !done)
            return done.error();
        if (!read.next()) {
            QSqlQuery insert = quickQuery(QStringLiteral("INSERT INTO rate_buckets (bucket, tokens, updated_ms, version)"
                                                         " VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING"));
            insert.addBindValue(text(bucket));
            insert.addBindValue(burst - 1.0);
            insert.addBindValue(nowMs);
            if (Result<void> done = quickExec(insert, "starting a rate bucket"); !done)
                return done.error();
            if (insert.numRowsAffected() == 1)
                return qint64(0);
            continue;
        }
        const qint64 updatedMs = read.value(1).toLongLong();
        const qint64 version = read.value(2).toLongLong();
        // Instances' clocks differ a little: time never runs backwards for a bucket.
        const qint64 elapsedMs = std::max<qint64>(0, nowMs - updatedMs);
        const double tokens = std::min(burst, read.value(0).toDouble() + double(elapsedMs) * perSecond / 1000.0);
        read.finish();
        if (tokens < 1.0)
            return qint64(std::ceil((1.0 - tokens) * 1000.0 / perSecond));
        QSqlQuery write = quickQuery(QStringLiteral("UPDATE rate_buckets SET tokens = ?, updated_ms = ?,"
                                                    " version = version + 1 WHERE bucket = ? AND version = ?"));
        write.addBindValue(tokens - 1.0);
        write.addBindValue(std::max(nowMs, updatedMs));
        write.addBindValue(text(bucket));
        write.addBindValue(version);
        if (Result<void> done = quickExec(write, "taking a token"); !done)
            return done.error();
        if (write.numRowsAffected() == 1)
            return qint64(0);
    }
    return makeError("the rate limit of " + bucket.toStdString() + " is written by too many instances at once");
}

} // namespace swarmtrain
