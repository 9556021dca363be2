#include "ScenarioJson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace swarmtrain::scheduler {

namespace {

using nlohmann::json;

// Reads an optional number field; absent leaves `out` alone.
Result<void> readNumber(const json &object, const char *key, const std::string &where, double min, double max,
                        double &out)
{
    const auto found = object.find(key);
    if (found == object.end())
        return {};
    if (!found->is_number() || !std::isfinite(found->get<double>()) || found->get<double>() < min
        || found->get<double>() > max) {
        char range[64];
        if (max >= 1e300)
            std::snprintf(range, sizeof range, "a finite number >= %g", min);
        else
            std::snprintf(range, sizeof range, "a number from %g to %g", min, max);
        return makeError(where + key + " must be " + range);
    }
    out = found->get<double>();
    return {};
}

Result<void> readInt(const json &object, const char *key, const std::string &where, int min, int max, int &out)
{
    const auto found = object.find(key);
    if (found == object.end())
        return {};
    if (!found->is_number_integer() || found->get<long long>() < min || found->get<long long>() > max)
        return makeError(where + key + " must be an integer from " + std::to_string(min) + " to "
                         + std::to_string(max));
    out = found->get<int>();
    return {};
}

Result<void> readBool(const json &object, const char *key, const std::string &where, bool &out)
{
    const auto found = object.find(key);
    if (found == object.end())
        return {};
    if (!found->is_boolean())
        return makeError(where + key + " must be true or false");
    out = found->get<bool>();
    return {};
}

// An N x N matrix under one of two names (two units); `scale` converts to SI; null is `missing`.
Result<void> readMatrix(const json &root, const char *name, double nameScale, const char *siName, int n, double missing,
                        std::vector<double> &out)
{
    const bool hasName = root.contains(name), hasSi = root.contains(siName);
    if (hasName == hasSi)
        return makeError(std::string("give exactly one of ") + name + " and " + siName);
    const char *key = hasName ? name : siName;
    const double scale = hasName ? nameScale : 1.0;
    const json &rows = root.at(key);
    if (!rows.is_array() || int(rows.size()) != n)
        return makeError(std::string(key) + " must be an array of " + std::to_string(n) + " rows (one per device)");
    out.assign(std::size_t(n) * std::size_t(n), 0.0);
    for (int d = 0; d < n; ++d) {
        const json &row = rows[std::size_t(d)];
        if (!row.is_array() || int(row.size()) != n)
            return makeError(std::string(key) + "[" + std::to_string(d) + "] must be an array of " + std::to_string(n)
                             + " entries");
        for (int e = 0; e < n; ++e) {
            const json &cell = row[std::size_t(e)];
            const std::string where = std::string(key) + "[" + std::to_string(d) + "][" + std::to_string(e) + "]";
            if (cell.is_null()) {
                out[std::size_t(d) * std::size_t(n) + std::size_t(e)] = missing;
                continue;
            }
            if (!cell.is_number() || !std::isfinite(cell.get<double>()) || cell.get<double>() < 0.0)
                return makeError(where + " must be a finite non-negative number or null (no link)");
            out[std::size_t(d) * std::size_t(n) + std::size_t(e)] = cell.get<double>() * scale;
        }
    }
    return {};
}

Result<std::vector<std::string>> readIds(const json &value, const std::string &where)
{
    if (!value.is_array() || value.size() > std::size_t(kMaxDevices))
        return makeError(where + " must be an array of at most " + std::to_string(kMaxDevices) + " device ids");
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string() || value[i].get<std::string>().size() > 256)
            return makeError(where + "[" + std::to_string(i)
                             + "] must be a device id (a string of at most 256 characters)");
        ids.push_back(value[i].get<std::string>());
    }
    return ids;
}

#define SWARMTRAIN_TRY(expression)                                                                                     \
    if (Result<void> result_ = (expression); !result_)                                                                 \
    return result_.error()

