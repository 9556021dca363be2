#pragma once

#include "Gpt.h"

namespace swarmtrain {

// Forward and backward of one training batch; the gradients add up in the parameters' .grad
// and the mean loss is returned. On the CPU the batch is split across the cores: each core
// runs its share of the rows through the whole model with single-threaded BLAS, and the
// shares' gradients, weighted by their rows, add up to the whole batch's. Small models spend
// much of a step in work BLAS cannot split (LayerNorm, attention heads, GELU, the loss), and
// this way every core does it. With dropout the batch stays whole, so one random stream
// decides every mask and runs repeat exactly.
double forwardBackward(GptImpl &model, const torch::Tensor &tokens, const torch::Tensor &targets);

} // namespace swarmtrain
