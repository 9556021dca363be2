#pragma once

#include "ModelConfig.h"
#include "Result.h"
#include "TrainOptions.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace swarmtrain {

// Everything `swarmtrain-cli bench` takes (runDeviceBench in DeviceBench.h).
struct BenchOptions {
    std::string device = "auto";
    ComputeDtype dtype = ComputeDtype::Auto;
    ModelConfig model;          // unset sizes (0): nanoGPT's shakespeare_char on a CPU, GPT-2 124M on a GPU
    int batchSize = 0;        // 0: 12 on a CPU, 8 on a GPU
    int iters = 0;            // 0: 20 on a CPU, 10 on a GPU
    std::int64_t deviceMemoryBudget = 0; // for the swapped run; 0 (auto): a quarter of the model
    int threads = 0;
    bool json = false;
    // Called on the benchmark's thread as it goes: percent done and the step it starts
    // ("matrix products", "copy bandwidth", "training, resident", "training, swapped", "done").
    std::function<void(int percent, const std::string &step)> progress;
};

Result<BenchOptions> parseBenchOptions(const std::vector<std::string> &args);
std::string benchUsage();

} // namespace swarmtrain
