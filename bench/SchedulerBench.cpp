// The DT-FM scheduler against the paper's own scenarios (Yuan et al. 2022, section 5): checks that
// the cost model reproduces the reference costs of fixed assignments, then searches each scenario
// with several seeds in parity mode (no compute or memory terms). Prints one JSON line per
// scenario; figures only, never pass/fail:
//   swarmtrain_scheduler_bench --scenarios ../shared/data/dtfm/scenarios.json
//                              --fixtures ../shared/data/dtfm/cost_fixtures.json
//                              [--seeds 5] [--seconds 1.9] [--only NAME] [--no-site-seeds] [--cpu-clock]
// --seconds is each seed's search budget: 5 seeds x 1.9 s, under 10 s per scenario by default, on the
// wall clock; --cpu-clock counts the process's CPU time instead, so that figures taken on a busy
// machine say what the search does with its budget rather than how much CPU it was given.
// --no-site-seeds searches from random starts only, to see what the genetic algorithm finds alone.
#include "CostModel.h"
#include "EvolutionarySearch.h"
#include "SchedulerProblem.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

using namespace swarmtrain;
using namespace swarmtrain::scheduler;
using nlohmann::json;

namespace {

struct Options {
    std::string scenarios, fixtures, only;
    int seeds = 5;
    double seconds = 1.9; // x 5 seeds, plus the fixture checks: within 10 s per scenario
    bool siteSeeds = true;
    bool cpuClock = false;
};

Result<Options> parse(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const bool hasValue = i + 1 < argc;
        if (flag == "--no-site-seeds") {
            options.siteSeeds = false;
        } else if (flag == "--cpu-clock") {
            options.cpuClock = true;
        } else if (!hasValue) {
            return makeError(flag + " needs a value or is unknown");
        } else if (flag == "--scenarios") {
            options.scenarios = argv[++i];
        } else if (flag == "--fixtures") {
            options.fixtures = argv[++i];
        } else if (flag == "--only") {
            options.only = argv[++i];
        } else if (flag == "--seeds") {
            options.seeds = std::atoi(argv[++i]);
        } else if (flag == "--seconds") {
            options.seconds = std::atof(argv[++i]);
        } else {
            return makeError("unknown flag " + flag);
        }
    }
    if (options.scenarios.empty() || options.fixtures.empty())
        return makeError("--scenarios FILE and --fixtures FILE are required");
    if (options.seeds < 1 || options.seeds > 1000 || !(options.seconds >= 0.0 && options.seconds <= 3600.0))
        return makeError("--seeds takes 1 to 1000, --seconds 0 to 3600");
    return options;
}

Result<json> readJson(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return makeError("cannot open " + path);
    json value = json::parse(in, nullptr, false);
    if (value.is_discarded())
        return makeError(path + " is not valid JSON");
    return value;
}

// The DT-FM file's units (ms, Gbit/s, gigabytes) into the library's SI ones. c_dp is one stage's
// gradients: spread over the stage's layers, so the cost model's layers x bytes gives it back.
Problem toProblem(const json &file, const json &scenario)
{
    Problem problem;
    const int n = scenario.at("num_devices").get<int>();
    for (int d = 0; d < n; ++d)
        problem.devices.push_back(
            {std::to_string(d), scenario.at("regions").at(std::size_t(d)).get<std::string>(), 0.0, 0.0});
    for (int d = 0; d < n; ++d) {
        for (int e = 0; e < n; ++e) {
            problem.delaySeconds.push_back(scenario.at("delay_ms").at(std::size_t(d)).at(std::size_t(e)).get<double>()
                                           / 1e3);
            problem.bandwidthBytesPerSecond.push_back(
                scenario.at("bandwidth_gbps").at(std::size_t(d)).at(std::size_t(e)).get<double>() * 1e9 / 8.0);
        }
    }
    const json &model = file.at("model");
    const int stages = scenario.at("D_pp").get<int>();
    problem.model.layers = model.at("layers").get<int>();
    problem.model.parameterBytesPerLayer
        = model.at("c_dp_gigabytes").get<double>() * 1e9 / double(layersPerStage(problem.model.layers, stages));
    problem.model.activationBytesPerMicrobatch = model.at("c_pp_gigabytes").get<double>() * 1e9;
    problem.grid = {stages, scenario.at("D_dp").get<int>()};
    problem.terms = CostTerms::parity();
    return problem;
}

