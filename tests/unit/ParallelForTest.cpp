#include "kernels/ParallelFor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

using namespace swarmtrain::kernels;

class ParallelForTest : public ::testing::Test {
protected:
    void TearDown() override { setParallelThreads(int(std::max(1u, std::thread::hardware_concurrency()))); }
};

TEST_F(ParallelForTest, VisitsEveryIndexExactlyOnce)
{
    setParallelThreads(3);
    std::vector<std::atomic<int>> visits(1001);
    parallelFor(1001, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i)
            ++visits[std::size_t(i)];
    });
    for (const auto &count : visits)
        EXPECT_EQ(count.load(), 1);
}

TEST_F(ParallelForTest, SplitsIntoAtMostOneContiguousChunkPerThread)
{
    setParallelThreads(3);
    std::mutex mutex;
    std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
    std::set<std::thread::id> threads;
    parallelFor(300, 1, [&](std::int64_t begin, std::int64_t end) {
        std::lock_guard lock(mutex);
        chunks.emplace_back(begin, end);
        threads.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(chunks.size(), 3u);
    EXPECT_EQ(threads.size(), 3u);
    std::sort(chunks.begin(), chunks.end());
    EXPECT_EQ(chunks.front().first, 0);
    EXPECT_EQ(chunks.back().second, 300);
    for (std::size_t i = 1; i < chunks.size(); ++i)
        EXPECT_EQ(chunks[i].first, chunks[i - 1].second);
}

TEST_F(ParallelForTest, RunsWorkSmallerThanTheGrainOnTheCallingThread)
{
    setParallelThreads(4);
    std::vector<std::thread::id> callers;
    parallelFor(10, 64, [&](std::int64_t begin, std::int64_t end) {
        callers.push_back(std::this_thread::get_id());
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 10);
    });
    ASSERT_EQ(callers.size(), 1u);
    EXPECT_EQ(callers[0], std::this_thread::get_id());
}

TEST_F(ParallelForTest, ThreadCountFollowsTheSetting)
{
    setParallelThreads(2);
    EXPECT_EQ(parallelThreads(), 2);
    setParallelThreads(0);
    EXPECT_EQ(parallelThreads(), 1);
    int calls = 0;
    parallelFor(1000, 1, [&](std::int64_t, std::int64_t) { ++calls; });
    EXPECT_EQ(calls, 1);
}

TEST_F(ParallelForTest, ManyBackToBackCallsAllComplete)
{
    setParallelThreads(2);
    std::atomic<std::int64_t> total = 0;
    for (int round = 0; round < 2000; ++round)
        parallelFor(64, 1, [&](std::int64_t begin, std::int64_t end) { total += end - begin; });
    EXPECT_EQ(total.load(), 2000 * 64);
}

// The desktop client trains on its worker thread while the embedded coordinator computes a
// validation loss on another, and a starting worker may resize the pool meanwhile.
TEST_F(ParallelForTest, CallersOnSeveralThreadsAndAResizeAllComplete)
{
    setParallelThreads(3);
    std::atomic<std::int64_t> total = 0;
    std::atomic<bool> resizing = true;
    std::thread resizer([&] {
        for (int i = 0; resizing; ++i)
            setParallelThreads(1 + i % 3);
    });
    std::vector<std::thread> callers;
    for (int t = 0; t < 3; ++t) {
        callers.emplace_back([&] {
            for (int round = 0; round < 500; ++round)
                parallelFor(64, 1, [&](std::int64_t begin, std::int64_t end) { total += end - begin; });
        });
    }
    for (std::thread &caller : callers)
        caller.join();
    resizing = false;
    resizer.join();
    EXPECT_EQ(total.load(), 3 * 500 * 64);
}
