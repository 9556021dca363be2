#include "DeviceBench.h"

#include "CommandLine.h"
#include "Device.h"
#include "Gpt.h"
#include "Trainer.h"
#include "TrainingStep.h"

#include <algorithm>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

namespace swarmtrain {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void synchronize(const torch::Device &device)
{
    if (device.is_cuda())
        torch::cuda::synchronize(device.index());
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

} // namespace

std::int64_t benchMatmulSize(const torch::Device &device) { return device.is_cuda() ? 8192 : 2048; }

double measureMatmulFlops(const torch::Device &device, torch::ScalarType dtype, std::int64_t n, double minSeconds)
{
    torch::NoGradGuard noGrad;
    const auto options = torch::TensorOptions().dtype(dtype).device(device);
    const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
    torch::Tensor c = torch::empty({n, n}, options);
    torch::mm_out(c, a, b); // warm-up: kernels chosen, memory touched
    synchronize(device);
    int products = 0;
    const auto started = Clock::now();
    do {
        torch::mm_out(c, a, b);
        ++products;
        synchronize(device);
    } while (secondsSince(started) < minSeconds);
    return 2.0 * double(n) * double(n) * double(n) * products / secondsSince(started);
}

Bandwidth measureBandwidth(const torch::Device &device, std::int64_t bytes, int repeats)
{
    const auto hostOptions = torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(device.is_cuda());
    const torch::Tensor hostIn = torch::ones({bytes}, hostOptions), hostOut = torch::empty({bytes}, hostOptions);
    const torch::Tensor deviceIn = torch::ones({bytes}, torch::TensorOptions().dtype(torch::kUInt8).device(device));
    const torch::Tensor deviceOut = torch::empty_like(deviceIn);

    const auto rate = [&](const std::function<void()> &copy) {
        copy();
        synchronize(device);
        std::vector<double> seconds;
        for (int i = 0; i < repeats; ++i) {
            const auto started = Clock::now();
            copy();
            synchronize(device);
            seconds.push_back(secondsSince(started));
        }
        return double(bytes) / median(seconds);
    };
    Bandwidth result;
    result.hostToDevice = rate([&] { deviceOut.copy_(hostIn, true); });
    result.deviceToHost = rate([&] { hostOut.copy_(deviceIn, true); });

    // Both directions at once: on two streams of a GPU, on two threads of the CPU. Each
    // direction's rate is its bytes over the time both took.
    double both = 0.0;
    if (device.is_cuda()) {
        c10::impl::VirtualGuardImpl impl(device.type());
        const c10::Stream up = impl.getStreamFromGlobalPool(device), down = impl.getStreamFromGlobalPool(device);
        both = rate([&] {
            {
                c10::StreamGuard guard(up);
                deviceOut.copy_(hostIn, true);
            }
            c10::StreamGuard guard(down);
            hostOut.copy_(deviceIn, true);
        });
    } else {
        both = rate([&] {
            std::thread other([&] { deviceOut.copy_(hostIn); });
            hostOut.copy_(deviceIn);
            other.join();
        });
    }
    result.bothHostToDevice = both;
    result.bothDeviceToHost = both;
    return result;
}

Result<Throughput> measureTrainingThroughput(const ThroughputOptions &o)
{
    GptConfig config = o.model;
    if (const std::string why = config.validate(); !why.empty())
        return makeError(why);
    torch::manual_seed(0);
    StepOptions stepOptions;
    stepOptions.device = o.device;
    stepOptions.dtype = o.dtype;
    stepOptions.swap = o.swap;
    stepOptions.deviceMemoryBudget = o.deviceMemoryBudget;
    stepOptions.batchSize = o.batchSize;
    Result<std::unique_ptr<TrainingStep>> created = TrainingStep::create(Gpt(config), stepOptions);
    if (!created)
        return created.error();
    TrainingStep &step = **created;

    const torch::Tensor tokens = torch::randint(config.vocabSize, {o.batchSize, config.blockSize}, torch::kLong);
    const torch::Tensor targets = torch::randint(config.vocabSize, {o.batchSize, config.blockSize}, torch::kLong);
    std::vector<double> ms;
    std::int64_t bytesBefore = 0;
    for (int i = 0; i < o.iters + 2; ++i) {
        if (i == 2 && step.executor())
            bytesBefore = step.executor()->traffic().bytesToDevice + step.executor()->traffic().bytesToHost;
        const auto started = Clock::now();
        step.run(tokens, targets, 1e-4);
        synchronize(o.device);
        if (i >= 2)
            ms.push_back(secondsSince(started) * 1000.0);
    }

    Throughput result;
    result.msPerIter = median(ms);
    result.tokensPerS = double(o.batchSize) * config.blockSize / (result.msPerIter / 1000.0);
    result.modelFlopsPerS = result.tokensPerS * config.flopsPerToken();
    result.swapped = step.swapped();
    if (const SwappingExecutor *executor = step.executor()) {
        const std::int64_t bytes = executor->traffic().bytesToDevice + executor->traffic().bytesToHost;
        result.swappedBytesPerIter = (bytes - bytesBefore) / std::max(1, o.iters);
        result.swapPlan = executor->plan().why;
    }
    return result;
}

std::string benchUsage()
{
    return "usage: swarmtrain-cli bench [--json] [--device auto|cpu|cuda[:N]] [--dtype auto|float32|bfloat16|float16]\n"
           "       [--n-layer N] [--n-head N] [--n-embd N] [--block-size N] [--vocab-size N] [--batch-size N]\n"
           "       [--iters N] [--device-memory-budget BYTES] [--threads N]\n";
}

Result<BenchOptions> parseBenchOptions(const std::vector<std::string> &args)
{
    const Result<CommandLine> parsed = CommandLine::parse(
        args,
        {"device", "dtype", "n-layer", "n-head", "n-embd", "block-size", "vocab-size", "batch-size", "iters",
         "device-memory-budget", "threads"},
        {"json"});
    if (!parsed)
        return parsed.error();
    const CommandLine &line = *parsed;
    BenchOptions o;
    o.model.nLayer = o.model.nHead = o.model.nEmbd = o.model.blockSize = o.model.vocabSize = 0;
    std::string dtype = "auto";
    for (Result<void> r : {line.readString("device", o.device), line.readString("dtype", dtype),
                           line.read("n-layer", 1, 1024, o.model.nLayer), line.read("n-head", 1, 1024, o.model.nHead),
                           line.read("n-embd", 1, 65536, o.model.nEmbd),
                           line.read("block-size", 1, 1 << 20, o.model.blockSize),
                           line.read("vocab-size", 2, 1 << 24, o.model.vocabSize),
                           line.read("batch-size", 1, 1 << 20, o.batchSize), line.read("iters", 1, 100000, o.iters),
                           line.read("device-memory-budget", 1, 1LL << 50, o.deviceMemoryBudget),
                           line.read("threads", 0, 1024, o.threads)}) {
        if (!r)
            return r.error();
    }
    Result<ComputeDtype> parsedDtype = parseComputeDtype(dtype);
    if (!parsedDtype)
        return parsedDtype.error();
    o.dtype = *parsedDtype;
    o.json = line.isSet("json");
    return o;
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
    GptConfig &m = o.model;
    const auto orDefault = [](int &value, int cpu, int cuda, bool onGpu) { value = value > 0 ? value : onGpu ? cuda : cpu; };
    orDefault(m.nLayer, 4, 12, gpu);
    orDefault(m.nHead, 4, 12, gpu);
    orDefault(m.nEmbd, 128, 768, gpu);
    orDefault(m.blockSize, 64, 1024, gpu);
    orDefault(m.vocabSize, 65, 50304, gpu);
    orDefault(o.batchSize, 12, 8, gpu);
    orDefault(o.iters, 20, 10, gpu);
    m.dropout = 0.0;
    if (const std::string why = m.validate(); !why.empty())
        return makeError(why);

    nlohmann::json report = {{"device", device.str()}, {"dtype", computeDtypeName(dtype)}, {"threads", threads}};
    const std::int64_t n = benchMatmulSize(device);
    nlohmann::json matmul = {{"size", n}, {"float32", measureMatmulFlops(device, torch::kFloat, n)}};
    if (gpu) {
        matmul["bfloat16"] = measureMatmulFlops(device, torch::kBFloat16, n);
        matmul["float16"] = measureMatmulFlops(device, torch::kHalf, n);
    }
    report["matmul_flops_per_s"] = matmul;
    const double peak = matmul.value(computeDtypeName(dtype), matmul["float32"].get<double>());

    const std::int64_t copyBytes = gpu ? (std::int64_t(256) << 20) : (std::int64_t(64) << 20);
    const Bandwidth bandwidth = measureBandwidth(device, copyBytes);
    report["bandwidth_bytes_per_s"] = {{"host_to_device", bandwidth.hostToDevice},
                                       {"device_to_host", bandwidth.deviceToHost},
                                       {"both_host_to_device", bandwidth.bothHostToDevice},
                                       {"both_device_to_host", bandwidth.bothDeviceToHost},
                                       {"pinned", gpu}};

    // Training: resident, then swapped through a quarter of the weights and gradients (or the
    // largest stage, if that is more).
    ThroughputOptions t;
    t.model = m;
    t.batchSize = o.batchSize;
    t.iters = o.iters;
    t.device = device;
    t.dtype = dtype;
    if (o.deviceMemoryBudget <= 0) {
        torch::manual_seed(0);
        Gpt sizes(m);
        sizes->untieHead();
        std::int64_t total = 0, largest = 0;
        for (int s = 0; s < sizes->stageCount(); ++s) {
            std::int64_t bytes = 0;
            for (const auto &[name, w] : sizes->stage(s).weights())
                bytes += w.numel() * 8;
            total += bytes;
            largest = std::max(largest, bytes);
        }
        o.deviceMemoryBudget = std::max(total / 4, largest);
    }
    nlohmann::json training = {{"n_layer", m.nLayer}, {"n_head", m.nHead}, {"n_embd", m.nEmbd},
                               {"block_size", m.blockSize}, {"vocab_size", m.vocabSize}, {"batch_size", o.batchSize},
                               {"params", m.parameterCount()}};
    std::vector<double> tokensPerS;
    for (const SwapMode swap : {SwapMode::Off, SwapMode::On}) {
        t.swap = swap;
        t.deviceMemoryBudget = swap == SwapMode::On ? o.deviceMemoryBudget : 0;
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
    return report.dump();
}

} // namespace swarmtrain
