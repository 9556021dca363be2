#include "AdamW.h"

#include "kernels/CpuKernels.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace swarmtrain {

AdamW::AdamW(FlatParameters &parameters, const AdamWOptions &options)
    : m_parameters(parameters)
    , m_options(options)
    , m_expAvg(torch::zeros_like(parameters.values()))
    , m_expAvgSq(torch::zeros_like(parameters.values()))
{
    TORCH_CHECK(parameters.values().scalar_type() == torch::kFloat, "AdamW keeps float32 master weights");
}

void AdamW::step(double lr, double maxNorm)
{
    torch::NoGradGuard noGrad;
#if TORCH_VERSION_MAJOR >= 2
    if (m_parameters.values().is_cuda()) {
        stepOnCuda(lr, maxNorm);
        return;
    }
#endif
    const PendingStep pending = beginStep(lr, maxNorm);
    if (m_restartEnd > m_restartBegin) {
        const kernels::AdamWStep restarted = updateAt(lr, pending.update.gradScale, ++m_restartStep);
        stepOnHost(pending.update, range(0, m_restartBegin));
        stepOnHost(restarted, range(m_restartBegin, m_restartEnd - m_restartBegin));
        stepOnHost(pending.update, range(m_restartEnd, m_parameters.numel() - m_restartEnd));
        return;
    }
    const AdamWRange all = range(0, m_parameters.numel());
    if (!m_parameters.values().is_cpu() || !m_options.fusedCpuKernel)
        stepWithTensorOps(pending.update, all);
    else
        stepOnHost(pending.update, all);
}

#if TORCH_VERSION_MAJOR >= 2
// PyTorch's fused AdamW kernel (as torch.optim.AdamW(fused=True)): one pass over each group's
// buffers instead of the ten of stepWithTensorOps. The clip scale stays on the device as the
// divisor the kernel applies to the gradients, so the step never waits for the GPU to read the
// norm back; a non-finite norm leaves the gradients unscaled, as beginStep() does.
void AdamW::stepOnCuda(double lr, double maxNorm)
{
    ++m_step;
    const torch::Tensor &values = m_parameters.values();
    if (!m_deviceStep.defined())
        m_deviceStep = torch::zeros({}, values.options());
    m_deviceStep.fill_(double(m_step));
    std::optional<torch::Tensor> gradDivisor;
    if (maxNorm > 0.0) {
        const torch::Tensor norm = m_parameters.grads().norm();
        const torch::Tensor divisor = ((norm + 1e-6) / maxNorm).clamp_min(1.0);
        gradDivisor = torch::where(torch::isfinite(norm), divisor, torch::ones_like(divisor));
    }
    const auto run = [&](std::int64_t begin, std::int64_t end, double weightDecay) {
        if (end <= begin)
            return;
        const auto part = [&](const torch::Tensor &t) { return t.narrow(0, begin, end - begin); };
        at::_fused_adamw_({part(values)}, {part(m_parameters.grads())}, {part(m_expAvg)}, {part(m_expAvgSq)}, {},
                          {m_deviceStep}, lr, m_options.beta1, m_options.beta2, weightDecay, m_options.eps,
                          /*amsgrad=*/false, /*maximize=*/false, gradDivisor, std::nullopt);
    };
    const std::int64_t decayEnd = decayedIn(0, m_parameters.numel());
    run(0, decayEnd, m_options.weightDecay);
    run(decayEnd, m_parameters.numel(), 0.0);
}
#endif

AdamW::PendingStep AdamW::beginStep(double lr, double maxNorm)
{
    torch::NoGradGuard noGrad;
    const double norm = m_parameters.grads().norm().item<double>();
    // As torch.nn.utils.clip_grad_norm_: scale by maxNorm / (norm + 1e-6) when below 1.
    double gradScale = 1.0;
    if (maxNorm > 0.0 && std::isfinite(norm))
        gradScale = std::min(1.0, maxNorm / (norm + 1e-6));
    ++m_step;
    return {updateAt(lr, gradScale, m_step), norm};
}

kernels::AdamWStep AdamW::updateAt(double lr, double gradScale, std::int64_t step) const
{
    kernels::AdamWStep s{};
    s.lr = float(lr);
    s.beta1 = float(m_options.beta1);
    s.beta2 = float(m_options.beta2);
    s.eps = float(m_options.eps);
    s.gradScale = float(gradScale);
    s.biasCorrection1 = float(1.0 - std::pow(m_options.beta1, double(step)));
    s.biasCorrection2 = float(1.0 - std::pow(m_options.beta2, double(step)));
    return s;
}

