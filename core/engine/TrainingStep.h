#pragma once

#include "AdamW.h"
#include "Device.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "LossScaler.h"
#include "Result.h"
#include "SwappingExecutor.h"

#include <memory>
#include <optional>

namespace swarmtrain {

struct StepOptions {
    torch::Device device{torch::kCPU};
    ComputeDtype dtype = ComputeDtype::Float32; // resolved: not Auto
    SwapMode swap = SwapMode::Off;
    // Swapped only: where each group's optimizer step runs; Auto goes by measurement.
    OptimizerPlacement swapOptimizer = OptimizerPlacement::Auto;
    std::int64_t deviceMemoryBudget = 0; // 0: half the device's free memory (the rest is for activations)
    std::int64_t batchSize = 12;         // the shape stages are measured with, for the swap planner
    AdamWOptions adamw;
    double gradClip = 1.0;
};

// One optimizer step of a model on a device, resident or swapped (SwappingExecutor), in
// float32 or mixed precision (float16 with loss scaling). train() and the device benchmark
// both run this.
class TrainingStep {
public:
    // `model` holds its starting weights on the CPU; it is moved to the device when resident
    // and stays in host memory as the master copy when swapped.
    static Result<std::unique_ptr<TrainingStep>> create(Decoder model, const StepOptions &options);

    // Forward, backward and the AdamW step at `lr` for one batch (token ids on the CPU);
    // returns the loss. A float16 step whose gradients overflowed is skipped. A step abandoned
    // by the stage gate throws StepInterrupted and changes nothing.
    double run(const torch::Tensor &tokens, const torch::Tensor &targets, double lr);
    void setStageGate(StageGate gate);
    // Forgets what earlier steps left in the optimizer: AdamW's moments and step count, and the
    // float16 loss scale (back to its initial value; skippedSteps() counts from here). The
    // next step runs as the first step of a new TrainingStep over the current weights would.
    void resetOptimizerState();
    // Logits without gradients, on the device.
    torch::Tensor logits(const torch::Tensor &tokens);

    DecoderImpl &model() { return *m_model; }
    FlatParameters &parameters() { return *m_parameters; }
    AdamW &optimizer() { return *m_optimizer; }
    const torch::Device &device() const { return m_options.device; }
    bool swapped() const { return m_executor != nullptr; }
    const SwappingExecutor *executor() const { return m_executor.get(); }
    std::int64_t skippedSteps() const { return m_scaler.skippedSteps(); }

private:
    TrainingStep(Decoder model, const StepOptions &options);

    Decoder m_model;
    StepOptions m_options;
    std::unique_ptr<FlatParameters> m_parameters;
    std::unique_ptr<AdamW> m_optimizer;
    std::unique_ptr<SwappingExecutor> m_executor;
    LossScaler m_scaler;
};

} // namespace swarmtrain
