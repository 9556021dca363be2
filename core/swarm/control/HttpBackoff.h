#pragma once

#include <cstdint>

namespace swarmtrain {

// Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And
// Jitter"): the n-th retry waits a uniform random time in [0, min(max, initial * 2^n)], so
// clients that failed together do not come back together. A server's Retry-After is a floor,
// capped at maxMs so that a confused server cannot park the worker for hours.
//   retry: 0 for the first retry; uniform01: a random number in [0, 1).
std::int64_t backoffDelayMs(int retry, std::int64_t initialMs, std::int64_t maxMs, std::int64_t retryAfterMs,
                            double uniform01);

} // namespace swarmtrain
