#include "ReplicaTrainer.h"

#include "Checkpoint.h"
#include "Device.h"
#include "OuterOptimizer.h"
#include "Sha256.h"
#include "TrainingStep.h"
#include "WindowLoss.h"

#include <chrono>
#include <cmath>

namespace swarmtrain {

namespace {

std::span<float> spanOf(torch::Tensor &cpuContiguous)
{
    return {cpuContiguous.data_ptr<float>(), std::size_t(cpuContiguous.numel())};
}

// A state file's parameters as one flat float32 vector in FlatParameters order.
struct FlatState {
    LoadedCheckpoint checkpoint;
    OuterState outer;
    torch::Tensor values;
};

Result<FlatState> readFlatState(const std::filesystem::path &file)
{
    Result<LoadedSwarmState> state = loadSwarmState(file);
    if (!state)
        return state.error();
    FlatParameters flat(state->model->namedParameters());
    return FlatState{std::move(state->checkpoint), std::move(state->outer), flat.values().clone()};
}

// splitmix64's finalizer (Steele, Lea and Flood 2014): each input bit flips about half the output bits.
std::uint64_t mix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Where row `row` of inner step `step` of round `round` starts, in [0, positions): these numbers
// alone decide it, so a replay draws the same windows. Plain arithmetic rather than a std
// distribution, whose results differ between standard libraries (a Windows peer may check a
// Linux one); the modulo's bias, at most positions / 2^64, is nil.
std::int64_t windowStart(std::uint64_t seed, std::int64_t round, std::int64_t step, int row, std::int64_t positions)
{
    std::uint64_t h = mix64(seed);
    h = mix64(h ^ std::uint64_t(round));
    h = mix64(h ^ std::uint64_t(step));
    h = mix64(h ^ std::uint64_t(row));
    return std::int64_t(h % std::uint64_t(positions));
}

} // namespace

struct ReplicaTrainer::State {
    ReplicaOptions options;
    ModelConfig config;
    Tokenizer tokenizer;
    std::unique_ptr<TrainingStep> step;
    torch::Tensor global;   // CPU float32, FlatParameters order
    torch::Tensor momentum; // CPU float32, the outer Nesterov buffer
    std::int64_t round = 0;
    std::int64_t innerDone = 0;
    std::int64_t warmupDone = 0; // of options.momentWarmupSteps, this round
    std::vector<std::int32_t> tokens;
    std::int64_t scheduleStep = -1; // OuterState::scheduleStep: -1, round x the steps per round
    std::int64_t tokenEmbeddingEnd = 0; // its elements are [0, this) of the flat parameters

    // Where the inner schedule stands at this state.
    std::int64_t scheduleStart() const
    {
        return scheduleStep >= 0 ? scheduleStep : round * stepsPerRound();
    }
    std::int64_t stepsPerRound() const
    {
        return options.scheduleStepsPerRound > 0 ? options.scheduleStepsPerRound : options.innerSteps;
    }

    // The local copy becomes the global one and the round's inner run starts from nothing
    // but public inputs (the class comment).
    void startRound()
    {
        {
            torch::NoGradGuard noGrad;
            step->parameters().values().copy_(global);
        }
        innerDone = 0;
        warmupDone = 0;
        if (!options.keepInnerStateAcrossRounds) {
            step->resetOptimizerState();
        } else if (options.resetFirstMomentEachRound) {
            torch::NoGradGuard noGrad;
            step->optimizer().expAvg().zero_();
        } else if (options.keptMoments == ReplicaOptions::KeptMoments::AllButTokenEmbedding) {
            step->optimizer().restartRange(0, tokenEmbeddingEnd);
        } else if (options.keptMoments != ReplicaOptions::KeptMoments::All) {
            keepTokenEmbeddingOnly();
        }
    }