bool close(double value, double expected)
{
    return std::abs(value - expected) <= 1e-6 * std::max(1.0, std::abs(expected));
}

std::vector<std::vector<int>> blocks(const std::vector<int> &permutation, int stages, int dataParallel)
{
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
    for (int g = 0; g < stages; ++g)
        groups[std::size_t(g)].assign(permutation.begin() + g * dataParallel,
                                      permutation.begin() + (g + 1) * dataParallel);
    return groups;
}

// The paper's hand-built assignment for the spot scenario: group k takes GPU k of every 4-GPU
// instance, the single-GPU instances fill the rest. Empty where there are no multi-GPU sites.
std::vector<std::vector<int>> oneGpuOfEachInstancePerGroup(const Problem &problem, int stages, int dataParallel)
{
    std::map<std::string, std::vector<int>> instances;
    std::vector<int> singles;
    for (int d = 0; d < problem.deviceCount(); ++d) {
        const std::string &site = problem.devices[std::size_t(d)].site;
        if (site.rfind("spot_instance_", 0) == 0)
            instances[site].push_back(d);
        else
            singles.push_back(d);
    }
    if (instances.empty())
        return {};
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
    for (const auto &[name, members] : instances) {
        for (std::size_t k = 0; k < members.size() && k < groups.size(); ++k)
            groups[k].push_back(members[k]);
    }
    for (std::vector<int> &group : groups) {
        while (int(group.size()) < dataParallel && !singles.empty()) {
            group.push_back(singles.back());
            singles.pop_back();
        }
    }
    return groups;
}

} // namespace

