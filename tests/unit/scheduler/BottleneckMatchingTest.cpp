#include "BottleneckMatching.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace swarmtrain::scheduler;

namespace {

double bruteForce(const std::vector<double> &cost, int n)
{
    std::vector<int> permutation(static_cast<std::size_t>(n));
    std::iota(permutation.begin(), permutation.end(), 0);
    double best = 1e300;
    do {
        double worst = 0.0;
        for (int row = 0; row < n; ++row)
            worst = std::max(worst, cost[std::size_t(row * n + permutation[std::size_t(row)])]);
        best = std::min(best, worst);
    } while (std::next_permutation(permutation.begin(), permutation.end()));
    return best;
}

void expectValidMatching(const std::vector<double> &cost, int n, const BottleneckMatching &matching)
{
    ASSERT_EQ(int(matching.columnOfRow.size()), n);
    std::vector<int> columns = matching.columnOfRow;
    std::sort(columns.begin(), columns.end());
    for (int i = 0; i < n; ++i)
        EXPECT_EQ(columns[std::size_t(i)], i) << "not a permutation";
    double worst = 0.0;
    for (int row = 0; row < n; ++row) {
        const double edge = cost[std::size_t(row * n + matching.columnOfRow[std::size_t(row)])];
        EXPECT_LE(edge, matching.bottleneck) << "an edge above the bottleneck is used";
        worst = std::max(worst, edge);
    }
    EXPECT_EQ(worst, matching.bottleneck);
    ASSERT_GE(matching.bottleneckRow, 0);
    EXPECT_EQ(cost[std::size_t(matching.bottleneckRow * n + matching.columnOfRow[std::size_t(matching.bottleneckRow)])],
              matching.bottleneck);
}

} // namespace

TEST(BottleneckMatchingTest, HandExample)
{
    // The greedy diagonal costs 9; the cross matching 0->1, 1->2, 2->0 costs at most 3.
    const std::vector<double> cost = {1, 2, 9, //
                                      9, 1, 3, //
                                      3, 9, 1};
    BottleneckMatcher matcher;
    EXPECT_EQ(matcher.bottleneck(cost, 3), 1.0);
    const std::vector<double> harder = {1, 2, 9, //
                                        9, 9, 3, //
                                        3, 9, 9};
    const BottleneckMatching matching = matcher.solve(harder, 3);
    EXPECT_EQ(matching.bottleneck, 3.0);
    EXPECT_EQ(matching.columnOfRow, (std::vector<int>{1, 2, 0}));
    expectValidMatching(harder, 3, matching);
}

TEST(BottleneckMatchingTest, TheLowerBoundIsNotAlwaysTheAnswer)
{
    // Every row and column has a 1, yet rows 0 and 1 both need column 0 for it: row 0 gives it up
    // for its 5 (row 1's alternative would be 6).
    const std::vector<double> cost = {1, 5, 7, //
                                      1, 6, 8, //
                                      9, 1, 1};
    BottleneckMatcher matcher;
    EXPECT_EQ(matcher.bottleneck(cost, 3), bruteForce(cost, 3));
    EXPECT_EQ(matcher.bottleneck(cost, 3), 5.0);
}

TEST(BottleneckMatchingTest, MatchesBruteForceOnRandomMatrices)
{
    std::mt19937_64 rng(7);
    BottleneckMatcher matcher; // reused across sizes, as the search does
    for (int trial = 0; trial < 400; ++trial) {
        const int n = 1 + int(rng() % 7);
        std::vector<double> cost(std::size_t(n * n));
        // Half with many ties (small integers), half continuous.
        for (double &c : cost)
            c = trial % 2 ? double(rng() % 5) : std::uniform_real_distribution<double>(0.0, 10.0)(rng);
        const BottleneckMatching matching = matcher.solve(cost, n);
        ASSERT_EQ(matching.bottleneck, bruteForce(cost, n)) << "trial " << trial << ", n " << n;
        expectValidMatching(cost, n, matching);
    }
}

TEST(BottleneckMatchingTest, EmptyAndSingle)
{
    BottleneckMatcher matcher;
    EXPECT_EQ(matcher.bottleneck({}, 0), 0.0);
    const BottleneckMatching single = matcher.solve({4.5}, 1);
    EXPECT_EQ(single.bottleneck, 4.5);
    EXPECT_EQ(single.columnOfRow, std::vector<int>{0});
}

TEST(BottleneckMatchingTest, MatchedBelowCountsWhatCanAvoidTheBottleneck)
{
    // Rows 0 and 1 both want column 0: only one of them gets it below 5.
    const std::vector<double> cost = {1, 5, 7, //
                                      1, 6, 8, //
                                      9, 1, 1};
    BottleneckMatcher matcher;
    EXPECT_EQ(matcher.matchedBelow(cost, 3, 5.0), 2);
    EXPECT_EQ(matcher.matchedBelow(cost, 3, 1.0), 0);
    EXPECT_EQ(matcher.matchedBelow(cost, 3, 5.5), 3);
    // Always short of perfect below the bottleneck, and perfect just above it.
    std::mt19937_64 rng(13);
    for (int trial = 0; trial < 100; ++trial) {
        const int n = 1 + int(rng() % 6);
        std::vector<double> random(std::size_t(n * n));
        for (double &c : random)
            c = double(rng() % 7);
        const double bottleneck = matcher.bottleneck(random, n);
        EXPECT_LT(matcher.matchedBelow(random, n, bottleneck), n);
        EXPECT_EQ(matcher.matchedBelow(random, n, bottleneck + 0.5), n);
    }
}
