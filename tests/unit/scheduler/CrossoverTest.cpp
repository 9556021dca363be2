#include "Crossover.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain::scheduler;

namespace {

void expectBalanced(const Partition &child, int devices, int stages, int dataParallel)
{
    ASSERT_EQ(child.deviceCount(), devices);
    for (int g = 0; g < stages; ++g)
        EXPECT_EQ(int(child.group(g).size()), dataParallel);
    EXPECT_EQ(int(child.spares().size()), devices - stages * dataParallel);
    std::vector<int> all = child.devices();
    std::sort(all.begin(), all.end());
    for (int d = 0; d < devices; ++d)
        ASSERT_EQ(all[std::size_t(d)], d) << "a device is lost or duplicated";
}

} // namespace

TEST(CrossoverTest, ChildrenStayBalancedPermutations)
{
    std::mt19937_64 rng(1);
    for (int trial = 0; trial < 300; ++trial) {
        const int stages = 2 + int(rng() % 6), dataParallel = 1 + int(rng() % 6), spares = int(rng() % 4);
        const int devices = stages * dataParallel + spares;
        const Partition first = Partition::random(devices, stages, dataParallel, rng);
        const Partition second = Partition::random(devices, stages, dataParallel, rng);
        const Partition child = crossover(first, second, 1 + int(rng() % 6), rng);
        expectBalanced(child, devices, stages, dataParallel);
    }
}

TEST(CrossoverTest, IdenticalParentsGiveTheSamePartition)
{
    std::mt19937_64 rng(2);
    const Partition parent = Partition::random(20, 4, 4, rng);
    // Group numbers differ but the groups are the same: the alignment must see that.
    std::vector<int> shuffledGroups;
    for (const int g : {2, 0, 3, 1}) {
        const auto group = parent.group(g);
        shuffledGroups.insert(shuffledGroups.end(), group.rbegin(), group.rend());
    }
    shuffledGroups.insert(shuffledGroups.end(), parent.spares().begin(), parent.spares().end());
    const Partition same(4, 4, shuffledGroups);
    for (int trial = 0; trial < 20; ++trial)
        EXPECT_EQ(crossover(parent, same, 5, rng).canonical(), parent.canonical());
}

TEST(CrossoverTest, GroupsBothParentsShareSurvive)
{
    // Both parents hold {0, 1} and {2, 3} (under other group numbers); the rest differs.
    const Partition first(4, 2, {0, 1, 2, 3, 4, 5, 6, 7});
    const Partition second(4, 2, {4, 6, 3, 2, 5, 7, 1, 0});
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        const Partition child = crossover(first, second, 1 + trial % 3, rng);
        EXPECT_EQ(child.bucketOf(0), child.bucketOf(1));
        EXPECT_EQ(child.bucketOf(2), child.bucketOf(3));
    }
}

TEST(CrossoverTest, DeterministicPerSeed)
{
    std::mt19937_64 setup(4);
    const Partition first = Partition::random(30, 5, 5, setup);
    const Partition second = Partition::random(30, 5, 5, setup);
    std::mt19937_64 rng1(42), rng2(42);
    EXPECT_EQ(crossover(first, second, 5, rng1).devices(), crossover(first, second, 5, rng2).devices());
}