int main(int argc, char **argv)
{
    const Result<Options> options = parse(argc, argv);
    if (!options) {
        std::fprintf(stderr, "swarmtrain_scheduler_bench: %s\n", options.error().message.c_str());
        return 2;
    }
    const Result<json> scenarios = readJson(options->scenarios);
    const Result<json> fixtures = scenarios ? readJson(options->fixtures) : Result<json>(scenarios.error());
    if (!fixtures) {
        std::fprintf(stderr, "swarmtrain_scheduler_bench: %s\n", fixtures.error().message.c_str());
        return 1;
    }

    try {
        for (const json &scenario : scenarios->at("scenarios")) {
            const std::string name = scenario.at("name").get<std::string>();
            if (!options->only.empty() && name != options->only)
                continue;
            const auto scenarioStart = std::chrono::steady_clock::now();
            const Problem problem = toProblem(*scenarios, scenario);
            if (Result<void> valid = validateProblem(problem); !valid) {
                std::fprintf(stderr, "%s: %s\n", name.c_str(), valid.error().message.c_str());
                return 1;
            }
            const int stages = problem.grid.pipelineStages, dataParallel = problem.grid.dataParallel;
            const CostModel model(problem, stages, dataParallel);

            // The reference costs: optimal stage order (dp_cost, pp_cost_x2, total) and the
            // permutation's own order with slot k feeding slot k (fixed_order_*).
            int checked = 0, matched = 0;
            double randomSum = 0.0;
            json mismatches = json::array();
            for (const json &fixture : fixtures->at(name)) {
                const auto groups = blocks(fixture.at("permutation").get<std::vector<int>>(), stages, dataParallel);
                const Evaluation best = model.evaluate(groups, StageOrder::Optimal);
                const Evaluation fixed = model.evaluate(groups, StageOrder::GivenPairing);
                const bool ok = close(best.cost.dataParallel, fixture.at("dp_cost").get<double>())
                                && close(best.cost.pipelineTwice(), fixture.at("pp_cost_x2").get<double>())
                                && close(best.cost.total, fixture.at("total").get<double>())
                                && close(fixed.cost.pipelineTwice(), fixture.at("fixed_order_pp_cost_x2").get<double>())
                                && close(fixed.cost.total, fixture.at("fixed_order_total").get<double>());
                ++checked;
                matched += ok ? 1 : 0;
                if (!ok)
                    mismatches.push_back(
                        {{"index", checked - 1}, {"total", best.cost.total}, {"expected", fixture.at("total")}});
                randomSum += fixture.at("total").get<double>();
            }
            const double randomMean = randomSum / std::max(checked, 1);

            json costs = json::array(), seconds = json::array();
            std::optional<Schedule> best;
            double searchSeconds = 0.0;
            for (int seed = 1; seed <= options->seeds; ++seed) {
                SearchOptions search;
                search.seconds = options->seconds;
                search.seed = std::uint64_t(seed);
                search.siteSeeds = options->siteSeeds;
                if (options->cpuClock)
                    search.clock = [] { return double(std::clock()) / CLOCKS_PER_SEC; };
                const auto start = std::chrono::steady_clock::now();
                Schedule found = EvolutionarySearch(model, search).run();
                const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                searchSeconds += elapsed;
                costs.push_back(found.cost.total);
                seconds.push_back(std::round(elapsed * 1000.0) / 1000.0);
                if (!best || found.cost.total < best->cost.total)
                    best = std::move(found);
            }

            json line = {{"scenario", name},
                         {"fixtures_checked", checked},
                         {"fixtures_matched", matched},
                         {"random_mean_cost", randomMean},
                         {"best_cost", best->cost.total},
                         {"dp_cost", best->cost.dataParallel},
                         {"pp_cost_x2", best->cost.pipelineTwice()},
                         {"ratio_vs_random", randomMean / best->cost.total},
                         {"costs", costs},
                         {"seconds", seconds},
                         {"scenario_search_seconds", std::round(searchSeconds * 1000.0) / 1000.0},
                         {"seconds_budget_per_seed", options->seconds},
                         {"best_seed", best->seed},
                         {"best_trials", best->trials},
                         {"best_evaluations", best->evaluations},
                         {"best_origin", best->origin},
                         {"site_seeds", options->siteSeeds},
                         {"clock", options->cpuClock ? "cpu" : "wall"}};
            if (!mismatches.empty())
                line["mismatches"] = mismatches;
            // The targets set for this scheduler (figures, not a verdict on the run's machine).
            const double scenarioSeconds
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - scenarioStart).count();
            line["scenario_seconds"] = std::round(scenarioSeconds * 1000.0) / 1000.0;
            json targets = {{"scenario_seconds_at_most", 10.0}};
            if (name == "data_center_on_demand")
                targets["ratio_vs_random_at_least"] = 5.0;
            if (name == "world_wide_geo_distributed")
                targets["ratio_vs_random_at_least"] = 1.8;
            const auto handBuilt = oneGpuOfEachInstancePerGroup(problem, stages, dataParallel);
            if (!handBuilt.empty()) {
                const double handBuiltCost = model.evaluate(handBuilt, StageOrder::Optimal).cost.total;
                line["hand_built_cost"] = handBuiltCost;
                targets["cost_at_most_hand_built"] = handBuiltCost;
            }
            bool met = scenarioSeconds <= 10.0;
            if (targets.contains("ratio_vs_random_at_least"))
                met = met && randomMean / best->cost.total >= targets["ratio_vs_random_at_least"].get<double>();
            if (targets.contains("cost_at_most_hand_built"))
                met = met && best->cost.total <= targets["cost_at_most_hand_built"].get<double>() * (1.0 + 1e-9);
            targets["met"] = met;
            line["targets"] = targets;
            std::cout << line.dump() << std::endl;
        }
    } catch (const json::exception &error) {
        std::fprintf(stderr, "swarmtrain_scheduler_bench: unexpected scenario file layout: %s\n", error.what());
        return 1;
    }
    return 0;
}
