#include "ScheduleCommand.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;
using nlohmann::json;

namespace {

// Two sites of two GPUs, two stages of two: the pipeline should match inside sites or the
// all-reduce stay inside them, whichever is cheaper; the command only has to run it end to end.
json scenario()
{
    json devices = json::array();
    for (const char *id : {"a0", "a1", "b0", "b1"})
        devices.push_back({{"id", id}, {"flops", 1e13}, {"memory_bytes", 2.4e10}});
    json delay = json::array(), bandwidth = json::array();
    for (int d = 0; d < 4; ++d) {
        json delayRow = json::array(), bandwidthRow = json::array();
        for (int e = 0; e < 4; ++e) {
            delayRow.push_back(d / 2 == e / 2 ? 1.0 : 40.0);
            bandwidthRow.push_back(d / 2 == e / 2 ? 100.0 : 1.0);
        }
        delay.push_back(delayRow);
        bandwidth.push_back(bandwidthRow);
    }
    return {{"devices", devices},
            {"delay_ms", delay},
            {"bandwidth_gbps", bandwidth},
            {"model",
             {{"layers", 4},
              {"parameter_bytes_per_layer", 1e8},
              {"activation_bytes_per_microbatch", 1e7},
              {"flops_per_layer_per_microbatch", 1e12},
              {"microbatches", 4}}},
            {"grid", {{"pipeline_stages", 2}, {"data_parallel", 2}}}};
}

} // namespace

TEST(ScheduleCommandTest, JsonOutputIsOneObjectWithTheSchedule)
{
    const Result<std::string> output = runScheduleCommand(scenario().dump(), 0.2, 3, true);
    ASSERT_TRUE(output) << output.error().message;
    const json result = json::parse(*output);
    EXPECT_EQ(result["stages"].size(), 2u);
    EXPECT_GT(result["cost"]["compute"].get<double>(), 0.0) << "the compute term is on by default";
    EXPECT_EQ(result["search"]["seed"], 3);
    EXPECT_EQ(result["moved_peers"], 0);
}

TEST(ScheduleCommandTest, TextOutputListsTheStages)
{
    const Result<std::string> output = runScheduleCommand(scenario().dump(), 0.2, 1, false);
    ASSERT_TRUE(output) << output.error().message;
    EXPECT_NE(output->find("2 stages x 2 devices"), std::string::npos) << *output;
    EXPECT_NE(output->find("stage 0:"), std::string::npos) << *output;
    EXPECT_NE(output->find("stage 1:"), std::string::npos) << *output;
}

TEST(ScheduleCommandTest, ACurrentAssignmentIsRepairedNotReplaced)
{
    json input = scenario();
    input["devices"][3]["id"] = "new";
    input["current"] = {{"stages", json::array({json::array({"a0", "a1"}), json::array({"b0", "gone"})})}};
    const Result<std::string> output = runScheduleCommand(input.dump(), 0.2, 1, true);
    ASSERT_TRUE(output) << output.error().message;
    const json result = json::parse(*output);
    EXPECT_EQ(result["placed_peers"], 1);
    EXPECT_EQ(result["moved_peers"], 0);
}

TEST(ScheduleCommandTest, BadInputIsAnError)
{
    EXPECT_FALSE(runScheduleCommand("[]", 1.0, 1, true));
    EXPECT_FALSE(runScheduleCommand(scenario().dump(), -1.0, 1, true));
    json input = scenario();
    input["model"]["layers"] = 0;
    const Result<std::string> output = runScheduleCommand(input.dump(), 1.0, 1, true);
    ASSERT_FALSE(output);
    EXPECT_NE(output.error().message.find("model.layers"), std::string::npos) << output.error().message;
}
