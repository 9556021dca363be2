#include "HelpText.h"
#include "TrainOptions.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

std::string errorOf(const std::vector<std::string> &args)
{
    const Result<TrainOptions> o = parseTrainOptions(args);
    return o.ok() ? std::string() : o.error().message;
}

} // namespace

TEST(TrainOptionsTest, DefaultsAreNanoGptShakespeareChar)
{
    const TrainOptions o = parseTrainOptions({"--data", "x.txt"}).value();
    EXPECT_EQ(o.model.nLayer, 4);
    EXPECT_EQ(o.model.nEmbd, 128);
    EXPECT_EQ(o.batchSize, 12);
    EXPECT_EQ(o.schedule.decayIters, 2000);
    EXPECT_DOUBLE_EQ(o.beta2, 0.99);
    EXPECT_EQ(o.tokenizer, TokenizerKind::Char);
}

TEST(TrainOptionsTest, ReadsEveryFlag)
{
    const TrainOptions o = parseTrainOptions({"--data=d", "--tokenizer", "byte", "--n-layer", "6", "--n-head", "6",
                                              "--n-embd", "384", "--block-size", "256", "--max-iters", "10",
                                              "--lr", "6e-4", "--dropout", "0.2", "--bias", "--out", "o",
                                              "--seed", "3", "--threads", "2", "--lr-decay-iters", "7"})
                               .value();
    EXPECT_EQ(o.tokenizer, TokenizerKind::Byte);
    EXPECT_EQ(o.model.nEmbd, 384);
    EXPECT_EQ(o.model.blockSize, 256);
    EXPECT_DOUBLE_EQ(o.schedule.maxLr, 6e-4);
    EXPECT_DOUBLE_EQ(o.model.dropout, 0.2);
    EXPECT_TRUE(o.model.bias);
    EXPECT_EQ(o.schedule.decayIters, 7);
    EXPECT_EQ(o.seed, 3u);
    EXPECT_EQ(o.outDir, "o");
}

