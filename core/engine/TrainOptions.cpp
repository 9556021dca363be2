#include "TrainOptions.h"

#include "CliFlags.h"
#include "ModelFlags.h"

#include <exception>

namespace swarmtrain {

namespace {

constexpr long long kMaxCount = 1'000'000'000'000LL;

// What `train` reads as text before turning it into TrainOptions' types.
struct TrainText {
    std::string data, tokenizer = "char", dtype = "auto", swap = "auto", swapOptimizer = "auto", budget = "auto";
    std::string out, profile, tokenizerModel;
    ModelFlagText model;
};

// The flags of `swarmtrain-cli train`, bound to `o` and `text`; `decayIters` is the one whose
// default is another flag's value.
CLI::Option *defineTrainFlags(CLI::App &app, TrainOptions &o, TrainText &text)
{
    flags::configure(app);
    app.add_option("--data", text.data, "text file, or folder of .txt files, to train on (not needed with --resume)")
        ->type_name("FILE|DIR")
        ->check(flags::nonEmpty());
    app.add_option("--tokenizer", text.tokenizer, "characters of the corpus, bytes, or SentencePiece BPE")
        ->check(flags::oneOf({"char", "byte", "sentencepiece"}, true));
    app.add_option("--tokenizer-model", text.tokenizerModel, "a SentencePiece tokenizer.model (none: one trained on --data)")
        ->type_name("FILE")
        ->check(flags::nonEmpty());
    app.add_option("--vocab-size", o.vocabSize, "pieces of the SentencePiece tokenizer trained on --data")
        ->transform(flags::wholeNumberIn(300, 1 << 20));
    addModelFlags(app, o.model, text.model);
    app.add_option("--batch-size", o.batchSize, "sequences per step")->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--max-iters", o.maxIters, "training steps")->transform(flags::wholeNumberIn(0, kMaxCount));
    app.add_option("--max-seconds", o.maxSeconds, "also stop after this many seconds of training (0: no limit)")
        ->transform(flags::numberIn(0.0, 1e9));
    app.add_option("--lr", o.schedule.maxLr, "peak learning rate")->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--min-lr", o.schedule.minLr, "learning rate at the end of the cosine decay")
        ->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--warmup-iters", o.schedule.warmupIters, "steps of linear warm-up")
        ->transform(flags::wholeNumberIn(0, kMaxCount));
    CLI::Option *decayIters = app.add_option("--lr-decay-iters", o.schedule.decayIters, "steps of the cosine decay")
                                  ->transform(flags::wholeNumberIn(0, kMaxCount))
                                  ->default_str("--max-iters");
    app.add_option("--beta2", o.beta2, "AdamW's second-moment decay")->transform(flags::numberIn(0.0, 0.999999));
    app.add_option("--weight-decay", o.weightDecay, "AdamW's decoupled weight decay (2-D weights only)")
        ->transform(flags::numberIn(0.0, 10.0));
    app.add_option("--grad-clip", o.gradClip, "largest gradient norm (0: no clipping)")
        ->transform(flags::numberIn(0.0, 1e6));
    app.add_option("--eval-interval", o.evalInterval, "steps between validation losses")
        ->transform(flags::wholeNumberIn(1, kMaxCount));
    app.add_option("--eval-iters", o.evalIters, "batches per validation loss")
        ->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--seed", o.seed, "seed of the initial weights and the batches")
        ->transform(flags::wholeNumberIn(0, kMaxCount));
    app.add_option("--threads", o.threads, "CPU threads (0: the cores available)")
        ->transform(flags::wholeNumberIn(0, 1024));
    app.add_option("--device", o.device, "auto, cpu, cuda or cuda:N")
        ->type_name("DEVICE")
        ->check(flags::nonEmpty());
    app.add_option("--dtype", text.dtype, "precision of the matrix products (weights stay float32)")
        ->check(flags::oneOf({"auto", "float32", "bfloat16", "float16"}));
    app.add_option("--swap", text.swap, "swap stages through the device (auto: when the model does not fit)")
        ->check(flags::oneOf({"off", "on", "auto"}));
    app.add_option("--swap-optimizer", text.swapOptimizer, "where a swapped model's optimizer steps (auto: measured)")
        ->check(flags::oneOf({"auto", "host", "device"}));
    app.add_option("--device-memory-budget", text.budget, "bytes of stages the device holds at once (K, M, G suffixes)")
        ->check(flags::byteCount());
    app.add_option("--out", text.out, "folder for the checkpoint (none: not saved)")
        ->type_name("DIR")
        ->check(flags::nonEmpty());
    app.add_flag("--resume", o.resume, "continue from the checkpoint in --out");
    app.add_option("--sample-tokens", o.sampleTokens, "tokens of a sample printed after training")
        ->transform(flags::wholeNumberIn(0, 1 << 20));
    app.add_flag("--quiet", o.quiet, "no live progress line");
    app.add_option("--profile", text.profile, "write a Chrome trace of LibTorch's operators")
        ->type_name("TRACE.json")
        ->check(flags::nonEmpty());
    return decayIters;
}

void defineSampleFlags(CLI::App &app, SampleOptions &o, std::string &checkpoint)
{
    flags::configure(app);
    app.add_option("--checkpoint", checkpoint, "folder holding checkpoint.safetensors (required)")
        ->type_name("DIR")
        ->check(flags::nonEmpty());
    app.add_option("--tokens", o.tokens, "tokens to generate")->transform(flags::wholeNumberIn(1, 1 << 20));
    app.add_option("--temperature", o.temperature, "softmax temperature")->transform(flags::numberIn(1e-3, 100.0));
    app.add_option("--top-k", o.topK, "sample among the k likeliest tokens (0: all)")
        ->transform(flags::wholeNumberIn(0, 1 << 20));
    app.add_option("--prompt", o.prompt, "text the sample continues")
        ->check(flags::nonEmpty())
        ->default_str("a newline");
    app.add_option("--seed", o.seed, "sampling seed")->transform(flags::wholeNumberIn(0, kMaxCount));
    app.add_option("--threads", o.threads, "CPU threads (0: the cores available)")
        ->transform(flags::wholeNumberIn(0, 1024));
}

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
    TrainOptions o;
    TrainText text;
    CLI::App app("Trains a model (nanoGPT's GPT or a Llama) on one machine and prints a JSON report (nanoGPT's shakespeare_char by default).",
                 "swarmtrain-cli train");
    defineTrainFlags(app, o, text);
    return app.help();
}

std::string sampleUsage()
{
    SampleOptions o;
    std::string checkpoint;
    CLI::App app("Generates text from a checkpoint.", "swarmtrain-cli sample");
    defineSampleFlags(app, o, checkpoint);
    return app.help();
}

Result<TrainOptions> parseTrainOptions(const std::vector<std::string> &args)
{
    TrainOptions o;
    TrainText text;
    CLI::App app;
    const CLI::Option *decayIters = defineTrainFlags(app, o, text);
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    if (decayIters->count() == 0)
        o.schedule.decayIters = o.maxIters;

    if (text.data.empty() && !o.resume)
        return makeError("--data is required");
    if (o.resume && text.out.empty())
        return makeError("--resume needs --out DIR holding the checkpoint to continue");
    if (o.schedule.minLr > o.schedule.maxLr)
        return makeError("--min-lr must not exceed --lr");
    if (Result<void> model = finishModelFlags(o.model, text.model); !model)
        return model.error();
    // The validators let only these spellings through.
    o.dtype = parseComputeDtype(text.dtype).value();
    if (Result<void> budget = parseByteCount(text.budget, o.deviceMemoryBudget); !budget)
        return budget.error();
    o.swap = text.swap == "on" ? SwapMode::On : text.swap == "off" ? SwapMode::Off : SwapMode::Auto;
    o.swapOptimizer = text.swapOptimizer == "host"     ? OptimizerPlacement::Host
                      : text.swapOptimizer == "device" ? OptimizerPlacement::Device
                                                       : OptimizerPlacement::Auto;
    o.data = text.data;
    o.tokenizer = text.tokenizer == "char"   ? TokenizerKind::Char
                  : text.tokenizer == "byte" ? TokenizerKind::Byte
                                             : TokenizerKind::SentencePiece;
    o.tokenizerModel = text.tokenizerModel;
    if (!o.tokenizerModel.empty() && o.tokenizer != TokenizerKind::SentencePiece)
        return makeError("--tokenizer-model goes with --tokenizer sentencepiece");
    o.outDir = text.out;
    o.profile = text.profile;
    return o;
}

Result<SampleOptions> parseSampleOptions(const std::vector<std::string> &args)
{
    SampleOptions o;
    std::string checkpoint;
    CLI::App app;
    defineSampleFlags(app, o, checkpoint);
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    if (checkpoint.empty())
        return makeError("--checkpoint DIR is required");
    o.checkpointDir = checkpoint;
    return o;
}

} // namespace swarmtrain
