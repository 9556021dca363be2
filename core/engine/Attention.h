#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace swarmtrain {

// Causal self-attention on GPT's fused projection qkv [B, T, 3C] -> [B, T, C], `dropout` on
// the attention weights (0 outside training).
torch::Tensor causalSelfAttention(const torch::Tensor &qkv, std::int64_t nHead, double dropout);

// Causal grouped-query attention (Llama): q [B, T, nHead x hs], k and v [B, T, nKvHead x hs]
// -> [B, T, nHead x hs]; query head h reads key/value head h / (nHead / nKvHead).
torch::Tensor groupedQueryAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                                    std::int64_t nHead, std::int64_t nKvHead);

// Both run one fused kernel for float32 on the CPU: each head's products read Q, K and V in
// place (no permute copies) through the BLAS LibTorch links, with scale, causal mask and softmax
// in one pass. Elsewhere LibTorch's scaled-dot-product attention (LibTorch 2) or its composite.

} // namespace swarmtrain
