#pragma once

#include "Decoder.h"

#include <cstdint>
#include <functional>
#include <utility>

namespace swarmtrain {

// Forward and backward of one training batch; the gradients add up in the parameters' .grad
// and the mean loss is returned. On the CPU the batch is split across the cores: each core
// runs its share of the rows through the whole model with single-threaded BLAS, and the
// shares' gradients, weighted by their rows, add up to the whole batch's. Small models spend
// much of a step in work BLAS cannot split (LayerNorm, attention heads, GELU, the loss), and
// this way every core does it. With dropout the batch stays whole, so one random stream
// decides every mask and runs repeat exactly. The loss is multiplied by `lossScale` before
// backward (float16 loss scaling); the returned loss is not.
double forwardBackward(DecoderImpl &model, const torch::Tensor &tokens, const torch::Tensor &targets,
                       double lossScale = 1.0);

// How many shares forwardBackward splits this batch into (1: it stays whole).
std::int64_t batchShares(const DecoderImpl &model, const torch::Tensor &tokens);

// Rows [first, last) of share `share` out of `shares` for a batch of `rows`.
std::pair<std::int64_t, std::int64_t> shareRows(std::int64_t rows, std::int64_t share, std::int64_t shares);

// Runs body(share) for every share: on the engine's threads with single-threaded BLAS when
// there are several, inline when there is one. The first error is rethrown after all ran.
void forEachShare(std::int64_t shares, const std::function<void(std::int64_t)> &body);

} // namespace swarmtrain
