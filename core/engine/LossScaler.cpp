#include "LossScaler.h"

namespace swarmtrain {

LossScaler::LossScaler(bool enabled, Options options)
    : m_enabled(enabled)
    , m_options(options)
    , m_scale(enabled ? options.initialScale : 1.0)
{
    TORCH_CHECK(options.initialScale > 0.0 && options.growthFactor > 1.0 && options.backoffFactor > 0.0
                    && options.backoffFactor < 1.0 && options.growthInterval > 0,
                "loss scaler options out of range");
}

bool LossScaler::unscale(torch::Tensor &grads) const
{
    if (!m_enabled)
        return true;
    torch::NoGradGuard noGrad;
    grads.mul_(1.0 / m_scale);
    return torch::isfinite(grads).all().item<bool>();
}

void LossScaler::update(bool finite)
{
    if (!m_enabled)
        return;
    if (!finite) {
        m_scale *= m_options.backoffFactor;
        m_cleanSteps = 0;
        ++m_skipped;
        return;
    }
    if (++m_cleanSteps >= m_options.growthInterval) {
        m_scale *= m_options.growthFactor;
        m_cleanSteps = 0;
    }
}

} // namespace swarmtrain
