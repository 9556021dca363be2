#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include <torch/torch.h>

// The element-wise layers of the two families, with fused CPU kernels where LibTorch 1.13 takes
// many passes.
namespace swarmtrain {

// GELU through the fast vectorized kernels (float32 on the CPU; torch::gelu otherwise).
torch::Tensor fastGelu(const torch::Tensor &x);

// x [..., in] times weight [out, in] transposed, plus bias: torch::linear, but a single row on
// the CPU as a matrix-vector product, which OpenBLAS runs many times faster than a one-row matrix
// product (a generated token's every projection; bench/gguf-vs-llamacpp.sh measures it).
torch::Tensor linearRows(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias = {});
inline torch::Tensor linearRows(const torch::Tensor &x, const torch::nn::Linear &layer)
{
    return linearRows(x, layer->weight, layer->bias);
}

// RMSNorm over the last axis: x / sqrt(mean(x^2) + eps) * weight (Llama).
torch::Tensor rmsNorm(const torch::Tensor &x, const torch::Tensor &weight, double eps);

// The cosines and sines of rotary position embeddings for positions 0..positions-1 of heads
// of `headSize` (even): angle(t, i) = t / theta^(2i / headSize), each frequency used for the
// two halves of a head ("rotate half", Hugging Face's layout). Computed in double precision,
// so positions past a thousand keep float32 accuracy. Shared by every block of a model.
class RotaryTable {
public:
    static std::shared_ptr<const RotaryTable> get(std::int64_t headSize, double theta, std::int64_t positions);

    std::int64_t headSize() const { return m_headSize; }
    std::int64_t positions() const { return m_positions; }
    // [positions, headSize / 2] each, float32, on `device` (copied there once).
    std::pair<torch::Tensor, torch::Tensor> cosSin(const torch::Device &device) const;

private:
    RotaryTable(std::int64_t headSize, double theta, std::int64_t positions);

    std::int64_t m_headSize;
    std::int64_t m_positions;
    torch::Tensor m_cos, m_sin; // on the CPU
    mutable std::mutex m_mutex;
    mutable std::vector<std::pair<torch::Device, std::pair<torch::Tensor, torch::Tensor>>> m_onDevice;
};

// Rotates x [B, T, heads x headSize] by its positions offset..offset+T-1 (a generation's new
// tokens after `offset` cached ones).
torch::Tensor applyRotary(const torch::Tensor &x, const RotaryTable &table, std::int64_t offset = 0);

} // namespace swarmtrain
