#include "DeviceBench.h"

#include "Device.h"
#include "DeviceMeasure.h"
#include "Decoder.h"
#include "Statistics.h"
#include "SwappingExecutor.h"
#include "Trainer.h"
#include "TrainingStep.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include <numeric>
#include <vector>

namespace swarmtrain {

namespace {

struct ThroughputOptions {
    ModelConfig model;
    int batchSize = 8;
    int iters = 10;  // timed, after two warm-up steps
    torch::Device device{torch::kCPU};
    ComputeDtype dtype = ComputeDtype::Float32;
    SwapMode swap = SwapMode::Off;
    std::int64_t deviceMemoryBudget = 0;
};

struct Throughput {
    double msPerIter = 0.0; // median
    double tokensPerS = 0.0;
    double modelFlopsPerS = 0.0;
    std::int64_t swappedBytesPerIter = 0;
    std::string swapPlan;
};

// Training steps of a model of this configuration on random tokens.
Result<Throughput> measureTrainingThroughput(const ThroughputOptions &o)
{
    ModelConfig config = o.model;
    if (const std::string why = config.validate(); !why.empty())
        return makeError(why);
    torch::manual_seed(0);
    StepOptions stepOptions;
    stepOptions.device = o.device;
    stepOptions.dtype = o.dtype;
    stepOptions.swap = o.swap;
    stepOptions.deviceMemoryBudget = o.deviceMemoryBudget;
    stepOptions.batchSize = o.batchSize;
    Result<std::unique_ptr<TrainingStep>> created = TrainingStep::create(Decoder(config), stepOptions);
    if (!created)
        return created.error();
    TrainingStep &step = **created;

    const torch::Tensor tokens = torch::randint(config.vocabSize, {o.batchSize, config.blockSize}, torch::kLong);
    const torch::Tensor targets = torch::randint(config.vocabSize, {o.batchSize, config.blockSize}, torch::kLong);
    std::vector<double> ms;
    std::int64_t bytesBefore = 0;
    for (int i = 0; i < o.iters + 2; ++i) {
        if (i == 2 && step.executor())
            bytesBefore = step.executor()->traffic().total();
        const auto started = std::chrono::steady_clock::now();
        step.run(tokens, targets, 1e-4);
        synchronizeDevice(o.device);
        if (i >= 2)
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    }

    Throughput result;
    result.msPerIter = median(ms);
    result.tokensPerS = double(o.batchSize) * config.blockSize / (result.msPerIter / 1000.0);
    result.modelFlopsPerS = result.tokensPerS * config.flopsPerToken();
    if (const SwappingExecutor *executor = step.executor()) {
        result.swappedBytesPerIter = (executor->traffic().total() - bytesBefore) / std::max(1, o.iters);
        result.swapPlan = executor->plan().why;
    }
    return result;
}

} // namespace

Result<DeviceCapability> measureDeviceCapability(const std::string &deviceSpec, int threads)
{
    configureThreads(threads);
    Result<DeviceChoice> choice = resolveDeviceAndDtype(deviceSpec, ComputeDtype::Auto);
    if (!choice)
        return choice.error();
    const torch::Device device = choice->device;
    const torch::ScalarType scalar = choice->dtype == ComputeDtype::BFloat16 ? torch::kBFloat16
                                     : choice->dtype == ComputeDtype::Float16 ? torch::kHalf
                                                                               : torch::kFloat;
    DeviceCapability capability;
    capability.device = device.str();
    capability.dtype = computeDtypeName(choice->dtype);
    capability.matmulFlopsPerSecond = measureMatmulFlops(device, scalar, benchMatmulSize(device), 0.2);
    const Bandwidth bandwidth = measureBandwidth(device, device.is_cuda() ? (std::int64_t(64) << 20) : (std::int64_t(16) << 20), 3);
    capability.hostToDeviceBytesPerSecond = bandwidth.hostToDevice;
    capability.deviceToHostBytesPerSecond = bandwidth.deviceToHost;
    capability.freeMemoryBytes = deviceFreeBytes(device);
    return capability;
}

Result<std::string> runDeviceBench(const BenchOptions &options)
{
    BenchOptions o = options;
    const int threads = configureThreads(o.threads);
    Result<DeviceChoice> choice = resolveDeviceAndDtype(o.device, o.dtype);
    if (!choice)
        return choice.error();
    const torch::Device device = choice->device;
    const ComputeDtype dtype = choice->dtype;
    const bool gpu = device.is_cuda();
    ModelConfig &m = o.model;
    const auto orDefault = [](int &value, int cpu, int cuda, bool onGpu) { value = value > 0 ? value : onGpu ? cuda : cpu; };
    orDefault(m.nLayer, 4, 12, gpu);
    orDefault(m.nHead, 4, 12, gpu);
    orDefault(m.nEmbd, 128, 768, gpu);
    orDefault(m.blockSize, 64, 1024, gpu);
    orDefault(m.vocabSize, 65, m.isLlama() ? 32000 : 50304, gpu);
    if (m.isLlama()) {
        m.nKvHead = std::max(1, m.nHead / (gpu ? 3 : 2));
        while (m.nHead % m.nKvHead != 0)
            --m.nKvHead;
        m.intermediateSize = (8 * m.nEmbd / 3 + 31) / 32 * 32;
    } else {
        m.nKvHead = m.nHead;
        m.intermediateSize = 4 * m.nEmbd;
    }
    orDefault(o.batchSize, 12, 8, gpu);
    orDefault(o.iters, 20, 10, gpu);
    m.dropout = 0.0;
    if (const std::string why = m.validate(); !why.empty())
        return makeError(why);

    const auto progress = [&](int percent, const char *step) {
        if (o.progress)
            o.progress(percent, step);
    };
    nlohmann::json report = {{"device", device.str()}, {"dtype", computeDtypeName(dtype)}, {"threads", threads}};
    progress(0, "matrix products");
    const std::int64_t n = benchMatmulSize(device);
    nlohmann::json matmul = {{"size", n}, {"float32", measureMatmulFlops(device, torch::kFloat, n)}};
    if (gpu) {
        matmul["bfloat16"] = measureMatmulFlops(device, torch::kBFloat16, n);
        matmul["float16"] = measureMatmulFlops(device, torch::kHalf, n);
    }
    report["matmul_flops_per_s"] = matmul;
    const double peak = matmul.value(computeDtypeName(dtype), matmul["float32"].get<double>());

    const std::int64_t copyBytes = gpu ? (std::int64_t(256) << 20) : (std::int64_t(64) << 20);
    progress(20, "copy bandwidth");
    const Bandwidth bandwidth = measureBandwidth(device, copyBytes);
    report["bandwidth_bytes_per_s"] = {{"host_to_device", bandwidth.hostToDevice},
                                       {"device_to_host", bandwidth.deviceToHost},
                                       {"both_host_to_device", bandwidth.bothHostToDevice},
                                       {"both_device_to_host", bandwidth.bothDeviceToHost},
                                       {"pinned", gpu}};

    // Training: resident, then swapped through a quarter of the weights and gradients (or the
    // largest stage, if that is more), plus what half precision keeps of every stage's weights
    // until its backward (swapRetainedBytes; the planner sets it aside first).
    ThroughputOptions t;
    t.model = m;
    t.batchSize = o.batchSize;
    t.iters = o.iters;
    t.device = device;
    t.dtype = dtype;
    if (o.deviceMemoryBudget <= 0) {
        torch::manual_seed(0);
        Decoder model(m);
        const std::vector<std::int64_t> stageBytes = swapStageBytes(*model);
        const std::vector<std::int64_t> retained = swapRetainedBytes(*model, device, dtype);
        const std::int64_t total = std::accumulate(stageBytes.begin(), stageBytes.end(), std::int64_t(0));
        o.deviceMemoryBudget = std::max(total / 4, *std::max_element(stageBytes.begin(), stageBytes.end()))
                               + std::accumulate(retained.begin(), retained.end(), std::int64_t(0));
    }
    nlohmann::json training = {{"n_layer", m.nLayer}, {"n_head", m.nHead}, {"n_embd", m.nEmbd},
                               {"block_size", m.blockSize}, {"vocab_size", m.vocabSize}, {"batch_size", o.batchSize},
                               {"params", m.parameterCount()}, {"family", modelFamilyName(m.family)},
                               {"model", nlohmann::json::parse(m.toJson())}};
    std::vector<double> tokensPerS;
    for (const SwapMode swap : {SwapMode::Off, SwapMode::On}) {
        t.swap = swap;
        t.deviceMemoryBudget = swap == SwapMode::On ? o.deviceMemoryBudget : 0;
        progress(swap == SwapMode::On ? 70 : 40, swap == SwapMode::On ? "training, swapped" : "training, resident");
        Result<Throughput> result = measureTrainingThroughput(t);
        if (!result)
            return result.error();
        nlohmann::json entry = {{"ms_per_iter", result->msPerIter},
                                {"tokens_per_s", result->tokensPerS},
                                {"model_flops_per_s", result->modelFlopsPerS},
                                {"mfu", peak > 0 ? result->modelFlopsPerS / peak : 0.0}};
        if (swap == SwapMode::On) {
            entry["device_memory_budget"] = o.deviceMemoryBudget;
            entry["swapped_bytes_per_iter"] = result->swappedBytesPerIter;
            entry["swap_plan"] = result->swapPlan;
        }
        training[swap == SwapMode::On ? "swapped" : "resident"] = entry;
        tokensPerS.push_back(result->tokensPerS);
    }
    training["swapped_over_resident"] = tokensPerS[0] > 0 ? tokensPerS[1] / tokensPerS[0] : 0.0;
    report["training"] = training;
    progress(100, "done");
    return report.dump();
}

} // namespace swarmtrain