Result<Scenario> parseRoot(const json &root)
{
    if (!root.is_object())
        return makeError("the scenario must be a JSON object");
    Scenario scenario;
    Problem &problem = scenario.problem;

    const auto devices = root.find("devices");
    if (devices == root.end() || !devices->is_array() || devices->empty() || devices->size() > std::size_t(kMaxDevices))
        return makeError("devices must be an array of 1 to " + std::to_string(kMaxDevices) + " devices");
    const int n = int(devices->size());
    for (int d = 0; d < n; ++d) {
        const json &entry = (*devices)[std::size_t(d)];
        const std::string where = "devices[" + std::to_string(d) + "].";
        if (!entry.is_object())
            return makeError("devices[" + std::to_string(d) + "] must be an object");
        Device device;
        for (const auto &[key, target] :
             {std::pair<const char *, std::string *>{"id", &device.id}, {"site", &device.site}}) {
            const auto found = entry.find(key);
            if (found == entry.end())
                continue;
            if (!found->is_string() || found->get<std::string>().size() > 256)
                return makeError(where + key + " must be a string of at most 256 characters");
            *target = found->get<std::string>();
        }
        SWARMTRAIN_TRY(readNumber(entry, "flops", where, 0.0, 1e300, device.flopsPerSecond));
        SWARMTRAIN_TRY(readNumber(entry, "memory_bytes", where, 0.0, 1e300, device.memoryBytes));
        problem.devices.push_back(std::move(device));
    }

    // Missing links: bandwidth 0 (the cost model charges kMissingLinkSeconds); the delay is then unused.
    SWARMTRAIN_TRY(readMatrix(root, "delay_ms", 1e-3, "delay_seconds", n, 0.0, problem.delaySeconds));
    SWARMTRAIN_TRY(readMatrix(root, "bandwidth_gbps", 1e9 / 8.0, "bandwidth_bytes_per_second", n, 0.0,
                              problem.bandwidthBytesPerSecond));

    const auto model = root.find("model");
    if (model == root.end() || !model->is_object())
        return makeError(
            "model must be an object (layers, parameter_bytes_per_layer, activation_bytes_per_microbatch, ...)");
    ModelSpec &spec = problem.model;
    if (!model->contains("layers") || !model->contains("parameter_bytes_per_layer")
        || !model->contains("activation_bytes_per_microbatch"))
        return makeError("model needs layers, parameter_bytes_per_layer and activation_bytes_per_microbatch");
    SWARMTRAIN_TRY(readInt(*model, "layers", "model.", 1, kMaxLayers, spec.layers));
    SWARMTRAIN_TRY(readNumber(*model, "parameter_bytes_per_layer", "model.", 0.0, 1e300, spec.parameterBytesPerLayer));
    SWARMTRAIN_TRY(
        readNumber(*model, "activation_bytes_per_microbatch", "model.", 0.0, 1e300, spec.activationBytesPerMicrobatch));
    SWARMTRAIN_TRY(
        readNumber(*model, "flops_per_layer_per_microbatch", "model.", 0.0, 1e300, spec.flopsPerLayerPerMicrobatch));
    SWARMTRAIN_TRY(readInt(*model, "microbatches", "model.", 1, 1000000, spec.microbatches));
    SWARMTRAIN_TRY(
        readNumber(*model, "memory_bytes_per_parameter_byte", "model.", 0.0, 1e6, spec.memoryBytesPerParameterByte));

    if (const auto grid = root.find("grid"); grid != root.end()) {
        if (!grid->is_object())
            return makeError("grid must be an object");
        SWARMTRAIN_TRY(readInt(*grid, "pipeline_stages", "grid.", 0, kMaxDevices, problem.grid.pipelineStages));
        SWARMTRAIN_TRY(readInt(*grid, "data_parallel", "grid.", 0, kMaxDevices, problem.grid.dataParallel));
    }
    if (const auto terms = root.find("terms"); terms != root.end()) {
        if (!terms->is_object())
            return makeError("terms must be an object");
        SWARMTRAIN_TRY(readBool(*terms, "compute", "terms.", problem.terms.compute));
        SWARMTRAIN_TRY(readBool(*terms, "memory", "terms.", problem.terms.memory));
    }
    if (const auto current = root.find("current"); current != root.end()) {
        if (!current->is_object() || !current->contains("stages") || !current->at("stages").is_array()
            || current->at("stages").empty() || current->at("stages").size() > std::size_t(kMaxDevices))
            return makeError("current.stages must be an array of 1 to " + std::to_string(kMaxDevices) + " stages");
        CurrentAssignment assignment;
        const json &stages = current->at("stages");
        for (std::size_t s = 0; s < stages.size(); ++s) {
            Result<std::vector<std::string>> ids = readIds(stages[s], "current.stages[" + std::to_string(s) + "]");
            if (!ids)
                return ids.error();
            assignment.stages.push_back(std::move(*ids));
        }
        if (current->contains("spares")) {
            Result<std::vector<std::string>> ids = readIds(current->at("spares"), "current.spares");
            if (!ids)
                return ids.error();
            assignment.spares = std::move(*ids);
        }
        scenario.current = std::move(assignment);
    }
    SWARMTRAIN_TRY(validateProblem(problem));
    return scenario;
}

