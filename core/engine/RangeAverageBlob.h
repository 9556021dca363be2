#pragma once

#include "Result.h"
#include "StateRecompute.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace swarmtrain {

// A round's applied range averages as a member posts them to the coordinator (POST
// /v1/round/averages): per range, in range order, u64 begin, u64 end, u64 payload length
// (little-endian) and the payload. Plain C++, like RangeAverage.

// At most this many ranges in a blob (a round's owners; ContributionRequest's bound too).
inline constexpr std::size_t kMaxBlobRanges = 4096;
inline constexpr std::size_t kRangeAverageHeaderBytes = 24;

std::vector<std::byte> encodeRangeAverages(std::span<const RangeAverage> ranges);

// Bounded before anything is allocated: the count of ranges, each length against the bytes
// left, ranges non-empty, sorted, disjoint and within [0, parameterCount), and each payload
// exactly the encoded size of its range's values. The payloads are not decoded here.
Result<std::vector<RangeAverage>> decodeRangeAverages(std::span<const std::byte> bytes, std::int64_t parameterCount);

} // namespace swarmtrain
