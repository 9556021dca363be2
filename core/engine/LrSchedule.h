#pragma once

#include <cstdint>

namespace swarmtrain {

// nanoGPT's schedule: linear warm-up, cosine decay to minLr at decayIters, then flat.
struct LrSchedule {
    double maxLr = 1e-3;
    double minLr = 1e-4;
    std::int64_t warmupIters = 100;
    std::int64_t decayIters = 5000;

    double at(std::int64_t iter) const;
};

} // namespace swarmtrain
