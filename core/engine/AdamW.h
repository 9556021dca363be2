#pragma once

#include "FlatParameters.h"
#include "kernels/CpuKernels.h"

#include <torch/torch.h>

namespace swarmtrain {

struct AdamWOptions {
    double beta1 = 0.9;
    double beta2 = 0.95;
    double eps = 1e-8;
    double weightDecay = 0.1;
    // On the CPU, the fused kernel; false runs the tensor operations GPUs use (for tests).
    bool fusedCpuKernel = true;
};

// AdamW over FlatParameters in two groups (decay on 2-D weights only, as nanoGPT), fused
// into one pass over the buffers per group on the CPU (tensor operations on a GPU);
// gradient-norm clipping is folded into the pass.
class AdamW {
public:
    AdamW(FlatParameters &parameters, const AdamWOptions &options);

    // Scales the gradients so their global L2 norm is at most maxNorm (0: no clipping) and
    // applies one update. Returns the norm before clipping.
    double step(double lr, double maxNorm);

    std::int64_t stepCount() const { return m_step; }
    torch::Tensor &expAvg() { return m_expAvg; }
    torch::Tensor &expAvgSq() { return m_expAvgSq; }
    void restore(std::int64_t stepCount, const torch::Tensor &expAvg, const torch::Tensor &expAvgSq);

private:
    void stepWithTensorOps(const kernels::AdamWStep &s);

    FlatParameters &m_parameters;
    AdamWOptions m_options;
    torch::Tensor m_expAvg;
    torch::Tensor m_expAvgSq;
    std::int64_t m_step = 0;
};

} // namespace swarmtrain