AdamWRange AdamW::range(std::int64_t offset, std::int64_t numel)
{
    return {offset, m_parameters.values().narrow(0, offset, numel), m_parameters.grads().narrow(0, offset, numel),
            m_expAvg.narrow(0, offset, numel), m_expAvgSq.narrow(0, offset, numel)};
}

std::int64_t AdamW::decayedIn(std::int64_t offset, std::int64_t numel) const
{
    return std::clamp<std::int64_t>(m_parameters.decayCount() - offset, 0, numel);
}

void AdamW::stepOnHost(const kernels::AdamWStep &update, const AdamWRange &range) const
{
    TORCH_CHECK(range.values.is_cpu() && range.values.is_contiguous() && range.grads.is_contiguous()
                    && range.expAvg.is_contiguous() && range.expAvgSq.is_contiguous(),
                "the fused AdamW kernel takes contiguous CPU buffers");
    float *param = range.values.data_ptr<float>();
    const float *grad = range.grads.data_ptr<float>();
    float *expAvg = range.expAvg.data_ptr<float>();
    float *expAvgSq = range.expAvgSq.data_ptr<float>();
    const std::int64_t numel = range.values.numel();
    const std::int64_t decayEnd = decayedIn(range.offset, numel);

    const auto run = [&](std::int64_t begin, std::int64_t end, float weightDecay) {
        kernels::AdamWStep groupStep = update;
        groupStep.weightDecay = weightDecay;
        at::parallel_for(begin, end, 1 << 16, [&](std::int64_t b, std::int64_t e) {
            kernels::adamwUpdate(param + b, grad + b, expAvg + b, expAvgSq + b, e - b, groupStep);
        });
    };
    run(0, decayEnd, float(m_options.weightDecay));
    run(decayEnd, numel, 0.f);
}

void AdamW::stepWithTensorOps(const kernels::AdamWStep &s, const AdamWRange &range) const
{
    torch::NoGradGuard noGrad;
    const auto run = [&](std::int64_t begin, std::int64_t end, double weightDecay) {
        if (end <= begin)
            return;
        torch::Tensor param = range.values.narrow(0, begin, end - begin);
        torch::Tensor expAvg = range.expAvg.narrow(0, begin, end - begin);
        torch::Tensor expAvgSq = range.expAvgSq.narrow(0, begin, end - begin);
        const torch::Tensor grad = range.grads.narrow(0, begin, end - begin) * s.gradScale;
        expAvg.mul_(s.beta1).add_(grad, 1.0 - s.beta1);
        expAvgSq.mul_(s.beta2).addcmul_(grad, grad, 1.0 - s.beta2);
        const torch::Tensor denom = (expAvgSq.sqrt() / std::sqrt(double(s.biasCorrection2))).add_(s.eps);
        param.mul_(1.0 - double(s.lr) * weightDecay).addcdiv_(expAvg, denom, -double(s.lr) / s.biasCorrection1);
    };
    const std::int64_t numel = range.values.numel();
    const std::int64_t decayEnd = decayedIn(range.offset, numel);
    run(0, decayEnd, m_options.weightDecay);
    run(decayEnd, numel, 0.0);
}

void AdamW::restore(std::int64_t stepCount, const torch::Tensor &expAvg, const torch::Tensor &expAvgSq)
{
    torch::NoGradGuard noGrad;
    m_step = stepCount;
    m_restartBegin = m_restartEnd = m_restartStep = 0;
    m_expAvg.copy_(expAvg.view_as(m_expAvg));
    m_expAvgSq.copy_(expAvgSq.view_as(m_expAvgSq));
}

void AdamW::reset()
{
    torch::NoGradGuard noGrad;
    m_step = 0;
    m_restartBegin = m_restartEnd = m_restartStep = 0;
    m_expAvg.zero_();
    m_expAvgSq.zero_();
}

void AdamW::restartRange(std::int64_t begin, std::int64_t end)
{
    TORCH_CHECK(0 <= begin && begin <= end && end <= m_parameters.numel(), "the restarted range lies outside the parameters");
    TORCH_CHECK(m_parameters.values().is_cpu() && m_options.fusedCpuKernel, "a restarted range steps with the CPU's fused kernel only");
    torch::NoGradGuard noGrad;
    m_expAvg.narrow(0, begin, end - begin).zero_();
    m_expAvgSq.narrow(0, begin, end - begin).zero_();
    m_restartBegin = begin;
    m_restartEnd = end;
    m_restartStep = 0;
}

} // namespace swarmtrain
