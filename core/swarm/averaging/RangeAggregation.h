#pragma once

#include "CenteredClip.h"
#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

// How a range owner combines the pieces of its range, and how its checker, its referee and the
// coordinator (ruling on an owner's evidence, issue 43) recompute that average: one function, so
// that all of them get the same numbers from the same pieces.
namespace swarmtrain {

// A contributor's piece of the range and what the round's schedule says of its sender.
struct RangePiece {
    std::span<const float> values;
    bool probation = false;     // checked, but left out of the average
    double weight = 1.0;        // the inner steps admitted for it (1 in a fixed-H round)
    std::int64_t staleness = 0; // an asynchronous round: rounds since the state it trained on
};

struct RangeAggregationOptions {
    Aggregation aggregation = Aggregation::CenteredClip;
    CenteredClipOptions clip;
    double share = 1.0; // an asynchronous round: its members' share of the swarm's work
};

// The pieces' average over `count` values: pieces off probation weighed by weight times their
// staleness weight, by CenteredClip (or the plain mean), scaled by their share of the steps and
// by the round's share. Indices in `report` (when given) are into `pieces`.
// A recomputed average within this share (relative L2) of another agrees with it: the same pieces
// give the same numbers on one machine, and nearly the same across CPUs and compilers.
constexpr double kRangeTolerance = 0.01;

// |mine - theirs| / |mine| (1 when the sizes differ).
double rangeRelativeDifference(std::span<const float> mine, std::span<const float> theirs);

Result<std::vector<float>> aggregateRange(std::span<const RangePiece> pieces, std::size_t count,
                                          const RangeAggregationOptions &options, CenteredClipReport *report = nullptr);

} // namespace swarmtrain
