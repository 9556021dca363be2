#pragma once

#include "Result.h"

#include <span>

namespace swarmtrain {

// DiLoCo's defaults for the outer step.
struct OuterOptimizerOptions {
    double learningRate = 0.7;
    double momentum = 0.9;
};

// DiLoCo's outer step: SGD with Nesterov momentum on the round's averaged pseudo-gradient
// g = global params - local params after H inner steps. Same arithmetic as PyTorch's
// SGD(nesterov=True, dampening=0, weight_decay=0):
//   m = mu * m + g;   params -= lr * (g + mu * m)
// PyTorch starts the buffer as a copy of the first g; with dampening 0 that equals starting
// from zero, so a fresh momentum vector is all zeros.
//
// Every member of a round applies this step to the same inputs and must end with the same
// parameters, bit for bit (they compare hashes): the arithmetic is float32, element by
// element, and the source is built without floating-point contraction so a CPU with FMA gives
// the same bits as one without.
class OuterOptimizer {
public:
    explicit OuterOptimizer(OuterOptimizerOptions options = {}) : m_options(options) {}

    // Sizes must match, the options must be sane (lr > 0, 0 <= mu < 1) and the
    // pseudo-gradient finite; otherwise nothing is changed.
    Result<void> step(std::span<float> params, std::span<float> momentum,
                      std::span<const float> pseudoGradient) const;

    const OuterOptimizerOptions &options() const { return m_options; }

private:
    OuterOptimizerOptions m_options;
};

// Checks a peer's update before it is averaged: every value finite and the L2 norm at most
// maxNorm. Outlandish updates are rejected (and counted against the sender by the caller).
Result<void> validateUpdate(std::span<const float> update, double maxNorm);

// One peer's piece of a shard and how many tokens it trained on.
struct WeightedPiece {
    std::span<const float> values;
    double weight = 0.0;
};

// out = sum(w_i * piece_i) / sum(w_i), the token-weighted average of a round's pieces.
// Pieces are added in the order given (callers order them the same way on every member so
// the result is identical everywhere). Weights must be positive and finite and every piece
// as long as `out` (and not overlapping it); pieces should already have passed validateUpdate.
Result<void> weightedAverage(std::span<const WeightedPiece> pieces, std::span<float> out);

} // namespace swarmtrain
