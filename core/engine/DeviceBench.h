#pragma once

#include "BenchOptions.h"
#include "Result.h"

#include <string>

namespace swarmtrain {

// The device benchmark the client reports when it joins a swarm: matrix-product FLOP/s in
// each precision the device trains in, copy bandwidth, and training throughput of a model
// resident and swapped through a quarter of its size. One JSON object.
Result<std::string> runDeviceBench(const BenchOptions &options);

} // namespace swarmtrain
