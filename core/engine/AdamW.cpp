#include "AdamW.h"

#include "kernels/CpuKernels.h"

#include <cmath>

namespace swarmtrain {

AdamW::AdamW(FlatParameters &parameters, const AdamWOptions &options)
    : m_parameters(parameters)
    , m_options(options)
    , m_expAvg(torch::zeros_like(parameters.values()))
    , m_expAvgSq(torch::zeros_like(parameters.values()))
{
    TORCH_CHECK(parameters.values().scalar_type() == torch::kFloat, "AdamW keeps float32 master weights");
}

double AdamW::step(double lr, double maxNorm)
{
    torch::NoGradGuard noGrad;
    const double norm = m_parameters.grads().norm().item<double>();
    // As torch.nn.utils.clip_grad_norm_: scale by maxNorm / (norm + 1e-6) when below 1.
    double gradScale = 1.0;
    if (maxNorm > 0.0 && std::isfinite(norm))
        gradScale = std::min(1.0, maxNorm / (norm + 1e-6));

    ++m_step;
    kernels::AdamWStep s{};
    s.lr = float(lr);
    s.beta1 = float(m_options.beta1);
    s.beta2 = float(m_options.beta2);
    s.eps = float(m_options.eps);
    s.gradScale = float(gradScale);
    s.biasCorrection1 = float(1.0 - std::pow(m_options.beta1, double(m_step)));
    s.biasCorrection2 = float(1.0 - std::pow(m_options.beta2, double(m_step)));

    if (!m_parameters.values().is_cpu() || !m_options.fusedCpuKernel) {
        stepWithTensorOps(s);
        return norm;
    }
    float *param = m_parameters.values().data_ptr<float>();
    const float *grad = m_parameters.grads().data_ptr<float>();
    float *expAvg = m_expAvg.data_ptr<float>();
    float *expAvgSq = m_expAvgSq.data_ptr<float>();
    const std::int64_t decayEnd = m_parameters.decayCount();
    const std::int64_t total = m_parameters.numel();

    const auto update = [&](std::int64_t begin, std::int64_t end, float weightDecay) {
        kernels::AdamWStep groupStep = s;
        groupStep.weightDecay = weightDecay;
        at::parallel_for(begin, end, 1 << 16, [&](std::int64_t b, std::int64_t e) {
            kernels::adamwUpdate(param + b, grad + b, expAvg + b, expAvgSq + b, e - b, groupStep);
        });
    };
    update(0, decayEnd, float(m_options.weightDecay));
    update(decayEnd, total, 0.f);
    return norm;
}

// The fused kernel's arithmetic as tensor operations, for buffers on a GPU.
void AdamW::stepWithTensorOps(const kernels::AdamWStep &s)
{
    const auto update = [&](std::int64_t begin, std::int64_t end, double weightDecay) {
        if (end <= begin)
            return;
        torch::Tensor param = m_parameters.values().narrow(0, begin, end - begin);
        torch::Tensor expAvg = m_expAvg.narrow(0, begin, end - begin);
        torch::Tensor expAvgSq = m_expAvgSq.narrow(0, begin, end - begin);
        const torch::Tensor grad = m_parameters.grads().narrow(0, begin, end - begin) * s.gradScale;
        expAvg.mul_(s.beta1).add_(grad, 1.0 - s.beta1);
        expAvgSq.mul_(s.beta2).addcmul_(grad, grad, 1.0 - s.beta2);
        const torch::Tensor denom = (expAvgSq.sqrt() / std::sqrt(double(s.biasCorrection2))).add_(s.eps);
        param.mul_(1.0 - double(s.lr) * weightDecay).addcdiv_(expAvg, denom, -double(s.lr) / s.biasCorrection1);
    };
    update(0, m_parameters.decayCount(), m_options.weightDecay);
    update(m_parameters.decayCount(), m_parameters.numel(), 0.0);
}

void AdamW::restore(std::int64_t stepCount, const torch::Tensor &expAvg, const torch::Tensor &expAvgSq)
{
    torch::NoGradGuard noGrad;
    m_step = stepCount;
    m_expAvg.copy_(expAvg.view_as(m_expAvg));
    m_expAvgSq.copy_(expAvgSq.view_as(m_expAvgSq));
}

} // namespace swarmtrain
