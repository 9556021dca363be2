#include "RateLimiter.h"

#include <QElapsedTimer>

#include <cmath>

namespace swarmtrain {

namespace {

qint64 monotonicMs()
{
    static const QElapsedTimer started = [] {
        QElapsedTimer timer;
        timer.start();
        return timer;
    }();
    return started.elapsed();
}

} // namespace

RateLimiter::RateLimiter(RateLimit limit, Clock clock, qsizetype maxKeys)
    : m_limit(limit), m_clock(clock ? std::move(clock) : Clock(monotonicMs)), m_maxKeys(maxKeys)
{
    m_limit.burst = std::max(m_limit.burst, 1.0);
}

double RateLimiter::refilled(const Bucket &bucket, qint64 nowMs) const
{
    const double elapsedS = double(std::max<qint64>(0, nowMs - bucket.updatedMs)) / 1000.0;
    return std::min(m_limit.burst, bucket.tokens + elapsedS * m_limit.perSecond);
}

qint64 RateLimiter::take(const QString &key)
{
    if (m_limit.perSecond <= 0)
        return 0;
    const qint64 now = m_clock();
    auto found = m_buckets.find(key);
    if (found == m_buckets.end()) {
        if (m_buckets.size() >= m_maxKeys)
            dropFullBuckets(now);
        if (m_buckets.size() >= m_maxKeys)
            return 0;
        found = m_buckets.insert(key, Bucket{m_limit.burst, now});
    }
    Bucket &bucket = found.value();
    bucket.tokens = refilled(bucket, now);
    bucket.updatedMs = now;
    if (bucket.tokens >= 1.0) {
        bucket.tokens -= 1.0;
        return 0;
    }
    return std::max<qint64>(1, qint64(std::ceil((1.0 - bucket.tokens) / m_limit.perSecond * 1000.0)));
}

void RateLimiter::dropFullBuckets(qint64 nowMs)
{
    for (auto it = m_buckets.begin(); it != m_buckets.end();) {
        if (refilled(it.value(), nowMs) >= m_limit.burst)
            it = m_buckets.erase(it);
        else
            ++it;
    }
}

} // namespace swarmtrain
