#pragma once

#include "GptConfig.h"
#include "Result.h"
#include "TrainOptions.h"

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace swarmtrain {

// Matrix-product throughput: an n x n x n product in `dtype`, repeated for at least
// `minSeconds`; returns FLOP/s (2 n^3 per product).
double measureMatmulFlops(const torch::Device &device, torch::ScalarType dtype, std::int64_t n, double minSeconds = 0.3);

struct Bandwidth {
    double hostToDevice = 0.0;     // bytes/s, from pinned host memory
    double deviceToHost = 0.0;
    double bothHostToDevice = 0.0; // each direction while the other runs at the same time
    double bothDeviceToHost = 0.0;
};

// Copies of `bytes` between pinned host memory and the device, each direction alone and both
// at once on two streams. On the CPU these are host-to-host copies.
Bandwidth measureBandwidth(const torch::Device &device, std::int64_t bytes, int repeats = 5);

struct ThroughputOptions {
    GptConfig model;
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
    bool swapped = false;
    std::int64_t swappedBytesPerIter = 0;
    std::string swapPlan;
};

// Training steps of a model of this configuration on random tokens.
Result<Throughput> measureTrainingThroughput(const ThroughputOptions &options);

// The matrix-product size benchmarks use on this device: large enough to reach peak.
std::int64_t benchMatmulSize(const torch::Device &device);

struct BenchOptions {
    std::string device = "auto";
    ComputeDtype dtype = ComputeDtype::Auto;
    GptConfig model;          // unset sizes (0): nanoGPT's shakespeare_char on a CPU, GPT-2 124M on a GPU
    int batchSize = 0;        // 0: 12 on a CPU, 8 on a GPU
    int iters = 0;            // 0: 20 on a CPU, 10 on a GPU
    std::int64_t deviceMemoryBudget = 0; // for the swapped run; 0: a quarter of the model
    int threads = 0;
    bool json = false;
};

Result<BenchOptions> parseBenchOptions(const std::vector<std::string> &args);
std::string benchUsage();

// The device benchmark the client reports when it joins a swarm: matrix-product FLOP/s in
// each precision the device trains in, copy bandwidth, and training throughput of a model
// resident and swapped through a quarter of its size. One JSON object.
Result<std::string> runDeviceBench(const BenchOptions &options);

} // namespace swarmtrain