#undef SWARMTRAIN_TRY

json ids(const Problem &problem, const std::vector<int> &devices)
{
    json list = json::array();
    for (const int d : devices)
        list.push_back(problem.deviceId(d));
    return list;
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty())
            result.push_back(line);
    }
    return result;
}

} // namespace

Result<Scenario> parseScenario(const std::string &text)
{
    if (text.size() > kMaxScenarioBytes)
        return makeError("the scenario is " + std::to_string(text.size() >> 20) + " MiB; at most "
                         + std::to_string(kMaxScenarioBytes >> 20) + " MiB are read");
    const json root = json::parse(text, nullptr, false);
    if (root.is_discarded())
        return makeError("the scenario is not valid JSON");
    return parseRoot(root);
}

// {"grid": {...}, "stages": [[ids]], "spares": [ids], "links": [{"from_stage", "seconds",
//  "bottleneck": [from, to], "feeds": [[from, to], ...]}], "cost": {total, data_parallel, pipeline,
//  pipeline_x2, compute, memory_penalty} (seconds per step), "feasible", "why": [lines],
//  "search": {seed, seconds, evaluations, trials, origin}, "moved_peers", "placed_peers"}
std::string scheduleResultToJson(const Problem &problem, const Schedule &schedule)
{
    json stages = json::array();
    for (const std::vector<int> &stage : schedule.stages)
        stages.push_back(ids(problem, stage));
    json links = json::array();
    for (std::size_t s = 0; s < schedule.links.size(); ++s) {
        const StageLink &link = schedule.links[s];
        json feeds = json::array();
        for (const auto &[from, to] : link.feeds)
            feeds.push_back({problem.deviceId(from), problem.deviceId(to)});
        links.push_back({{"from_stage", s},
                         {"seconds", link.seconds},
                         {"bottleneck", {problem.deviceId(link.bottleneckFrom), problem.deviceId(link.bottleneckTo)}},
                         {"feeds", feeds}});
    }
    const json result
        = {{"grid", {{"pipeline_stages", schedule.grid.pipelineStages}, {"data_parallel", schedule.grid.dataParallel}}},
           {"stages", stages},
           {"spares", ids(problem, schedule.spares)},
           {"links", links},
           {"cost",
            {{"total", schedule.cost.total},
             {"data_parallel", schedule.cost.dataParallel},
             {"pipeline", schedule.cost.pipeline},
             {"pipeline_x2", schedule.cost.pipelineTwice()},
             {"compute", schedule.cost.compute},
             {"memory_penalty", schedule.cost.memoryPenalty}}},
           {"feasible", schedule.feasible},
           {"why", lines(schedule.why)},
           {"search",
            {{"seed", schedule.seed},
             {"seconds", schedule.seconds},
             {"evaluations", schedule.evaluations},
             {"trials", schedule.trials},
             {"origin", schedule.origin}}},
           {"moved_peers", schedule.movedPeers},
           {"placed_peers", schedule.placedPeers}};
    return result.dump();
}

std::string formatSchedule(const Problem &problem, const Schedule &schedule)
{
    std::string text = std::to_string(schedule.grid.pipelineStages) + " stages x "
                       + std::to_string(schedule.grid.dataParallel) + " devices: " + formatSeconds(schedule.cost.total)
                       + " per step\n";
    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        text += "  stage " + std::to_string(s) + ":";
        for (const int d : schedule.stages[s])
            text += " " + problem.deviceId(d);
        if (s < schedule.links.size())
            text += "  -> " + formatSeconds(schedule.links[s].seconds);
        text += "\n";
    }
    if (!schedule.spares.empty()) {
        text += "  spares:";
        for (const int d : schedule.spares)
            text += " " + problem.deviceId(d);
        text += "\n";
    }
    for (const std::string &line : lines(schedule.why))
        text += "- " + line + "\n";
    if (!schedule.origin.empty()) {
        char search[160];
        std::snprintf(search, sizeof search, "- search: seed %llu, %.2f s, %lld moves priced, %d offspring; ",
                      static_cast<unsigned long long>(schedule.seed), schedule.seconds, schedule.evaluations,
                      schedule.trials);
        text += search + schedule.origin + "\n";
    }
    return text;
}

} // namespace swarmtrain::scheduler
