#pragma once

#include "FlatParameters.h"
#include "kernels/CpuKernels.h"

#include <torch/torch.h>
#include <torch/version.h>

namespace swarmtrain {

struct AdamWOptions {
    double beta1 = 0.9;
    double beta2 = 0.95;
    double eps = 1e-8;
    double weightDecay = 0.1;
    // On the CPU, the fused kernel; false runs the tensor operations GPUs use (for tests).
    bool fusedCpuKernel = true;
};

// Elements [offset, offset + values.numel()) of the flat parameters and their optimizer state:
// views of the optimizer's own buffers on the host, or copies of them on a device.
struct AdamWRange {
    std::int64_t offset = 0;
    torch::Tensor values;
    torch::Tensor grads;
    torch::Tensor expAvg;
    torch::Tensor expAvgSq;
};

// AdamW over FlatParameters in two groups (decay on 2-D weights only, as nanoGPT), fused
// into one pass over the buffers per group: our kernel on the CPU, PyTorch's on a CUDA device
// (tensor operations on other devices); gradient-norm clipping is folded into the pass.
class AdamW {
public:
    AdamW(FlatParameters &parameters, const AdamWOptions &options);

    // Scales the gradients so their global L2 norm is at most maxNorm (0: no clipping) and
    // applies one update. On a CUDA device it only queues the work: nothing waits for the GPU.
    void step(double lr, double maxNorm);

    // The same step in parts, so that SwappingExecutor can update each group's parameters on
    // the host or on the device: beginStep() takes the global gradient norm, the clip scale
    // and the bias corrections and advances the step counter; then every element must be
    // updated exactly once, by stepOnHost() or stepWithTensorOps(), with the returned update.
    struct PendingStep {
        kernels::AdamWStep update;
        double gradNorm; // before clipping
    };
    PendingStep beginStep(double lr, double maxNorm);
    // The update step number `step` would apply, touching nothing (for timing a step).
    kernels::AdamWStep updateAt(double lr, double gradScale, std::int64_t step) const;
    // Views of elements [offset, offset + numel) of the parameters, gradients and moments.
    AdamWRange range(std::int64_t offset, std::int64_t numel);
    // The fused kernel over a range of contiguous float32 CPU buffers.
    void stepOnHost(const kernels::AdamWStep &update, const AdamWRange &range) const;
    // The fused kernel's arithmetic as tensor operations, for buffers on any device.
    void stepWithTensorOps(const kernels::AdamWStep &update, const AdamWRange &range) const;

    std::int64_t stepCount() const { return m_step; }
    torch::Tensor &expAvg() { return m_expAvg; }
    torch::Tensor &expAvgSq() { return m_expAvgSq; }
    void restore(std::int64_t stepCount, const torch::Tensor &expAvg, const torch::Tensor &expAvgSq);
    // Zero moments and step count, as a new optimizer over the same parameters.
    void reset();
    // Zeroes the moments of elements [begin, end) and gives them a step count of their own, from
    // 0, so that they step as a new optimizer's would while the others run on; the CPU's fused
    // kernel only. For measuring which parameters' moments matter (ReplicaOptions::keptMoments);
    // reset() and restore() forget it.
    void restartRange(std::int64_t begin, std::int64_t end);

private:
    // Where [offset, offset + numel) crosses from decayed into undecayed elements, relative to offset.
    std::int64_t decayedIn(std::int64_t offset, std::int64_t numel) const;
#if TORCH_VERSION_MAJOR >= 2
    void stepOnCuda(double lr, double maxNorm);
#endif

    FlatParameters &m_parameters;
    AdamWOptions m_options;
    torch::Tensor m_expAvg;
    torch::Tensor m_expAvgSq;
    std::int64_t m_step = 0;
    std::int64_t m_restartBegin = 0, m_restartEnd = 0, m_restartStep = 0; // restartRange()
    torch::Tensor m_deviceStep; // m_step on the device, for the fused CUDA kernel
};

} // namespace swarmtrain
