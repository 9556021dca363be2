#pragma once

#include "BenchOptions.h"
#include "Result.h"

#include <cstdint>
#include <string>

namespace swarmtrain {

// What a peer tells the swarm about its device when it joins: a few seconds' measurement.
struct DeviceCapability {
    std::string device;     // as resolved: "cpu", "cuda:0"
    std::string dtype;      // the precision it trains in
    double matmulFlopsPerSecond = 0.0;
    double hostToDeviceBytesPerSecond = 0.0;
    double deviceToHostBytesPerSecond = 0.0;
    std::int64_t freeMemoryBytes = 0; // on the device (or the memory programs may use, on the CPU)
};

// Matrix products in the precision `device` trains in, and copies to and from it (pinned on a
// GPU); under a second or two on any device.
Result<DeviceCapability> measureDeviceCapability(const std::string &device, int threads);

// The device benchmark the client reports when it joins a swarm: matrix-product FLOP/s in
// each precision the device trains in, copy bandwidth, and training throughput of a model
// resident and swapped through a quarter of its size. One JSON object.
Result<std::string> runDeviceBench(const BenchOptions &options);

} // namespace swarmtrain
