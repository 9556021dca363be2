#pragma once

#include <QHash>
#include <QString>

#include <functional>

namespace swarmtrain {

// A token bucket's shape: `perSecond` requests on average, bursts of up to `burst`. Zero rate: no limit.
struct RateLimit {
    double perSecond = 0;
    double burst = 0;
};

// Token buckets by key (a peer's key id, a client's address). A key's bucket starts full; a
// request takes one token. Buckets that have refilled are dropped when the table grows past
// `maxKeys`; beyond that new keys are let through unlimited rather than held in memory (a
// stranger with many addresses must not lock honest newcomers out).
class RateLimiter {
public:
    using Clock = std::function<qint64()>; // milliseconds, monotonic

    explicit RateLimiter(RateLimit limit, Clock clock = {}, qsizetype maxKeys = 100'000);

    // 0 when a request of `key` may go now (and is counted), else the milliseconds until it may.
    qint64 take(const QString &key);
    qsizetype trackedKeys() const { return m_buckets.size(); }

private:
    struct Bucket {
        double tokens;
        qint64 updatedMs;
    };

    double refilled(const Bucket &bucket, qint64 nowMs) const;
    void dropFullBuckets(qint64 nowMs);

    RateLimit m_limit;
    Clock m_clock;
    qsizetype m_maxKeys;
    QHash<QString, Bucket> m_buckets;
};

} // namespace swarmtrain
