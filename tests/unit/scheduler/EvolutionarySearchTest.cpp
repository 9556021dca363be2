#include "EvolutionarySearch.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;

namespace {

// The cheapest cost over every partition of the devices into `stages` groups of `dataParallel`.
double bruteForce(const CostModel &model)
{
    const int n = model.deviceCount(), stages = model.stages(), dataParallel = model.dataParallel();
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
    double best = 1e300;
    std::function<void(int)> place = [&](int device) {
        if (device == n) {
            best = std::min(best, model.evaluate(groups, StageOrder::Optimal).cost.total);
            return;
        }
        for (int g = 0; g < stages; ++g) {
            if (int(groups[std::size_t(g)].size()) == dataParallel)
                continue;
            groups[std::size_t(g)].push_back(device);
            place(device + 1);
            groups[std::size_t(g)].pop_back();
            if (groups[std::size_t(g)].empty())
                break; // groups are interchangeable: an empty one is as good as the next
        }
    };
    place(0);
    return best;
}

SearchOptions trialBound(std::uint64_t seed, int trials)
{
    SearchOptions options;
    options.seed = seed;
    options.trials = trials;
    options.population = 20;
    test::FakeClock clock;
    clock.step = 0.0; // time never passes: the trial count ends the search
    options.clock = clock;
    return options;
}

void expectValid(const Schedule &schedule, int devices, int stages, int dataParallel)
{
    ASSERT_EQ(int(schedule.stages.size()), stages);
    std::set<int> seen;
    for (const std::vector<int> &stage : schedule.stages) {
        EXPECT_EQ(int(stage.size()), dataParallel);
        seen.insert(stage.begin(), stage.end());
    }
    seen.insert(schedule.spares.begin(), schedule.spares.end());
    EXPECT_EQ(int(seen.size()), devices);
    EXPECT_EQ(int(schedule.links.size()), stages - 1);
}

} // namespace

TEST(EvolutionarySearchTest, FindsTheOptimumOfSmallRandomProblems)
{
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const Problem problem = test::randomProblem(12, seed);
        const CostModel model(problem, 3, 4);
        const Schedule found = EvolutionarySearch(model, trialBound(seed, 60)).run();
        expectValid(found, 12, 3, 4);
        EXPECT_NEAR(found.cost.total, bruteForce(model), 1e-9) << "seed " << seed;
    }
}

TEST(EvolutionarySearchTest, TheResultCostsWhatTheCostModelSays)
{
    const Problem problem = test::randomProblem(16, 4);
    const CostModel model(problem, 4, 4);
    const Schedule found = EvolutionarySearch(model, trialBound(4, 10)).run();
    const Evaluation again = model.evaluate(found.stages, StageOrder::Given);
    EXPECT_NEAR(again.cost.total, found.cost.total, 1e-9) << "the stages are listed in their order";
    for (std::size_t s = 0; s < found.links.size(); ++s) {
        for (const auto &[from, to] : found.links[s].feeds)
            EXPECT_LE(model.pipelineEdge(from, to), found.links[s].seconds) << "a feed above the bottleneck";
    }
}

TEST(EvolutionarySearchTest, DeterministicPerSeed)
{
    const Problem problem = test::randomProblem(20, 5);
    const CostModel model(problem, 4, 5);
    const Schedule a = EvolutionarySearch(model, trialBound(7, 30)).run();
    const Schedule b = EvolutionarySearch(model, trialBound(7, 30)).run();
    EXPECT_EQ(a.stages, b.stages);
    EXPECT_EQ(a.cost.total, b.cost.total);
    EXPECT_EQ(a.evaluations, b.evaluations);
    EXPECT_EQ(a.trials, 30);
}

TEST(EvolutionarySearchTest, StopsWithinTheTimeBudgetOfItsClock)
{
    const Problem problem = test::randomProblem(24, 6);
    const CostModel model(problem, 4, 6);
    SearchOptions options;
    options.seconds = 0.5;
    test::FakeClock clock; // 1 ms per read
    options.clock = clock;
    const Schedule found = EvolutionarySearch(model, options).run();
    expectValid(found, 24, 4, 6);
    EXPECT_LT(found.trials, options.trials) << "the budget, not the trial count, ended it";
    // One read per 16 moves priced: it may run one read past the deadline, then reports.
    EXPECT_LE(found.seconds, 0.5 + 0.003);
    EXPECT_LE(*clock.reads, 0.5 / clock.step + 3);
}

