#include "HttpBackoff.h"

#include <algorithm>

namespace swarmtrain {

std::int64_t backoffDelayMs(int retry, std::int64_t initialMs, std::int64_t maxMs, std::int64_t retryAfterMs,
                            double uniform01)
{
    maxMs = std::max<std::int64_t>(maxMs, 0);
    std::int64_t ceiling = std::clamp<std::int64_t>(initialMs, 0, maxMs);
    for (int i = 0; i < retry && ceiling < maxMs; ++i)
        ceiling = std::min(maxMs, ceiling * 2);
    const double fraction = std::clamp(uniform01, 0.0, 1.0);
    const auto jittered = std::int64_t(double(ceiling) * fraction);
    return std::max(jittered, std::clamp<std::int64_t>(retryAfterMs, 0, maxMs));
}

} // namespace swarmtrain
