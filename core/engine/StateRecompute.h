#pragma once

#include "OuterOptimizer.h"
#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// The new swarm state is fixed by computation, not by votes (issue 16): from the previous
// state and a round's range averages the coordinator recomputes the state every member
// reached, and accepts an upload only when it holds those bits. Plain C++ in this header, so
// the coordinator (Qt) can call it without LibTorch.

// One range owner's average of [begin, end) of the flat parameter vector, as every member got
// it: the 8-bit wire form (Quantization.h, encodeQuantized).
struct RangeAverage {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::vector<std::byte> payload;
};

// The round's averaged pseudo-gradient as members apply it: each range decoded as they decode
// it (decodeQuantized, then dequantize), so the values are the same bits, and zeros where no
// range was averaged (a skipped range). Ranges must be non-empty, sorted, disjoint and within
// [0, parameterCount), and every payload must hold exactly its range's values; the layout is
// checked before the dense vector is allocated.
Result<std::vector<float>> assembleAverage(std::span<const RangeAverage> ranges, std::int64_t parameterCount);

// Recomputes the state after `previousState` (round r) with the outer step members apply
// (ReplicaTrainer::applyOuterStep with `outer`), and says what differs in `uploadedState`:
// round r + 1, the same model config and tokenizer, the schedule step of state r plus
// `scheduleAdvance` (none when state r records none), and parameters and outer momentum equal
// bit for bit to the recomputed ones; nothing when it holds all of that. The error is kept for
// what is not the upload's fault: the state cannot be recomputed from the caller's own inputs.
// The upload's config is compared before anything is built from it, and its tensors are
// compared in place. Whether the file loads as a whole (its checksum aside, which is checked
// here) stays inspectSwarmState's job. Holds about five copies of the parameter vector at most.
Result<std::optional<std::string>> checkReproducedState(const std::filesystem::path &previousState,
                                                        std::span<const float> averagedPseudoGradient,
                                                        const OuterOptimizerOptions &outer,
                                                        const std::filesystem::path &uploadedState,
                                                        std::int64_t scheduleAdvance);

} // namespace swarmtrain
