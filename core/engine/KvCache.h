#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace swarmtrain {

// The keys and values a generation has computed so far, per transformer block, so that each
// new token costs one position's work instead of the whole window's (DecoderImpl::forwardCached).
// Room for `capacity` positions is taken once, on the model's device.
class KvCache {
public:
    // blocks: the model's layers; kvHeads x headSize: one position's keys (and values) per block.
    KvCache(int blocks, std::int64_t batch, std::int64_t kvHeads, std::int64_t headSize, std::int64_t capacity,
            const torch::TensorOptions &options);

    std::int64_t length() const { return m_length; }
    std::int64_t capacity() const { return m_capacity; }

    // Stores block `block`'s keys and values for the new positions length()..length()+T-1
    // ([B, kvHeads, T, headSize] each) and returns all the block holds, [B, kvHeads, length()+T, headSize].
    std::pair<torch::Tensor, torch::Tensor> append(int block, const torch::Tensor &keys, const torch::Tensor &values);
    // Once every block has appended the same T positions.
    void advance(std::int64_t positions) { m_length += positions; }

private:
    std::int64_t m_length = 0;
    std::int64_t m_capacity;
    std::vector<torch::Tensor> m_keys, m_values;
};

// Causal attention of the last T of L positions: queries q [B, nHead, T, headSize] against keys
// and values [B, nKvHead, L, headSize] (query head h reads key/value head h / (nHead / nKvHead);
// new position i sees positions up to L - T + i) -> [B, T, nHead x headSize].
torch::Tensor cachedAttention(const torch::Tensor &q, const torch::Tensor &keys, const torch::Tensor &values);

} // namespace swarmtrain
