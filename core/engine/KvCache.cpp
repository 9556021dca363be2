#include "KvCache.h"

#include <cmath>
#include <limits>

namespace swarmtrain {

KvCache::KvCache(int blocks, std::int64_t batch, std::int64_t kvHeads, std::int64_t headSize, std::int64_t capacity,
                 const torch::TensorOptions &options)
    : m_capacity(capacity)
{
    for (int b = 0; b < blocks; ++b) {
        m_keys.push_back(torch::empty({batch, kvHeads, capacity, headSize}, options));
        m_values.push_back(torch::empty({batch, kvHeads, capacity, headSize}, options));
    }
}

std::pair<torch::Tensor, torch::Tensor> KvCache::append(int block, const torch::Tensor &keys, const torch::Tensor &values)
{
    const std::int64_t T = keys.size(2);
    TORCH_CHECK(block >= 0 && block < int(m_keys.size()), "no block ", block, " in the cache");
    TORCH_CHECK(m_length + T <= m_capacity, "the cache holds ", m_capacity, " positions, not ", m_length + T);
    torch::Tensor &k = m_keys[std::size_t(block)], &v = m_values[std::size_t(block)];
    k.narrow(2, m_length, T).copy_(keys);
    v.narrow(2, m_length, T).copy_(values);
    return {k.narrow(2, 0, m_length + T), v.narrow(2, 0, m_length + T)};
}

torch::Tensor cachedAttention(const torch::Tensor &q, const torch::Tensor &keys, const torch::Tensor &values)
{
    const std::int64_t B = q.size(0), nHead = q.size(1), T = q.size(2), hs = q.size(3);
    const std::int64_t nKvHead = keys.size(1), L = keys.size(2), group = nHead / nKvHead;
    // Query heads grouped by the key/value head they read: [B, nKvHead, group x T, hs].
    const torch::Tensor grouped = q.reshape({B, nKvHead, group * T, hs});
    torch::Tensor scores = torch::matmul(grouped, keys.transpose(-2, -1)) * (1.0 / std::sqrt(double(hs)));
    if (T > 1) {
        // Row (g, i) is new position L - T + i: it sees keys 0..L - T + i.
        const auto longs = torch::TensorOptions().dtype(torch::kLong).device(q.device());
        const torch::Tensor rows = (torch::arange(T, longs) + (L - T)).repeat({group}).unsqueeze(1);
        const torch::Tensor future = torch::arange(L, longs).unsqueeze(0) > rows; // [group x T, L]
        scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
    }
    const torch::Tensor y = torch::matmul(torch::softmax(scores, -1), values); // [B, nKvHead, group x T, hs]
    return y.reshape({B, nHead, T, hs}).transpose(1, 2).reshape({B, T, nHead * hs});
}

} // namespace swarmtrain
