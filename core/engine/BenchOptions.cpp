#include "BenchOptions.h"

#include "CliFlags.h"

namespace swarmtrain {

namespace {

// The flags of `swarmtrain-cli bench`; sizes left at 0 are chosen by the device found.
void defineBenchFlags(CLI::App &app, BenchOptions &o, std::string &dtype, std::string &budget, std::string &family)
{
    flags::configure(app);
    app.add_option("--family", family, "gpt, or llama (a Llama of the same shape: 3 query heads a key/value head on a "
                                        "GPU, 2 on a CPU, SwiGLU of 8/3 the width, a 32000-token vocabulary on a GPU)")
        ->check(flags::oneOf({"gpt", "llama"}));
    app.add_flag("--json", o.json, "one JSON object instead of a table");
    app.add_option("--device", o.device, "auto, cpu, cuda or cuda:N")
        ->type_name("DEVICE")
        ->check(flags::nonEmpty());
    app.add_option("--dtype", dtype, "precision of the matrix products")
        ->check(flags::oneOf({"auto", "float32", "bfloat16", "float16"}));
    app.add_option("--n-layer", o.model.nLayer, "transformer blocks")
        ->transform(flags::wholeNumberIn(1, 1024))
        ->default_str("4 on a CPU, 12 on a GPU");
    app.add_option("--n-head", o.model.nHead, "attention heads per block")
        ->transform(flags::wholeNumberIn(1, 1024))
        ->default_str("4 on a CPU, 12 on a GPU");
    app.add_option("--n-embd", o.model.nEmbd, "embedding width")
        ->transform(flags::wholeNumberIn(1, 65536))
        ->default_str("128 on a CPU, 768 on a GPU");
    app.add_option("--block-size", o.model.blockSize, "context length in tokens")
        ->transform(flags::wholeNumberIn(1, 1 << 20))
        ->default_str("64 on a CPU, 1024 on a GPU");
    app.add_option("--vocab-size", o.model.vocabSize, "vocabulary size")
        ->transform(flags::wholeNumberIn(2, 1 << 24))
        ->default_str("65 on a CPU, 50304 on a GPU");
    app.add_option("--batch-size", o.batchSize, "sequences per step")
        ->transform(flags::wholeNumberIn(1, 1 << 20))
        ->default_str("12 on a CPU, 8 on a GPU");
    app.add_option("--iters", o.iters, "timed training steps")
        ->transform(flags::wholeNumberIn(1, 100000))
        ->default_str("20 on a CPU, 10 on a GPU");
    app.add_option("--device-memory-budget", budget, "bytes of stages the swapped run holds at once (auto: a quarter "
                                                     "of the model)")
        ->check(flags::byteCount());
    app.add_option("--threads", o.threads, "CPU threads (0: the cores available)")
        ->transform(flags::wholeNumberIn(0, 1024));
}

} // namespace

std::string benchUsage()
{
    BenchOptions o;
    std::string dtype = "auto", budget = "auto", family = "gpt";
    CLI::App app("Measures this machine's device: matrix-product FLOP/s, copy bandwidth, training speed resident "
                 "and swapped.",
                 "swarmtrain-cli bench");
    defineBenchFlags(app, o, dtype, budget, family);
    return app.help();
}

Result<BenchOptions> parseBenchOptions(const std::vector<std::string> &args)
{
    BenchOptions o;
    o.model.nLayer = o.model.nHead = o.model.nEmbd = o.model.blockSize = o.model.vocabSize = 0;
    std::string dtype = "auto", budget = "auto", family = "gpt";
    CLI::App app;
    defineBenchFlags(app, o, dtype, budget, family);
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    o.model.family = *parseModelFamily(family); // the validator lets only these through
    if (Result<void> r = parseByteCount(budget, o.deviceMemoryBudget); !r)
        return r.error();
    o.dtype = parseComputeDtype(dtype).value(); // the validator lets only these spellings through
    return o;
}

} // namespace swarmtrain