    // The token embedding's moments run on (KeptMoments), the rest restart.
    void keepTokenEmbeddingOnly()
    {
        step->optimizer().restartRange(tokenEmbeddingEnd, step->parameters().numel());
        if (options.keptMoments == ReplicaOptions::KeptMoments::TokenEmbedding)
            return;
        torch::NoGradGuard noGrad;
        step->optimizer().expAvg().narrow(0, 0, tokenEmbeddingEnd).zero_();
        if (options.keptMoments == ReplicaOptions::KeptMoments::TokenEmbeddingRows) {
            torch::Tensor rows = step->optimizer().expAvgSq().narrow(0, 0, tokenEmbeddingEnd).view({config.vocabSize, -1});
            rows.copy_(rows.mean(1, true).expand_as(rows));
        }
    }
};

ReplicaTrainer::ReplicaTrainer(std::unique_ptr<State> state) : m_state(std::move(state)) {}
ReplicaTrainer::~ReplicaTrainer() = default;

Result<std::unique_ptr<ReplicaTrainer>> ReplicaTrainer::create(const std::filesystem::path &stateFile,
                                                               const ReplicaOptions &options)
{
    if (options.batchSize <= 0 || options.innerSteps <= 0)
        return makeError("the batch size and the inner steps per round must be positive");
    Result<FlatState> loaded = readFlatState(stateFile);
    if (!loaded)
        return loaded.error();
    Result<DeviceChoice> choice = resolveDeviceAndDtype(options.device, options.dtype);
    if (!choice)
        return choice.error();

    auto state = std::make_unique<State>(State{options, loaded->checkpoint.config, loaded->checkpoint.tokenizer,
                                               nullptr, loaded->values, loaded->outer.momentum, loaded->outer.round,
                                               0, 0, {}, loaded->outer.scheduleStep});
    StepOptions stepOptions;
    stepOptions.device = choice->device;
    stepOptions.dtype = choice->dtype;
    stepOptions.swap = options.swap;
    stepOptions.deviceMemoryBudget = options.deviceMemoryBudget;
    stepOptions.batchSize = options.batchSize;
    stepOptions.adamw = {options.beta1, options.beta2, options.eps, options.weightDecay};
    stepOptions.gradClip = options.gradClip;
    Result<std::unique_ptr<TrainingStep>> step = TrainingStep::create(Decoder(state->config), stepOptions);
    if (!step)
        return step.error();
    state->step = std::move(step).value();
    if (state->step->parameters().numel() != state->global.numel())
        return makeError("the state file's parameters do not fit its model config");
    if (options.keptMoments != ReplicaOptions::KeptMoments::All) {
        const FlatParameters::Slot &first = state->step->parameters().slots().front();
        if (!first.name.ends_with("embed_tokens.weight") && !first.name.ends_with("wte.weight"))
            return makeError("the first parameter is " + first.name + ", not the token embedding");
        state->tokenEmbeddingEnd = first.numel;
    }
    state->startRound();
    state->step->model().train();
    return std::unique_ptr<ReplicaTrainer>(new ReplicaTrainer(std::move(state)));
}

std::int64_t ReplicaTrainer::round() const { return m_state->round; }
std::int64_t ReplicaTrainer::scheduleStep() const { return m_state->scheduleStart(); }
std::int64_t ReplicaTrainer::parameterCount() const { return m_state->global.numel(); }
const ModelConfig &ReplicaTrainer::config() const { return m_state->config; }
const Tokenizer &ReplicaTrainer::tokenizer() const { return m_state->tokenizer; }
std::string ReplicaTrainer::deviceName() const { return m_state->step->device().str(); }
std::int64_t ReplicaTrainer::innerStepsDone() const { return m_state->innerDone; }

Result<void> ReplicaTrainer::setTrainingTokens(std::vector<std::int32_t> tokens)
{
    if (std::int64_t(tokens.size()) < m_state->config.blockSize + 1)
        return makeError("this peer's data shards hold fewer tokens than one training window");
    for (std::int32_t token : tokens) {
        if (token < 0 || token >= m_state->config.vocabSize)
            return makeError("a training token is outside the model's vocabulary");
    }
    m_state->tokens = std::move(tokens);
    return {};
}

Result<InnerReport> ReplicaTrainer::trainInner(const std::function<bool()> &shouldStop,
                                               const std::function<bool()> &interrupt)
{
    State &s = *m_state;
    if (s.tokens.empty())
        return makeError("no training tokens were set");
    const int batch = s.options.batchSize;
    const std::int64_t block = s.config.blockSize;
    const std::int64_t positions = std::int64_t(s.tokens.size()) - block;
    InnerReport report;
    double lossSum = 0.0;
    const auto started = std::chrono::steady_clock::now();
    // Set for this call only: `interrupt` may refer to the caller's stack.
    struct GateScope {
        TrainingStep &step;
        ~GateScope() { step.setStageGate({}); }
    } gateScope{*s.step};
    if (interrupt) {
        s.step->setStageGate([&interrupt] {
            if (interrupt())
                throw StepInterrupted();
        });
    }
    // The caller's time in shouldStop (heartbeats, the duty cycle's rests) is not compute time.
    std::chrono::steady_clock::duration outside{};
    while (s.innerDone < s.options.innerSteps) {
        const auto asked = std::chrono::steady_clock::now();
        const bool stop = shouldStop && shouldStop();
        outside += std::chrono::steady_clock::now() - asked;
        if (stop) {
            report.interrupted = true;
            break;
        }
        torch::Tensor x = torch::empty({batch, block}, torch::kLong);
        torch::Tensor y = torch::empty({batch, block}, torch::kLong);
        std::int64_t *px = x.data_ptr<std::int64_t>(), *py = y.data_ptr<std::int64_t>();
        // Warm-up step k draws as step -1 - k would.
        const bool warming = s.warmupDone < s.options.momentWarmupSteps;
        const std::int64_t drawn = warming ? -1 - s.warmupDone : s.innerDone;
        for (int row = 0; row < batch; ++row) {
            const std::int64_t first = windowStart(s.options.seed, s.round, drawn, row, positions);
            for (std::int64_t t = 0; t < block; ++t) {
                px[row * block + t] = s.tokens[std::size_t(first + t)];
                py[row * block + t] = s.tokens[std::size_t(first + t + 1)];
            }
        }
        // The schedule runs over inner steps counted across rounds, the same on every peer.
        const double lr = warming ? 0.0 : s.options.schedule.at(s.scheduleStart() + s.innerDone);
        double loss = 0.0;
        try {
            loss = s.step->run(x, y, lr);
        } catch (const StepInterrupted &) {
            report.interrupted = true;
            break;
        }
        if (!std::isfinite(loss))
            return makeError("inner training diverged: the loss became " + std::to_string(loss));
        if (warming) {
            ++s.warmupDone;
            continue;
        }
        lossSum += loss;
        ++s.innerDone;
        ++report.steps;
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started - outside).count();
    report.tokens = report.steps * batch * block;
    report.flops = double(report.tokens) * s.config.flopsPerToken();
    report.meanLoss = report.steps > 0 ? lossSum / double(report.steps) : 0.0;
    return report;
}

std::vector<float> ReplicaTrainer::pseudoGradient() const
{
    torch::NoGradGuard noGrad;
    const torch::Tensor local = m_state->step->parameters().values().to(torch::kCPU);
    const torch::Tensor delta = (m_state->global - local).contiguous();
    const float *data = delta.data_ptr<float>();
    return std::vector<float>(data, data + delta.numel());
}

std::vector<float> ReplicaTrainer::innerSecondMoment() const
{
    const torch::Tensor v = m_state->step->optimizer().expAvgSq().to(torch::kCPU).contiguous();
    const float *data = v.data_ptr<float>();
    return std::vector<float>(data, data + v.numel());
}

Result<void> ReplicaTrainer::setInnerSecondMoment(std::span<const float> secondMoment)
{
    torch::Tensor &v = m_state->step->optimizer().expAvgSq();
    if (std::int64_t(secondMoment.size()) != v.numel())
        return makeError("the second moment has " + std::to_string(secondMoment.size()) + " values, the model "
                         + std::to_string(v.numel()));
    for (float x : secondMoment) {
        if (!std::isfinite(x) || x < 0.0f)
            return makeError("a second moment value is negative or not finite");
    }
    torch::NoGradGuard noGrad;
    const torch::Tensor from =
        torch::from_blob(const_cast<float *>(secondMoment.data()), {v.numel()}, torch::kFloat32);
    v.copy_(from.view(v.sizes()));
    return {};
}

Result<void> ReplicaTrainer::applyOuterStep(std::span<const float> averagedPseudoGradient, std::int64_t scheduleAdvance)
{
    State &s = *m_state;
    if (std::int64_t(averagedPseudoGradient.size()) != s.global.numel())
        return makeError("the averaged pseudo-gradient has " + std::to_string(averagedPseudoGradient.size())
                         + " values, the model " + std::to_string(s.global.numel()));
    const OuterOptimizer outer({s.options.outerLr, s.options.outerMomentum});
    if (Result<void> r = outer.step(spanOf(s.global), spanOf(s.momentum), averagedPseudoGradient); !r)
        return r;
    if (s.scheduleStep >= 0)
        s.scheduleStep = advancedScheduleStep(s.scheduleStep, scheduleAdvance >= 0 ? scheduleAdvance : s.stepsPerRound());
    ++s.round;
    s.startRound();
    return {};
}

Result<void> ReplicaTrainer::loadGlobalState(const std::filesystem::path &stateFile)
{
    Result<FlatState> loaded = readFlatState(stateFile);
    if (!loaded)
        return loaded.error();
    if (loaded->checkpoint.config.toJson() != m_state->config.toJson())
        return makeError(stateFile.string() + " holds another model");
    m_state->global = loaded->values;
    m_state->momentum = loaded->outer.momentum;
    m_state->round = loaded->outer.round;
    m_state->scheduleStep = loaded->outer.scheduleStep;
    m_state->startRound();
    return {};
}

Result<void> ReplicaTrainer::saveGlobalState(const std::filesystem::path &stateFile) const
{
    Decoder model(m_state->config);
    FlatParameters flat(model->namedParameters());
    {
        torch::NoGradGuard noGrad;
        flat.values().copy_(m_state->global);
    }
    const OuterState outer{m_state->round, m_state->momentum, m_state->scheduleStep};
    return saveCheckpoint(stateFile, *model, nullptr, m_state->tokenizer, TrainingState{}, &outer);
}

std::string ReplicaTrainer::globalHash() const
{
    const torch::Tensor &g = m_state->global;
    return Sha256::hexOf({static_cast<const std::byte *>(g.data_ptr()), g.nbytes()});
}

Result<double> ReplicaTrainer::globalLoss(const std::vector<std::int32_t> &tokens, int evalIters,
                                          std::uint64_t seed) const
{
    Decoder model(m_state->config);
    FlatParameters flat(model->namedParameters());
    {
        torch::NoGradGuard noGrad;
        flat.values().copy_(m_state->global);
    }
    return windowLoss(*model, tokens, m_state->options.batchSize, evalIters, seed);
}

} // namespace swarmtrain
