#include "SchedulerProblem.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

namespace swarmtrain::scheduler {

namespace {

bool finiteNonNegative(double value) { return std::isfinite(value) && value >= 0.0; }

std::string cell(const char *name, int from, int to)
{
    return std::string(name) + "[" + std::to_string(from) + "][" + std::to_string(to) + "]";
}

} // namespace

bool Problem::linked(int from, int to) const
{
    const double bw = bandwidth(from, to);
    return bw > 0.0 && std::isfinite(bw) && std::isfinite(delay(from, to));
}

std::string Problem::deviceId(int device) const
{
    const std::string &id = devices[std::size_t(device)].id;
    return id.empty() ? std::to_string(device) : id;
}

int layersPerStage(int layers, int stages) { return stages <= 0 ? layers : (layers + stages - 1) / stages; }

Result<void> validateProblem(const Problem &problem)
{
    const int n = problem.deviceCount();
    if (n < 1 || n > kMaxDevices)
        return makeError("devices: " + std::to_string(n) + " given, 1 to " + std::to_string(kMaxDevices) + " allowed");
    const std::size_t cells = std::size_t(n) * std::size_t(n);
    if (problem.delaySeconds.size() != cells)
        return makeError("delay: " + std::to_string(problem.delaySeconds.size()) + " entries for " + std::to_string(n)
                         + " devices (needs " + std::to_string(n) + " x " + std::to_string(n) + ")");
    if (problem.bandwidthBytesPerSecond.size() != cells)
        return makeError("bandwidth: " + std::to_string(problem.bandwidthBytesPerSecond.size()) + " entries for "
                         + std::to_string(n) + " devices (needs " + std::to_string(n) + " x " + std::to_string(n)
                         + ")");
    // A missing link is bandwidth 0 (delay then unused) or an infinite delay; NaN and negatives are errors.
    for (int d = 0; d < n; ++d) {
        for (int e = 0; e < n; ++e) {
            const double delay = problem.delay(d, e), bw = problem.bandwidth(d, e);
            if (std::isnan(delay) || delay < 0.0)
                return makeError(cell("delay", d, e) + " must be a non-negative number of seconds");
            if (!finiteNonNegative(bw))
                return makeError(cell("bandwidth", d, e) + " must be a finite non-negative number of bytes/s");
        }
    }

    std::set<std::string> ids;
    for (int d = 0; d < n; ++d) {
        const Device &device = problem.devices[std::size_t(d)];
        const std::string where = "devices[" + std::to_string(d) + "]";
        if (!ids.insert(problem.deviceId(d)).second)
            return makeError(where + ".id \"" + problem.deviceId(d) + "\" is not unique");
        if (!finiteNonNegative(device.flopsPerSecond))
            return makeError(where + ".flops must be a finite non-negative number");
        if (problem.terms.compute && device.flopsPerSecond <= 0.0)
            return makeError(where + ".flops must be positive when the compute term is on");
        if (!finiteNonNegative(device.memoryBytes))
            return makeError(where + ".memory_bytes must be a finite non-negative number");
    }

    const ModelSpec &model = problem.model;
    if (model.layers < 1 || model.layers > kMaxLayers)
        return makeError("model.layers must be 1 to " + std::to_string(kMaxLayers));
    if (!finiteNonNegative(model.parameterBytesPerLayer))
        return makeError("model.parameter_bytes_per_layer must be a finite non-negative number");
    if (!finiteNonNegative(model.activationBytesPerMicrobatch))
        return makeError("model.activation_bytes_per_microbatch must be a finite non-negative number");
    if (!finiteNonNegative(model.flopsPerLayerPerMicrobatch))
        return makeError("model.flops_per_layer_per_microbatch must be a finite non-negative number");
    if (model.microbatches < 1 || model.microbatches > 1000000)
        return makeError("model.microbatches must be 1 to 1000000");
    if (!finiteNonNegative(model.memoryBytesPerParameterByte))
        return makeError("model.memory_bytes_per_parameter_byte must be a finite non-negative number");

    const Grid &grid = problem.grid;
    if (grid.pipelineStages < 0 || grid.dataParallel < 0)
        return makeError("grid: stages and data_parallel must not be negative");
    if (grid.pipelineStages > model.layers)
        return makeError("grid.pipeline_stages (" + std::to_string(grid.pipelineStages) + ") exceeds model.layers ("
                         + std::to_string(model.layers) + ")");
    if (std::int64_t(grid.pipelineStages) * std::max(grid.dataParallel, 1) > n
        || std::int64_t(grid.dataParallel) * std::max(grid.pipelineStages, 1) > n) {
        return makeError("grid: " + std::to_string(grid.pipelineStages) + " stages x "
                         + std::to_string(grid.dataParallel) + " devices needs more than the " + std::to_string(n)
                         + " devices given");
    }
    return {};
}

} // namespace swarmtrain::scheduler
