#include "LrSchedule.h"

#include <cmath>
#include <numbers>

namespace swarmtrain {

double LrSchedule::at(std::int64_t iter) const
{
    if (iter < warmupIters)
        return maxLr * double(iter + 1) / double(warmupIters + 1);
    if (iter > decayIters || decayIters <= warmupIters)
        return minLr;
    const double ratio = double(iter - warmupIters) / double(decayIters - warmupIters);
    const double coefficient = 0.5 * (1.0 + std::cos(std::numbers::pi * ratio));
    return minLr + coefficient * (maxLr - minLr);
}

} // namespace swarmtrain
