#pragma once

#include <cstdint>

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

// The matrix-product size benchmarks use on this device: large enough to reach peak.
std::int64_t benchMatmulSize(const torch::Device &device);

// The host waits for the work queued on the device (nothing to wait for on the CPU).
void synchronizeDevice(const torch::Device &device);

} // namespace swarmtrain