TEST(EvolutionarySearchTest, AZeroBudgetStillGivesAnAssignment)
{
    const Problem problem = test::randomProblem(10, 7);
    const CostModel model(problem, 2, 5);
    SearchOptions options;
    options.seconds = 0.0;
    options.clock = test::FakeClock();
    const Schedule found = EvolutionarySearch(model, options).run();
    expectValid(found, 10, 2, 5);
    EXPECT_EQ(found.trials, 0);
}

TEST(EvolutionarySearchTest, SiteSeedsFindTheSpreadAssignmentThatRandomStartsMiss)
{
    // The paper's spot scenario in small: 4 four-GPU instances (100x faster inside) and 16 single
    // GPUs in 8 stages of 4. Every assignment costs the same all-reduce; the pipeline is cheap only
    // between groups that are whole instances' GPUs lined up, one GPU of each instance per group.
    std::vector<int> sites;
    for (int instance = 0; instance < 4; ++instance)
        sites.insert(sites.end(), 4, instance);
    for (int single = 0; single < 16; ++single)
        sites.push_back(4 + single);
    const Problem problem = test::siteProblem(sites, 0.0, 1e10, 0.0, 1e8);
    const CostModel model(problem, 8, 4);
    // Hand-built: groups 0-3 take GPU k of each instance, the singles fill groups 4-7.
    std::vector<std::vector<int>> handBuilt(8);
    for (int k = 0; k < 4; ++k) {
        for (int instance = 0; instance < 4; ++instance)
            handBuilt[std::size_t(k)].push_back(instance * 4 + k);
    }
    for (int single = 0; single < 16; ++single)
        handBuilt[std::size_t(4 + single / 4)].push_back(16 + single);
    const double handBuiltCost = model.evaluate(handBuilt, StageOrder::Optimal).cost.total;

    const Schedule seeded = EvolutionarySearch(model, trialBound(1, 20)).run();
    EXPECT_LE(seeded.cost.total, handBuiltCost + 1e-9);
    EXPECT_NE(seeded.origin.find("site-chained"), std::string::npos) << seeded.origin;
}

TEST(EvolutionarySearchTest, ScheduleChoosesTheGridWhenNotGiven)
{
    // Two far-apart sites of 4: with c_pp tiny and c_dp large, long pipelines win.
    Problem problem = test::siteProblem({0, 0, 0, 0, 1, 1, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.model.parameterBytesPerLayer = 1e9;
    problem.model.activationBytesPerMicrobatch = 1e3;
    SearchOptions options = trialBound(1, 10);
    const Result<Schedule> chosen = schedule(problem, options);
    ASSERT_TRUE(chosen) << chosen.error().message;
    EXPECT_EQ(chosen->grid.pipelineStages, 8);
    EXPECT_EQ(chosen->grid.dataParallel, 1);
    EXPECT_NE(chosen->why.find("grid chosen among stages x devices: 1x8"), std::string::npos) << chosen->why;

    problem.grid = {2, 4};
    const Result<Schedule> given = schedule(problem, options);
    ASSERT_TRUE(given) << given.error().message;
    EXPECT_EQ(given->grid.pipelineStages, 2);
    EXPECT_EQ(given->grid.dataParallel, 4);
    EXPECT_EQ(given->why.find("grid chosen"), std::string::npos);
}

TEST(EvolutionarySearchTest, ScheduleRejectsInvalidProblemsAndInfeasibleMemory)
{
    Problem problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.grid = {2, 2};
    problem.delaySeconds[1] = -1.0;
    Result<Schedule> result = schedule(problem, trialBound(1, 5));
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("delay[0][1]"), std::string::npos) << result.error().message;

    problem.delaySeconds[1] = 0.001;
    problem.terms.memory = true;
    problem.devices[3].memoryBytes = 1e6; // a stage needs 4 x 4e8 bytes
    result = schedule(problem, trialBound(1, 5));
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("cannot hold a stage"), std::string::npos) << result.error().message;
    EXPECT_NE(result.error().message.find("device d3"), std::string::npos) << result.error().message;
}

TEST(EvolutionarySearchTest, DevicesShortOfMemoryBecomeSparesWhenThereAreSpares)
{
    Problem problem = test::siteProblem({0, 0, 1, 1, 2}, 0.001, 1e9, 0.05, 1e8);
    problem.grid = {2, 2};
    problem.terms.memory = true;
    problem.devices[1].memoryBytes = 1e6;
    const Result<Schedule> result = schedule(problem, trialBound(1, 5));
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_TRUE(result->feasible);
    EXPECT_EQ(result->spares, std::vector<int>{1});
}
