#include "PathOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace swarmtrain::scheduler;

namespace {

std::vector<double> randomSymmetric(int n, std::mt19937_64 &rng)
{
    std::vector<double> weights(std::size_t(n * n), 0.0);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b)
            weights[std::size_t(a * n + b)] = weights[std::size_t(b * n + a)]
                = std::uniform_real_distribution<double>(1, 100)(rng);
    }
    return weights;
}

double bruteForce(const std::vector<double> &weights, int n)
{
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    double best = 1e300;
    do {
        best = std::min(best, pathCost(weights, n, order));
    } while (std::next_permutation(order.begin(), order.end()));
    return best;
}

bool isPermutation(std::vector<int> order, int n)
{
    std::sort(order.begin(), order.end());
    for (int i = 0; i < n; ++i) {
        if (order.size() != std::size_t(n) || order[std::size_t(i)] != i)
            return false;
    }
    return true;
}

} // namespace

TEST(PathOrderTest, HandExampleIsAnOpenPathNotALoop)
{
    // A line 0 - 1 - 2 - 3 with unit steps; closing the loop would cost 3 more.
    std::vector<double> weights(16);
    for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b)
            weights[std::size_t(a * 4 + b)] = std::abs(a - b);
    }
    PathOrderSolver solver;
    const PathOrder path = solver.solve(weights, 4);
    EXPECT_TRUE(path.exact);
    EXPECT_DOUBLE_EQ(path.cost, 3.0);
    EXPECT_TRUE(path.order == (std::vector<int>{0, 1, 2, 3}) || path.order == (std::vector<int>{3, 2, 1, 0}));
}

TEST(PathOrderTest, HeldKarpMatchesBruteForceUpToEightNodes)
{
    std::mt19937_64 rng(11);
    PathOrderSolver solver;
    for (int n = 1; n <= 8; ++n) {
        for (int trial = 0; trial < 5; ++trial) {
            const std::vector<double> weights = randomSymmetric(n, rng);
            const PathOrder path = solver.solve(weights, n);
            ASSERT_TRUE(isPermutation(path.order, n));
            EXPECT_NEAR(path.cost, bruteForce(weights, n), 1e-9) << "n " << n;
            EXPECT_NEAR(pathCost(weights, n, path.order), path.cost, 1e-9) << "the order does not cost what it says";
            EXPECT_NEAR(solver.cost(weights, n), path.cost, 1e-9);
        }
    }
}

TEST(PathOrderTest, HeuristicAboveTwelveNodesGivesAValidShortPath)
{
    // Points on a line, shuffled: the best open path walks the line (cost = its length).
    std::mt19937_64 rng(3);
    const int n = 40;
    std::vector<double> position(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        position[std::size_t(i)] = i * 2.5;
    std::shuffle(position.begin(), position.end(), rng);
    std::vector<double> weights(std::size_t(n * n));
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b)
            weights[std::size_t(a * n + b)] = std::abs(position[std::size_t(a)] - position[std::size_t(b)]);
    }
    PathOrderSolver solver;
    const PathOrder path = solver.solve(weights, n);
    EXPECT_FALSE(path.exact);
    ASSERT_TRUE(isPermutation(path.order, n));
    EXPECT_NEAR(path.cost, pathCost(weights, n, path.order), 1e-9);
    EXPECT_NEAR(path.cost, (n - 1) * 2.5, 1e-9);
}

TEST(PathOrderTest, HeuristicNeverLosesToNearestNeighbourOnRandomInputs)
{
    std::mt19937_64 rng(5);
    PathOrderSolver solver;
    for (int trial = 0; trial < 5; ++trial) {
        const int n = 13 + trial * 7;
        const std::vector<double> weights = randomSymmetric(n, rng);
        // Nearest neighbour from node 0, one of the heuristic's starts.
        std::vector<int> greedy{0};
        std::vector<char> used(std::size_t(n), 0);
        used[0] = 1;
        while (int(greedy.size()) < n) {
            int next = -1;
            for (int node = 0; node < n; ++node) {
                if (!used[std::size_t(node)]
                    && (next < 0
                        || weights[std::size_t(greedy.back() * n + node)]
                               < weights[std::size_t(greedy.back() * n + next)]))
                    next = node;
            }
            greedy.push_back(next);
            used[std::size_t(next)] = 1;
        }
        const PathOrder path = solver.solve(weights, n);
        ASSERT_TRUE(isPermutation(path.order, n));
        EXPECT_LE(path.cost, pathCost(weights, n, greedy) + 1e-9);
    }
}
