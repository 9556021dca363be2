#include "Rescheduler.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;

namespace {

// Devices named by `ids` on sites; everything else as test::siteProblem.
Problem named(const std::vector<std::string> &ids, const std::vector<int> &sites)
{
    Problem problem = test::siteProblem(sites, 0.001, 1e9, 0.05, 1e8);
    for (std::size_t d = 0; d < ids.size(); ++d)
        problem.devices[d].id = ids[d];
    return problem;
}

RescheduleOptions quick(double secondsPerMove = -1.0)
{
    RescheduleOptions options;
    options.secondsPerMove = secondsPerMove;
    test::FakeClock clock;
    clock.step = 0.0;
    options.search.clock = clock;
    return options;
}

std::vector<std::vector<std::string>> stageIds(const Problem &problem, const Schedule &schedule)
{
    std::vector<std::vector<std::string>> result;
    for (const std::vector<int> &stage : schedule.stages) {
        std::vector<std::string> ids;
        for (const int d : stage)
            ids.push_back(problem.deviceId(d));
        std::sort(ids.begin(), ids.end());
        result.push_back(ids);
    }
    return result;
}

} // namespace

TEST(ReschedulerTest, NothingChangedMovesNobody)
{
    const Problem problem = named({"a", "b", "c", "d"}, {0, 0, 1, 1});
    const CurrentAssignment current{{{"a", "b"}, {"c", "d"}}, {}};
    const Result<Schedule> result = reschedule(problem, current, quick());
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->movedPeers, 0);
    EXPECT_EQ(result->placedPeers, 0);
    EXPECT_EQ(stageIds(problem, *result), (std::vector<std::vector<std::string>>{{"a", "b"}, {"c", "d"}}));
}

TEST(ReschedulerTest, ANewcomerFillsTheHoleOfADepartedPeer)
{
    // c left, n joined: n takes c's place in stage 1 and nobody else moves.
    const Problem problem = named({"a", "b", "d", "n"}, {0, 0, 1, 1});
    const CurrentAssignment current{{{"a", "b"}, {"c", "d"}}, {}};
    const Result<Schedule> result = reschedule(problem, current, quick());
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->movedPeers, 0);
    EXPECT_EQ(result->placedPeers, 1);
    EXPECT_EQ(stageIds(problem, *result), (std::vector<std::vector<std::string>>{{"a", "b"}, {"d", "n"}}));
    EXPECT_NE(result->why.find("1 peer(s) placed, 0 moved"), std::string::npos) << result->why;
}

TEST(ReschedulerTest, TheBestSpareFillsTheHole)
{
    // Two candidates for c's hole in stage 1 (site 1): s0 on site 0, s1 on site 1. s1 is the cheaper.
    const Problem problem = named({"a", "b", "d", "s0", "s1"}, {0, 0, 1, 0, 1});
    const CurrentAssignment current{{{"a", "b"}, {"c", "d"}}, {"s0", "s1"}};
    const Result<Schedule> result = reschedule(problem, current, quick());
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->movedPeers, 0);
    EXPECT_EQ(stageIds(problem, *result), (std::vector<std::vector<std::string>>{{"a", "b"}, {"d", "s1"}}));
    ASSERT_EQ(result->spares.size(), 1u);
    EXPECT_EQ(problem.deviceId(result->spares[0]), "s0");
}

TEST(ReschedulerTest, AMoveHappensOnlyWhenItPaysForItself)
{
    // Striped across two sites with a large all-reduce: packing the sites would save a lot, at the
    // price of moving two peers.
    Problem problem = named({"a0", "a1", "b0", "b1"}, {0, 0, 1, 1});
    problem.model.parameterBytesPerLayer = 1e9;
    const CurrentAssignment current{{{"a0", "b0"}, {"a1", "b1"}}, {}};
    const Result<Schedule> free = reschedule(problem, current, quick(0.0));
    ASSERT_TRUE(free) << free.error().message;
    EXPECT_EQ(free->movedPeers, 2);
    std::vector<std::vector<std::string>> packed = stageIds(problem, *free);
    std::sort(packed.begin(), packed.end());
    EXPECT_EQ(packed, (std::vector<std::vector<std::string>>{{"a0", "a1"}, {"b0", "b1"}}));
    const Result<Schedule> costly = reschedule(problem, current, quick(1e6));
    ASSERT_TRUE(costly) << costly.error().message;
    EXPECT_EQ(costly->movedPeers, 0);
    EXPECT_GT(costly->cost.total, free->cost.total);
}

TEST(ReschedulerTest, TooFewDevicesShrinkEveryStage)
{
    // 2 x 3 with one peer gone and nobody new: 5 devices hold 2 x 2, one survivor steps down.
    const Problem problem = named({"a", "b", "c", "d", "e"}, {0, 0, 0, 1, 1});
    const CurrentAssignment current{{{"a", "b", "c"}, {"d", "e", "f"}}, {}};
    const Result<Schedule> result = reschedule(problem, current, quick(1e6));
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->grid.dataParallel, 2);
    EXPECT_EQ(result->movedPeers, 1) << "the one stepping down to spares";
    EXPECT_EQ(result->placedPeers, 0);
    ASSERT_EQ(result->spares.size(), 1u);
    const std::string spare = problem.deviceId(result->spares[0]);
    EXPECT_TRUE(spare == "a" || spare == "b" || spare == "c") << spare;
    EXPECT_NE(result->why.find("stages shrank from 3 to 2"), std::string::npos) << result->why;
}

TEST(ReschedulerTest, BadCurrentAssignmentsAreErrors)
{
    const Problem problem = named({"a", "b", "c", "d"}, {0, 0, 1, 1});
    Result<Schedule> result = reschedule(problem, {{{"a", "b"}, {"b", "c"}}, {}}, quick());
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("\"b\" appears twice"), std::string::npos) << result.error().message;
    result = reschedule(problem, {{{"a", "b"}, {"c"}}, {}}, quick());
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("current.stages[1] has 1 devices"), std::string::npos)
        << result.error().message;
    result = reschedule(problem, {{}, {}}, quick());
    ASSERT_FALSE(result);
    const Problem two = named({"a", "b"}, {0, 0});
    result = reschedule(two, {{{"a"}, {"b"}, {"c"}}, {}}, quick());
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("cannot fill 3 stages"), std::string::npos) << result.error().message;
}
