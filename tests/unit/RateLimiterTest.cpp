#include "RateLimiter.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

class RateLimiterTest : public ::testing::Test {
protected:
    qint64 nowMs = 1'000'000;
    RateLimiter::Clock clock = [this] { return nowMs; };
};

} // namespace

TEST_F(RateLimiterTest, ABurstGoesThenTheRateHolds)
{
    RateLimiter limiter({2.0, 5.0}, clock);
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(limiter.take(QStringLiteral("a")), 0) << i;
    EXPECT_EQ(limiter.take(QStringLiteral("a")), 500) << "one token more takes half a second at 2/s";
    EXPECT_EQ(limiter.take(QStringLiteral("b")), 0) << "each key has its own bucket";
    nowMs += 499;
    EXPECT_GT(limiter.take(QStringLiteral("a")), 0);
    nowMs += 1;
    EXPECT_EQ(limiter.take(QStringLiteral("a")), 0);
    EXPECT_GT(limiter.take(QStringLiteral("a")), 0);
}

TEST_F(RateLimiterTest, AnIdleBucketRefillsOnlyToItsBurst)
{
    RateLimiter limiter({10.0, 3.0}, clock);
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(limiter.take(QStringLiteral("a")), 0);
    nowMs += 3'600'000;
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(limiter.take(QStringLiteral("a")), 0);
    EXPECT_GT(limiter.take(QStringLiteral("a")), 0) << "an hour of silence buys no more than the burst";
}

TEST_F(RateLimiterTest, ZeroRateMeansNoLimit)
{
    RateLimiter limiter({0.0, 0.0}, clock);
    for (int i = 0; i < 10'000; ++i)
        ASSERT_EQ(limiter.take(QStringLiteral("a")), 0);
    EXPECT_EQ(limiter.trackedKeys(), 0);
}

TEST_F(RateLimiterTest, TheTableOfKeysIsBounded)
{
    RateLimiter limiter({1.0, 1.0}, clock, 4);
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(limiter.take(QString::number(i)), 0);
    EXPECT_EQ(limiter.take(QStringLiteral("new")), 0) << "past the bound a new key is not held back";
    EXPECT_EQ(limiter.trackedKeys(), 4);
    EXPECT_GT(limiter.take(QStringLiteral("0")), 0) << "known keys keep their limit";
    nowMs += 1000; // every bucket is full again, so they can go
    EXPECT_EQ(limiter.take(QStringLiteral("newer")), 0);
    EXPECT_EQ(limiter.trackedKeys(), 1) << "refilled buckets were dropped for the newcomer";
}
