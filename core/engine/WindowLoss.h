#pragma once

#include "Decoder.h"
#include "Result.h"

#include <cstdint>
#include <vector>

namespace swarmtrain {

// Mean cross-entropy of `model` (evaluation mode, no gradients) on evalIters batches of `batch`
// windows of the model's block size, at offsets drawn from `seed`: the same call gives the same
// number, on any peer. Tokens outside the vocabulary or too few of them are an error.
Result<double> windowLoss(DecoderImpl &model, const std::vector<std::int32_t> &tokens, int batch, int evalIters,
                          std::uint64_t seed);

} // namespace swarmtrain
