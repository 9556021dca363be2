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
    EXPECT_NE(errorOf({"--data", "d", "--tokenizer", "bpe"}).find("'char' or 'byte'"), std::string::npos);
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
