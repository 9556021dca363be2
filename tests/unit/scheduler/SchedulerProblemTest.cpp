#include "SchedulerProblem.h"
#include "SchedulerTestProblems.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;

namespace {

std::string errorOf(const Problem &problem)
{
    const Result<void> result = validateProblem(problem);
    return result ? std::string() : result.error().message;
}

} // namespace

TEST(SchedulerProblemTest, AValidProblemPasses)
{
    const Problem problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    EXPECT_EQ(errorOf(problem), "");
}

TEST(SchedulerProblemTest, MatrixSizesMustMatchTheDevices)
{
    Problem problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.delaySeconds.pop_back();
    EXPECT_NE(errorOf(problem).find("delay: 15 entries for 4 devices"), std::string::npos) << errorOf(problem);
    problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.bandwidthBytesPerSecond.push_back(1.0);
    EXPECT_NE(errorOf(problem).find("bandwidth: 17 entries"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, BadNumbersNameTheirCell)
{
    Problem problem = test::siteProblem({0, 0, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.bandwidthBytesPerSecond[1 * 3 + 2] = -1.0;
    EXPECT_NE(errorOf(problem).find("bandwidth[1][2]"), std::string::npos) << errorOf(problem);
    problem.bandwidthBytesPerSecond[1 * 3 + 2] = std::numeric_limits<double>::infinity();
    EXPECT_NE(errorOf(problem).find("bandwidth[1][2]"), std::string::npos) << errorOf(problem);
    problem.bandwidthBytesPerSecond[1 * 3 + 2] = 1e9;
    problem.delaySeconds[2 * 3 + 0] = std::nan("");
    EXPECT_NE(errorOf(problem).find("delay[2][0]"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, MissingLinksAreBandwidthZeroOrInfiniteDelay)
{
    Problem problem = test::siteProblem({0, 0, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.bandwidthBytesPerSecond[0 * 3 + 2] = 0.0;
    problem.delaySeconds[1 * 3 + 2] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(errorOf(problem), "");
    EXPECT_FALSE(problem.linked(0, 2));
    EXPECT_FALSE(problem.linked(1, 2));
    EXPECT_TRUE(problem.linked(2, 0));
}

TEST(SchedulerProblemTest, DeviceIdsMustBeUniqueAndDefaultToTheIndex)
{
    Problem problem = test::siteProblem({0, 0, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.devices[0].id.clear();
    EXPECT_EQ(problem.deviceId(0), "0");
    problem.devices[2].id = "0";
    EXPECT_NE(errorOf(problem).find("devices[2].id \"0\" is not unique"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, TheComputeTermNeedsEveryDevicesFlops)
{
    Problem problem = test::siteProblem({0, 0, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.devices[1].flopsPerSecond = 0.0;
    EXPECT_EQ(errorOf(problem), "");
    problem.terms.compute = true;
    EXPECT_NE(errorOf(problem).find("devices[1].flops must be positive"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, TheGridMustFitTheDevicesAndTheLayers)
{
    Problem problem = test::siteProblem({0, 0, 1, 1}, 0.001, 1e9, 0.05, 1e8);
    problem.grid = {3, 2};
    EXPECT_NE(errorOf(problem).find("needs more than the 4 devices"), std::string::npos) << errorOf(problem);
    problem.grid = {2, 2};
    EXPECT_EQ(errorOf(problem), "");
    problem.model.layers = 1;
    EXPECT_NE(errorOf(problem).find("exceeds model.layers"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, TooManyDevicesAreRefused)
{
    Problem problem;
    problem.devices.resize(std::size_t(kMaxDevices) + 1);
    EXPECT_NE(errorOf(problem).find("devices: 4097 given"), std::string::npos) << errorOf(problem);
}

TEST(SchedulerProblemTest, LayersPerStageIsTheLargestStage)
{
    EXPECT_EQ(layersPerStage(24, 8), 3);
    EXPECT_EQ(layersPerStage(25, 8), 4);
    EXPECT_EQ(layersPerStage(7, 7), 1);
}
