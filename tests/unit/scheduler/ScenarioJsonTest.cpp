#include "ScenarioJson.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;
using nlohmann::json;

namespace {

json threeDevices()
{
    return {{"devices",
             {{{"id", "a"}, {"site", "x"}, {"flops", 1e12}, {"memory_bytes", 8e9}},
              {{"id", "b"}, {"flops", 2e12}},
              {{"id", "c"}, {"flops", 3e12}}}},
            {"delay_ms", {{0, 10, 20}, {10, 0, 30}, {20, 30, 0}}},
            {"bandwidth_gbps", {{0, 8, 16}, {8, 0, nullptr}, {16, nullptr, 0}}},
            {"model", {{"layers", 3}, {"parameter_bytes_per_layer", 1e8}, {"activation_bytes_per_microbatch", 1e7}}},
            {"grid", {{"pipeline_stages", 3}, {"data_parallel", 1}}}};
}

std::string errorOf(const json &scenario)
{
    const Result<Scenario> result = parseScenario(scenario.dump());
    return result ? std::string() : result.error().message;
}

} // namespace

TEST(ScenarioJsonTest, ReadsUnitsIntoSi)
{
    const Result<Scenario> scenario = parseScenario(threeDevices().dump());
    ASSERT_TRUE(scenario) << scenario.error().message;
    const Problem &problem = scenario->problem;
    ASSERT_EQ(problem.deviceCount(), 3);
    EXPECT_EQ(problem.devices[0].id, "a");
    EXPECT_EQ(problem.devices[0].site, "x");
    EXPECT_EQ(problem.devices[0].memoryBytes, 8e9);
    EXPECT_EQ(problem.devices[2].flopsPerSecond, 3e12);
    EXPECT_DOUBLE_EQ(problem.delay(1, 2), 0.030);
    EXPECT_DOUBLE_EQ(problem.bandwidth(0, 1), 1e9); // 8 Gbit/s
    EXPECT_DOUBLE_EQ(problem.bandwidth(2, 0), 2e9);
    EXPECT_FALSE(problem.linked(1, 2)) << "null is a missing link";
    EXPECT_EQ(problem.grid.pipelineStages, 3);
    EXPECT_TRUE(problem.terms.compute) << "both terms on unless switched off";
    EXPECT_FALSE(scenario->current.has_value());
}

TEST(ScenarioJsonTest, ReadsSiUnitsTermsAndTheCurrentAssignment)
{
    json scenario = threeDevices();
    scenario.erase("delay_ms");
    scenario.erase("bandwidth_gbps");
    scenario["delay_seconds"] = {{0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
    scenario["bandwidth_bytes_per_second"] = {{0, 1e9, 1e9}, {1e9, 0, 1e9}, {1e9, 1e9, 0}};
    scenario["terms"] = {{"compute", false}, {"memory", false}};
    scenario["current"] = {{"stages", {{"a"}, {"b"}, {"c"}}}, {"spares", json::array()}};
    const Result<Scenario> parsed = parseScenario(scenario.dump());
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_DOUBLE_EQ(parsed->problem.delay(0, 1), 0.5);
    EXPECT_DOUBLE_EQ(parsed->problem.bandwidth(0, 1), 1e9);
    EXPECT_FALSE(parsed->problem.terms.compute);
    ASSERT_TRUE(parsed->current.has_value());
    EXPECT_EQ(parsed->current->stages, (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"c"}}));
}

