#include "TrainingStep.h"

#include "ParallelStep.h"

namespace swarmtrain {

TrainingStep::TrainingStep(Decoder model, const StepOptions &options)
    : m_model(std::move(model))
    , m_options(options)
    , m_scaler(options.dtype == ComputeDtype::Float16)
{
}

Result<std::unique_ptr<TrainingStep>> TrainingStep::create(Decoder model, const StepOptions &options)
{
    std::unique_ptr<TrainingStep> step(new TrainingStep(std::move(model), options));
    StepOptions &o = step->m_options;
    if (o.deviceMemoryBudget <= 0)
        o.deviceMemoryBudget = deviceFreeBytes(o.device) / 2;

    // Resident, the device holds the weights, their gradients and both AdamW moments.
    std::int64_t params = 0;
    for (const auto &[name, p] : step->m_model->namedParameters())
        params += p.numel();
    const bool swap = o.swap == SwapMode::On
                      || (o.swap == SwapMode::Auto && o.device.is_cuda() && params * 16 > o.deviceMemoryBudget);

    if (!swap)
        step->m_model->to(o.device);
    step->m_parameters = std::make_unique<FlatParameters>(step->m_model->namedParameters(), swap && o.device.is_cuda());
    step->m_optimizer = std::make_unique<AdamW>(*step->m_parameters, o.adamw);
    if (!swap)
        return step;

    step->m_executor = std::make_unique<SwappingExecutor>(*step->m_model, *step->m_parameters, o.device, o.dtype);
    const std::vector<StageCost> costs = step->m_executor->measureStages(o.batchSize, step->m_model->config().blockSize,
                                                                               step->m_optimizer.get());
    Result<SwapPlan> plan = planSwapping(costs, o.deviceMemoryBudget, o.swapOptimizer);
    if (!plan)
        return makeError("cannot swap the model through the device: " + plan.error().message);
    step->m_executor->setPlan(*plan);
    return step;
}

double TrainingStep::run(const torch::Tensor &tokens, const torch::Tensor &targets, double lr)
{
    const torch::Tensor x = tokens.to(m_options.device), y = targets.to(m_options.device);
    double loss = 0.0;
    try {
        if (m_executor) {
            loss = m_executor->forwardBackward(x, y, m_scaler.scale());
        } else {
            AutocastScope autocast(m_options.device, m_options.dtype);
            loss = forwardBackward(*m_model, x, y, m_scaler.scale());
        }
    } catch (const StepInterrupted &) {
        m_parameters->zeroGrad();
        throw;
    }
    const bool finite = m_scaler.unscale(m_parameters->grads());
    m_scaler.update(finite);
    if (finite && m_executor)
        m_executor->optimizerStep(*m_optimizer, lr, m_options.gradClip);
    else if (finite)
        m_optimizer->step(lr, m_options.gradClip);
    m_parameters->zeroGrad();
    return loss;
}

void TrainingStep::setStageGate(StageGate gate)
{
    if (m_executor)
        m_executor->setStageGate(gate);
    m_model->setStageGate(std::move(gate));
}

void TrainingStep::resetOptimizerState()
{
    m_optimizer->reset();
    m_scaler = LossScaler(m_scaler.enabled());
}

torch::Tensor TrainingStep::logits(const torch::Tensor &tokens)
{
    const torch::Tensor x = tokens.to(m_options.device);
    if (m_executor)
        return m_executor->forward(x);
    torch::NoGradGuard noGrad;
    AutocastScope autocast(m_options.device, m_options.dtype);
    const bool training = m_model->is_training();
    m_model->eval();
    torch::Tensor logits = m_model->forward(x);
    m_model->train(training);
    return logits;
}

} // namespace swarmtrain
