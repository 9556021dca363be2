#include "Partition.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain::scheduler;

TEST(PartitionTest, BlocksOfThePermutationAreTheGroupsAndTheRestSpares)
{
    const Partition partition(2, 3, {5, 0, 3, 1, 6, 2, 4});
    EXPECT_EQ(partition.bucketCount(), 3);
    EXPECT_EQ(partition.spareCount(), 1);
    EXPECT_EQ(std::vector<int>(partition.group(1).begin(), partition.group(1).end()), (std::vector<int>{1, 6, 2}));
    EXPECT_EQ(std::vector<int>(partition.spares().begin(), partition.spares().end()), std::vector<int>{4});
    EXPECT_EQ(partition.bucketOf(3), 0);
    EXPECT_EQ(partition.bucketOf(2), 1);
    EXPECT_EQ(partition.bucketOf(4), 2);
}

TEST(PartitionTest, SwapsAndRotationsMoveDevicesBetweenBuckets)
{
    Partition partition(3, 2, {0, 1, 2, 3, 4, 5});
    partition.swapDevices(1, 4);
    EXPECT_EQ(partition.bucketOf(1), 2);
    EXPECT_EQ(partition.bucketOf(4), 0);
    // 0 takes 2's place, 2 takes 5's place, 5 takes 0's place.
    const int cycle[3] = {0, 2, 5};
    partition.rotate(cycle);
    EXPECT_EQ(partition.bucketOf(0), 1);
    EXPECT_EQ(partition.bucketOf(2), 2);
    EXPECT_EQ(partition.bucketOf(5), 0);
    for (int g = 0; g < 3; ++g)
        EXPECT_EQ(partition.group(g).size(), 2u);
    // The reverse rotation undoes it.
    const int back[3] = {5, 2, 0};
    partition.rotate(back);
    EXPECT_EQ(partition.bucketOf(0), 0);
    EXPECT_EQ(partition.bucketOf(2), 1);
    EXPECT_EQ(partition.bucketOf(5), 2);
}

TEST(PartitionTest, FromGroupsPutsTheOthersInSpares)
{
    const Partition partition = Partition::fromGroups(6, {{4, 1}, {0, 5}});
    EXPECT_EQ(partition.stages(), 2);
    EXPECT_EQ(partition.dataParallel(), 2);
    EXPECT_EQ(std::vector<int>(partition.spares().begin(), partition.spares().end()), (std::vector<int>{2, 3}));
}

TEST(PartitionTest, CanonicalFormIgnoresOrderWithinAndBetweenGroups)
{
    const Partition a(2, 2, {3, 1, 0, 2, 4});
    const Partition b(2, 2, {2, 0, 1, 3, 4});
    const Partition c(2, 2, {2, 1, 0, 3, 4});
    EXPECT_EQ(a.canonical(), b.canonical());
    EXPECT_NE(a.canonical(), c.canonical());
}

TEST(PartitionTest, RandomPartitionsArePermutationsAndDeterministicPerSeed)
{
    std::mt19937_64 rng1(9), rng2(9);
    const Partition a = Partition::random(10, 3, 3, rng1);
    const Partition b = Partition::random(10, 3, 3, rng2);
    EXPECT_EQ(a.devices(), b.devices());
    std::vector<int> sorted = a.devices();
    std::sort(sorted.begin(), sorted.end());
    for (int d = 0; d < 10; ++d)
        EXPECT_EQ(sorted[std::size_t(d)], d);
}
