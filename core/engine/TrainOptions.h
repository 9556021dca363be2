#pragma once

#include "ModelConfig.h"
#include "LrSchedule.h"
#include "Result.h"
#include "SwapPlanner.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

// The precision of the matrix products; master weights and optimizer state stay float32.
enum class ComputeDtype { Auto, Float32, BFloat16, Float16 };
std::string computeDtypeName(ComputeDtype dtype);
// "auto", "float32", "bfloat16" or "float16"; anything else is an error naming --dtype.
Result<ComputeDtype> parseComputeDtype(const std::string &name);
// --device-memory-budget: "auto" (0) or bytes with an optional K, M or G suffix (powers of 1024).
Result<void> parseByteCount(const std::string &text, std::int64_t &out);

// Off: the model lives on the device. On: stages are swapped through it. Auto: swapped
// only when the model does not fit the device-memory budget.
enum class SwapMode { Off, On, Auto };

// Everything `swarmtrain-cli train` takes; defaults are nanoGPT's shakespeare_char on a CPU.
struct TrainOptions {
    std::filesystem::path data;
    TokenizerKind tokenizer = TokenizerKind::Char;
    // SentencePiece: this tokenizer.model, or (none) one trained on the data with this many
    // pieces and saved beside the checkpoint.
    std::filesystem::path tokenizerModel;
    int vocabSize = 4096;
    ModelConfig model;
    int batchSize = 12;
    std::int64_t maxIters = 2000;
    double maxSeconds = 0.0; // also stop once training took this long (0: no limit), for equal-time comparisons
    LrSchedule schedule{1e-3, 1e-4, 100, 2000};
    double beta1 = 0.9;
    double beta2 = 0.99;
    double weightDecay = 0.1;
    double gradClip = 1.0;
    std::int64_t evalInterval = 250;
    int evalIters = 20;
    std::uint64_t seed = 1;
    int threads = 0; // 0: the cores available
    std::string device = "auto";
    ComputeDtype dtype = ComputeDtype::Auto;
    SwapMode swap = SwapMode::Auto;
    OptimizerPlacement swapOptimizer = OptimizerPlacement::Auto; // swapped only: host, device or measured
    std::int64_t deviceMemoryBudget = 0; // bytes of stages the device holds at once; 0: auto
    std::filesystem::path outDir;
    bool resume = false;
    int sampleTokens = 0; // a sample printed after training
    bool quiet = false;   // no live progress line
    std::filesystem::path profile; // a Chrome trace of LibTorch's operators, when set
};

struct SampleOptions {
    std::filesystem::path checkpointDir;
    int tokens = 200;
    double temperature = 0.8;
    int topK = 40;
    std::uint64_t seed = 1;
    std::string prompt = "\n";
    int threads = 0;
};

Result<TrainOptions> parseTrainOptions(const std::vector<std::string> &args);
Result<SampleOptions> parseSampleOptions(const std::vector<std::string> &args);

std::string trainUsage();
std::string sampleUsage();

} // namespace swarmtrain
