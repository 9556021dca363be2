#include "TrainOptions.h"

#include "CommandLine.h"

#include <exception>

namespace swarmtrain {

namespace {

constexpr long long kMaxCount = 1'000'000'000'000LL;

// Runs each read in turn and stops at the first error.
#define SWARMTRAIN_TRY(expression)                                                                                     \
    do {                                                                                                               \
        if (Result<void> result_ = (expression); !result_)                                                             \
            return result_.error();                                                                                    \
    } while (false)

} // namespace

std::string computeDtypeName(ComputeDtype dtype)
{
    switch (dtype) {
    case ComputeDtype::Auto: return "auto";
    case ComputeDtype::Float32: return "float32";
    case ComputeDtype::BFloat16: return "bfloat16";
    case ComputeDtype::Float16: return "float16";
    }
    return "?";
}

Result<void> parseByteCount(const std::string &text, std::int64_t &out)
{
    if (text == "auto") {
        out = 0;
        return {};
    }
    std::size_t used = 0;
    double value = 0.0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    const std::string suffix = text.substr(used);
    const double scale = suffix.empty() || suffix == "B" ? 1.0
                         : suffix == "K" || suffix == "KiB" ? 1024.0
                         : suffix == "M" || suffix == "MiB" ? 1024.0 * 1024.0
                         : suffix == "G" || suffix == "GiB" ? 1024.0 * 1024.0 * 1024.0
                                                            : 0.0;
    if (used == 0 || scale == 0.0 || !(value >= 1.0) || value * scale > 1e15)
        return makeError("--device-memory-budget must be 'auto' or a size such as 12000000, 512M or 6G, got '" + text + "'");
    out = std::int64_t(value * scale);
    return {};
}

Result<ComputeDtype> parseComputeDtype(const std::string &name)
{
    for (const ComputeDtype dtype : {ComputeDtype::Auto, ComputeDtype::Float32, ComputeDtype::BFloat16, ComputeDtype::Float16}) {
        if (name == computeDtypeName(dtype))
            return dtype;
    }
    return makeError("--dtype must be auto, float32, bfloat16 or float16, got '" + name + "'");
}

std::string trainUsage()
{
    return "usage: swarmtrain-cli train --data FILE|DIR [--tokenizer char|byte] [--n-layer N] [--n-head N]\n"
           "       [--n-embd N] [--block-size N] [--batch-size N] [--max-iters N] [--lr X] [--min-lr X]\n"
           "       [--warmup-iters N] [--lr-decay-iters N] [--beta2 X] [--weight-decay X] [--grad-clip X]\n"
           "       [--dropout X] [--bias] [--eval-interval N] [--eval-iters N] [--seed N] [--threads N]\n"
           "       [--device auto|cpu|cuda[:N]] [--dtype auto|float32|bfloat16|float16] [--swap off|on|auto]\n"
           "       [--swap-optimizer auto|host|device] [--device-memory-budget BYTES|auto] [--out DIR]\n"
           "       [--resume] [--sample-tokens N] [--quiet] [--profile TRACE.json]\n";
}

std::string sampleUsage()
{
    return "usage: swarmtrain-cli sample --checkpoint DIR [--tokens N] [--temperature X] [--top-k N]\n"
           "       [--prompt TEXT] [--seed N] [--threads N]\n";
}

Result<TrainOptions> parseTrainOptions(const std::vector<std::string> &args)
{
    const Result<CommandLine> parsed = CommandLine::parse(
        args,
        {"data", "tokenizer", "n-layer", "n-head", "n-embd", "block-size", "batch-size", "max-iters", "lr", "min-lr",
         "warmup-iters", "lr-decay-iters", "beta2", "weight-decay", "grad-clip", "dropout", "eval-interval",
         "eval-iters", "seed", "threads", "device", "dtype", "swap", "swap-optimizer", "device-memory-budget", "out",
         "sample-tokens", "profile"},
        {"resume", "bias", "quiet"});
    if (!parsed)
        return parsed.error();
    const CommandLine &line = *parsed;

    TrainOptions o;
    std::string data, tokenizer = "char", out, profile, dtype = "auto", swap = "auto", budget = "auto";
    std::string swapOptimizer = "auto";
    SWARMTRAIN_TRY(line.readString("data", data));
    SWARMTRAIN_TRY(line.readString("tokenizer", tokenizer));
    SWARMTRAIN_TRY(line.read("n-layer", 1, 1024, o.model.nLayer));
    SWARMTRAIN_TRY(line.read("n-head", 1, 1024, o.model.nHead));
    SWARMTRAIN_TRY(line.read("n-embd", 1, 65536, o.model.nEmbd));
    SWARMTRAIN_TRY(line.read("block-size", 1, 1 << 20, o.model.blockSize));
    SWARMTRAIN_TRY(line.read("batch-size", 1, 1 << 20, o.batchSize));
    SWARMTRAIN_TRY(line.read("max-iters", 0, kMaxCount, o.maxIters));
    SWARMTRAIN_TRY(line.readDouble("lr", 0.0, 10.0, o.schedule.maxLr));
    SWARMTRAIN_TRY(line.readDouble("min-lr", 0.0, 10.0, o.schedule.minLr));
    SWARMTRAIN_TRY(line.read("warmup-iters", 0, kMaxCount, o.schedule.warmupIters));
    o.schedule.decayIters = o.maxIters;
    SWARMTRAIN_TRY(line.read("lr-decay-iters", 0, kMaxCount, o.schedule.decayIters));
    SWARMTRAIN_TRY(line.readDouble("beta2", 0.0, 0.999999, o.beta2));
    SWARMTRAIN_TRY(line.readDouble("weight-decay", 0.0, 10.0, o.weightDecay));
    SWARMTRAIN_TRY(line.readDouble("grad-clip", 0.0, 1e6, o.gradClip));
    SWARMTRAIN_TRY(line.readDouble("dropout", 0.0, 0.999, o.model.dropout));
    SWARMTRAIN_TRY(line.read("eval-interval", 1, kMaxCount, o.evalInterval));
    SWARMTRAIN_TRY(line.read("eval-iters", 1, 1 << 20, o.evalIters));
    SWARMTRAIN_TRY(line.read("seed", 0, kMaxCount, o.seed));
    SWARMTRAIN_TRY(line.read("threads", 0, 1024, o.threads));
    SWARMTRAIN_TRY(line.readString("device", o.device));
    SWARMTRAIN_TRY(line.readString("dtype", dtype));
    SWARMTRAIN_TRY(line.readString("swap", swap));
    SWARMTRAIN_TRY(line.readString("swap-optimizer", swapOptimizer));
    SWARMTRAIN_TRY(line.readString("device-memory-budget", budget));
    SWARMTRAIN_TRY(parseByteCount(budget, o.deviceMemoryBudget));
    SWARMTRAIN_TRY(line.readString("out", out));
    SWARMTRAIN_TRY(line.read("sample-tokens", 0, 1 << 20, o.sampleTokens));
    SWARMTRAIN_TRY(line.readString("profile", profile));
    o.model.bias = line.isSet("bias");
    o.resume = line.isSet("resume");
    o.quiet = line.isSet("quiet");

    if (data.empty() && !o.resume)
        return makeError("--data is required");
    if (tokenizer != "char" && tokenizer != "byte")
        return makeError("--tokenizer must be 'char' or 'byte', got '" + tokenizer + "'");
    if (o.resume && out.empty())
        return makeError("--resume needs --out DIR holding the checkpoint to continue");
    if (o.schedule.minLr > o.schedule.maxLr)
        return makeError("--min-lr must not exceed --lr");
    if (o.model.nEmbd % o.model.nHead != 0) {
        return makeError("--n-embd (" + std::to_string(o.model.nEmbd) + ") must be divisible by --n-head ("
                         + std::to_string(o.model.nHead) + ")");
    }
    Result<ComputeDtype> parsedDtype = parseComputeDtype(dtype);
    if (!parsedDtype)
        return parsedDtype.error();
    o.dtype = *parsedDtype;
    if (swap != "off" && swap != "on" && swap != "auto")
        return makeError("--swap must be off, on or auto, got '" + swap + "'");
    o.swap = swap == "on" ? SwapMode::On : swap == "off" ? SwapMode::Off : SwapMode::Auto;
    if (swapOptimizer != "auto" && swapOptimizer != "host" && swapOptimizer != "device")
        return makeError("--swap-optimizer must be auto, host or device, got '" + swapOptimizer + "'");
    o.swapOptimizer = swapOptimizer == "host"     ? OptimizerPlacement::Host
                      : swapOptimizer == "device" ? OptimizerPlacement::Device
                                                  : OptimizerPlacement::Auto;
    o.data = data;
    o.tokenizer = tokenizer == "char" ? TokenizerKind::Char : TokenizerKind::Byte;
    o.outDir = out;
    o.profile = profile;
    return o;
}

Result<SampleOptions> parseSampleOptions(const std::vector<std::string> &args)
{
    const Result<CommandLine> parsed =
        CommandLine::parse(args, {"checkpoint", "tokens", "temperature", "top-k", "seed", "prompt", "threads"}, {});
    if (!parsed)
        return parsed.error();
    const CommandLine &line = *parsed;
    SampleOptions o;
    std::string checkpoint;
    SWARMTRAIN_TRY(line.readString("checkpoint", checkpoint));
    SWARMTRAIN_TRY(line.read("tokens", 1, 1 << 20, o.tokens));
    SWARMTRAIN_TRY(line.readDouble("temperature", 1e-3, 100.0, o.temperature));
    SWARMTRAIN_TRY(line.read("top-k", 0, 1 << 20, o.topK));
    SWARMTRAIN_TRY(line.read("seed", 0, kMaxCount, o.seed));
    SWARMTRAIN_TRY(line.readString("prompt", o.prompt));
    SWARMTRAIN_TRY(line.read("threads", 0, 1024, o.threads));
    if (checkpoint.empty())
        return makeError("--checkpoint DIR is required");
    o.checkpointDir = checkpoint;
    return o;
}

} // namespace swarmtrain