TEST(ScenarioJsonTest, ErrorsNameTheField)
{
    EXPECT_EQ(errorOf(json::array()), "the scenario must be a JSON object");
    EXPECT_EQ(parseScenario("{not json").error().message, "the scenario is not valid JSON");

    json scenario = threeDevices();
    scenario["delay_seconds"] = scenario["delay_ms"];
    EXPECT_NE(errorOf(scenario).find("exactly one of delay_ms and delay_seconds"), std::string::npos)
        << errorOf(scenario);

    scenario = threeDevices();
    scenario["bandwidth_gbps"][1][0] = -2;
    EXPECT_NE(errorOf(scenario).find("bandwidth_gbps[1][0]"), std::string::npos) << errorOf(scenario);
    scenario["bandwidth_gbps"][1][0] = "fast";
    EXPECT_NE(errorOf(scenario).find("bandwidth_gbps[1][0]"), std::string::npos) << errorOf(scenario);

    scenario = threeDevices();
    scenario["delay_ms"].erase(2);
    EXPECT_NE(errorOf(scenario).find("delay_ms must be an array of 3 rows"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["delay_ms"][1].push_back(5);
    EXPECT_NE(errorOf(scenario).find("delay_ms[1] must be an array of 3 entries"), std::string::npos)
        << errorOf(scenario);

    scenario = threeDevices();
    scenario["devices"][1]["flops"] = -1;
    EXPECT_NE(errorOf(scenario).find("devices[1].flops"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["devices"][2]["id"] = 7;
    EXPECT_NE(errorOf(scenario).find("devices[2].id must be a string"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["devices"][2]["id"] = "a";
    EXPECT_NE(errorOf(scenario).find("\"a\" is not unique"), std::string::npos) << errorOf(scenario);

    scenario = threeDevices();
    scenario["model"].erase("layers");
    EXPECT_NE(errorOf(scenario).find("model needs layers"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["model"]["layers"] = 2.5;
    EXPECT_NE(errorOf(scenario).find("model.layers must be an integer"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["grid"]["pipeline_stages"] = 4;
    EXPECT_NE(errorOf(scenario).find("grid"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["terms"] = {{"compute", "yes"}};
    EXPECT_NE(errorOf(scenario).find("terms.compute must be true or false"), std::string::npos) << errorOf(scenario);
    scenario = threeDevices();
    scenario["current"] = {{"stages", json::array({json::array({"a", 3})})}};
    EXPECT_NE(errorOf(scenario).find("current.stages[0][1]"), std::string::npos) << errorOf(scenario);
}

TEST(ScenarioJsonTest, TooManyDevicesAreRefusedBeforeTheMatrices)
{
    json scenario = threeDevices();
    scenario["devices"] = json::array();
    for (int d = 0; d <= kMaxDevices; ++d)
        scenario["devices"].push_back(json::object());
    scenario["delay_ms"] = json::array(); // would be the next error; must not be reached
    EXPECT_NE(errorOf(scenario).find("devices must be an array of 1 to 4096 devices"), std::string::npos)
        << errorOf(scenario);
}

TEST(ScenarioJsonTest, ResultJsonUsesIdsAndCarriesTheBreakdown)
{
    Result<Scenario> scenario = parseScenario(threeDevices().dump());
    ASSERT_TRUE(scenario);
    scenario->problem.terms = CostTerms::parity();
    const Problem &problem = scenario->problem;
    const CostModel model(problem, 3, 1);
    Schedule schedule = describeSchedule(model, {{0}, {1}, {2}}, {}, StageOrder::Optimal);
    schedule.seed = 9;
    const json result = json::parse(scheduleResultToJson(problem, schedule));
    EXPECT_EQ(result["grid"]["pipeline_stages"], 3);
    ASSERT_EQ(result["stages"].size(), 3u);
    EXPECT_TRUE(result["stages"][0][0].is_string());
    // a - b - c is cheaper through a: b and c have no link.
    EXPECT_EQ(result["stages"][1][0], "a");
    EXPECT_DOUBLE_EQ(result["cost"]["total"].get<double>(), schedule.cost.total);
    EXPECT_DOUBLE_EQ(result["cost"]["pipeline_x2"].get<double>(), 2 * schedule.cost.pipeline);
    EXPECT_EQ(result["links"].size(), 2u);
    EXPECT_EQ(result["search"]["seed"], 9);
    EXPECT_TRUE(result["why"].is_array());
    EXPECT_FALSE(result["why"].empty());

    const std::string text = formatSchedule(problem, schedule);
    EXPECT_NE(text.find("3 stages x 1 devices"), std::string::npos) << text;
    EXPECT_NE(text.find("stage 1: a"), std::string::npos) << text;
    EXPECT_NE(text.find("slowest stage boundary"), std::string::npos) << text;
}
