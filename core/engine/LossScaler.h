#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace swarmtrain {

// Dynamic loss scaling for float16 training, as torch.cuda.amp.GradScaler does it (LibTorch
// has none): the loss is multiplied by the scale before backward so that small gradients do
// not flush to zero in float16; the gradients are divided back before the optimizer step; a
// step whose gradients overflowed is skipped and the scale backs off; after growthInterval
// clean steps in a row the scale grows.
class LossScaler {
public:
    struct Options {
        double initialScale = 65536.0;
        double growthFactor = 2.0;
        double backoffFactor = 0.5;
        int growthInterval = 2000;
    };

    // A disabled scaler (float32, bfloat16) keeps the scale at 1 and never skips.
    explicit LossScaler(bool enabled, Options options);
    explicit LossScaler(bool enabled) : LossScaler(enabled, Options{}) {}

    bool enabled() const { return m_enabled; }
    double scale() const { return m_scale; }
    std::int64_t skippedSteps() const { return m_skipped; }

    // Divides the scaled gradients by the scale, in place. False when any of them is infinite
    // or NaN: the caller skips the optimizer step, zeroes the gradients and calls update().
    bool unscale(torch::Tensor &grads) const;

    // Adjusts the scale after a step; `finite` is what unscale() returned.
    void update(bool finite);

private:
    bool m_enabled;
    Options m_options;
    double m_scale;
    int m_cleanSteps = 0;
    std::int64_t m_skipped = 0;
};

} // namespace swarmtrain