TEST(TrainOptionsTest, NonsenseIsRefusedWithAReason)
{
    EXPECT_NE(errorOf({"--data", "d", "--n-layer", "-2"}).find("--n-layer must be between"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--n-embd", "100", "--n-head", "3"}).find("divisible"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--lr", "fast"}).find("expects a number"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--lr", "nan"}).find("expects a number"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--batch-size", "12x"}).find("whole number"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--frobnicate"}).find("unknown option"), std::string::npos);
    EXPECT_NE(errorOf({"--data"}).find("needs a value"), std::string::npos);
    EXPECT_NE(errorOf({"--n-layer", "2"}).find("--data is required"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--tokenizer", "bpe"}).find("'char', 'byte' or 'sentencepiece'"), std::string::npos);
    EXPECT_NE(errorOf({"--resume"}).find("--out"), std::string::npos);
    EXPECT_NE(errorOf({"--data", "d", "--dropout", "1.5"}).find("--dropout"), std::string::npos);
}

TEST(TrainOptionsTest, SampleOptionsNeedACheckpoint)
{
    EXPECT_FALSE(parseSampleOptions({}).ok());
    const SampleOptions o = parseSampleOptions({"--checkpoint", "c", "--tokens", "50", "--top-k", "5"}).value();
    EXPECT_EQ(o.tokens, 50);
    EXPECT_EQ(o.topK, 5);
    EXPECT_FALSE(parseSampleOptions({"--checkpoint", "c", "--temperature", "0"}).ok());
}

TEST(TrainOptionsTest, DeviceDtypeSwapAndBudget)
{
    const Result<TrainOptions> o = parseTrainOptions({"--data", "x.txt", "--device", "cuda:1", "--dtype", "bfloat16",
                                                      "--swap", "on", "--device-memory-budget", "1.5G"});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->device, "cuda:1");
    EXPECT_EQ(o->dtype, ComputeDtype::BFloat16);
    EXPECT_EQ(o->swap, SwapMode::On);
    EXPECT_EQ(o->deviceMemoryBudget, std::int64_t(1.5 * 1024 * 1024 * 1024));

    const Result<TrainOptions> defaults = parseTrainOptions({"--data", "x.txt"});
    ASSERT_TRUE(defaults);
    EXPECT_EQ(defaults->device, "auto");
    EXPECT_EQ(defaults->swap, SwapMode::Auto);
    EXPECT_EQ(defaults->swapOptimizer, OptimizerPlacement::Auto);
    EXPECT_EQ(defaults->deviceMemoryBudget, 0);

    for (const auto &[name, placement] : std::vector<std::pair<std::string, OptimizerPlacement>>{
             {"host", OptimizerPlacement::Host},
             {"device", OptimizerPlacement::Device},
             {"auto", OptimizerPlacement::Auto}}) {
        const Result<TrainOptions> placed = parseTrainOptions({"--data", "x.txt", "--swap-optimizer", name});
        ASSERT_TRUE(placed) << placed.error().message;
        EXPECT_EQ(placed->swapOptimizer, placement) << name;
    }

    for (const auto &[flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--dtype", "fp8"}, {"--swap", "maybe"}, {"--swap-optimizer", "gpu"}, {"--device-memory-budget", "lots"},
             {"--device-memory-budget", "-5M"}, {"--device-memory-budget", "12Q"}}) {
        const Result<TrainOptions> bad = parseTrainOptions({"--data", "x.txt", flag, value});
        ASSERT_FALSE(bad) << flag << " " << value;
        EXPECT_NE(bad.error().message.find(flag), std::string::npos) << bad.error().message;
    }
}

TEST(TrainOptionsTest, HelpListsEveryFlagWithItsDefault)
{
    const std::string help = trainUsage();
    const std::vector<std::pair<std::string, std::string>> defaults = {
        {"--tokenizer", "char"}, {"--n-layer", "4"}, {"--n-head", "4"}, {"--n-embd", "128"}, {"--block-size", "64"},
        {"--dropout", "0"}, {"--batch-size", "12"}, {"--max-iters", "2000"}, {"--lr", "0.001"}, {"--min-lr", "0.0001"},
        {"--warmup-iters", "100"}, {"--lr-decay-iters", "--max-iters"}, {"--beta2", "0.99"},
        {"--weight-decay", "0.1"}, {"--grad-clip", "1"}, {"--eval-interval", "250"}, {"--eval-iters", "20"},
        {"--seed", "1"}, {"--threads", "0"}, {"--device", "auto"}, {"--dtype", "auto"}, {"--swap", "auto"},
        {"--swap-optimizer", "auto"}, {"--device-memory-budget", "auto"}, {"--sample-tokens", "0"}};
    for (const auto &[flag, value] : defaults) {
        const std::string entry = test::helpEntry(help, flag);
        EXPECT_NE(entry.find("(default: " + value + ")"), std::string::npos) << flag << " in\n" << help;
    }
    // Required, or off and empty unless given: listed with a description, no default.
    for (const char *flag : {"--data", "--out", "--profile", "--bias", "--resume", "--quiet"}) {
        const std::string entry = test::helpEntry(help, flag);
        EXPECT_GT(entry.size(), std::string(flag).size() + 10) << flag << " in\n" << help;
        EXPECT_EQ(entry.find("(default:"), std::string::npos) << entry;
    }
    EXPECT_NE(test::helpEntry(help, "--n-layer").find("INT in [1, 1024]"), std::string::npos) << help;
    EXPECT_NE(test::helpEntry(help, "--swap").find("off|on|auto"), std::string::npos) << help;
    EXPECT_NE(sampleUsage().find("--top-k INT in [0, 1048576]"), std::string::npos) << sampleUsage();
}

TEST(TrainOptionsTest, EveryBadValueNamesItsFlag)
{
    for (const char *flag : {"--data", "--tokenizer", "--n-layer", "--n-head", "--n-embd", "--block-size", "--dropout",
                             "--batch-size", "--max-iters", "--lr", "--min-lr", "--warmup-iters", "--lr-decay-iters",
                             "--beta2", "--weight-decay", "--grad-clip", "--eval-interval", "--eval-iters", "--seed",
                             "--threads", "--device", "--dtype", "--swap", "--swap-optimizer",
                             "--device-memory-budget", "--out", "--sample-tokens", "--profile"}) {
        const std::string error = errorOf({"--data", "d", flag, ""});
        EXPECT_EQ(error.rfind(flag, 0), 0u) << flag << ": " << error;
    }
    for (const std::string flag : {"--bias", "--resume", "--quiet"})
        EXPECT_EQ(errorOf({"--data", "d", "--out", "o", flag + "=1"}), flag + " takes no value");
    EXPECT_EQ(errorOf({"--data", "d", "--seed", "3", "stray"}), "unexpected argument 'stray'");
    EXPECT_EQ(errorOf({"--data", "d", "--n-layer", "0", "--bogus=1"}), "unknown option --bogus")
        << "an unknown flag is the first thing to report";
}

TEST(TrainOptionsTest, NumbersAreReadAsWritten)
{
    // CLI11 alone would read 010 as octal and round decimals through long double.
    const Result<TrainOptions> o = parseTrainOptions(
        {"--data", "d", "--n-layer", "010", "--lr", "6e-4", "--min-lr", "0.0001", "--dropout", "0.1", "--seed", "7"});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_EQ(o->model.nLayer, 10);
    EXPECT_EQ(o->schedule.maxLr, 6e-4);
    EXPECT_EQ(o->schedule.minLr, 0.0001);
    EXPECT_EQ(o->model.dropout, 0.1);
    EXPECT_EQ(o->seed, 7u);
    // The last of a repeated flag wins, as it always did.
    EXPECT_EQ(parseTrainOptions({"--data", "d", "--n-layer", "2", "--n-layer", "3"})->model.nLayer, 3);
}
