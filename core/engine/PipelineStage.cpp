#include "PipelineStage.h"

#include "AdamW.h"
#include "ByteOrder.h"
#include "Device.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "SwappingExecutor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

namespace swarmtrain {

namespace {

// A backward whose gradient is in the accumulator, counted (confirmed) or not yet: what it
// takes to recompute that gradient and take it back out.
struct Held {
    MicrobatchShape shape;
    std::vector<std::int32_t> tokens;
    std::vector<float> activations;
    std::vector<float> gradOutput;
    std::vector<std::int32_t> targets;
    bool confirmed = false;

    StageInput input() const { return {shape, tokens, activations}; }
};

torch::Tensor floatTensor(std::span<const float> values, std::initializer_list<std::int64_t> sizes)
{
    // Read only: autograd may keep the view for backward, which runs before the span goes away.
    return torch::from_blob(const_cast<float *>(values.data()), sizes, torch::kFloat);
}

torch::Tensor idTensor(std::span<const std::int32_t> ids, const MicrobatchShape &shape)
{
    return torch::from_blob(const_cast<std::int32_t *>(ids.data()), {shape.batch, shape.tokens}, torch::kInt)
        .to(torch::kLong);
}

std::vector<float> toVector(const torch::Tensor &tensor)
{
    const torch::Tensor flat = tensor.detach().to(torch::kCPU, torch::kFloat).contiguous().reshape({-1});
    return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

Result<void> checkIds(std::span<const std::int32_t> ids, std::size_t count, int vocabSize, const char *what)
{
    if (ids.size() != count)
        return makeError(std::string(what) + ": " + std::to_string(ids.size()) + " ids where the microbatch has "
                         + std::to_string(count) + " tokens");
    for (const std::int32_t id : ids) {
        if (id < 0 || id >= vocabSize)
            return makeError(std::string(what) + ": token id " + std::to_string(id) + " outside the vocabulary of "
                             + std::to_string(vocabSize));
    }
    return {};
}

Result<void> checkFinite(std::span<const float> values, std::size_t count, const char *what)
{
    if (values.size() != count)
        return makeError(std::string(what) + ": " + std::to_string(values.size()) + " values where "
                         + std::to_string(count) + " were expected");
    if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); }))
        return makeError(std::string(what) + " holds a value that is not finite");
    return {};
}

} // namespace

struct PipelineStage::State {
    ModelConfig config;
    StageSpan span;
    PipelineStageOptions options;
    Decoder model{nullptr};
    std::unique_ptr<FlatParameters> flat;
    std::unique_ptr<AdamW> optimizer;
    torch::Device device{torch::kCPU};
    std::unique_ptr<SwappingExecutor> executor; // through a device; none: in place on the CPU
    std::map<std::string, Held> held;
    std::vector<std::string> confirmed; // in the order they were confirmed

    Result<void> placeOnDevice(const PipelineStageOptions &options);

    bool first() const { return span.first == 0; }
    bool last() const { return span.last == config.nLayer + 1; }
    std::size_t width(const MicrobatchShape &shape) const { return shape.tokenCount() * std::size_t(config.nEmbd); }

    torch::Tensor inputTensor(const StageInput &input) const
    {
        if (first())
            return idTensor(input.tokens, input.shape);
        return floatTensor(input.activations, {input.shape.batch, input.shape.tokens, config.nEmbd});
    }

    torch::Tensor outputGradient(const Held &p) const
    {
        return floatTensor(p.gradOutput, {p.shape.batch, p.shape.tokens, config.nEmbd});
    }

    // The span's output (logits at the head) without gradients.
    torch::Tensor forwardOnly(const StageInput &input)
    {
        torch::NoGradGuard noGrad;
        if (executor)
            return executor->forward(inputTensor(input).to(device));
        return model->forwardStages(span.first, span.last, inputTensor(input));
    }

    // Forward with autograd and backward for one microbatch, into the parameters' .grad.
    StageBackward runBackward(const Held &p)
    {
        if (executor) {
            const SwappingExecutor::SpanResult run = executor->backwardSpan(
                inputTensor(p.input()).to(device), last() ? idTensor(p.targets, p.shape).to(device) : torch::Tensor(),
                last() ? torch::Tensor() : outputGradient(p).to(device));
            StageBackward result;
            result.loss = run.loss;
            if (run.inputGradient.defined())
                result.inputGradient = toVector(run.inputGradient);
            return result;
        }
        StageRun run = model->runStages(span.first, span.last, inputTensor(p.input()));
        StageBackward result;
        if (last()) {
            const torch::Tensor loss = DecoderImpl::loss(run.output, idTensor(p.targets, p.shape));
            loss.backward();
            result.loss = loss.item<double>();
            if (!first())
                result.inputGradient = toVector(run.input.grad());
            return result;
        }
        const torch::Tensor grad = run.backward(outputGradient(p));
        if (grad.defined())
            result.inputGradient = toVector(grad);
        return result;
    }
};

namespace {
bool throughDevice(const PipelineStageOptions &options, const torch::Device &device)
{
    return options.swap == SwapMode::On || (options.swap == SwapMode::Auto && device.is_cuda());
}
} // namespace

// The master copy stays where create() built it, in host memory; a device gets the executor.
Result<void> PipelineStage::State::placeOnDevice(const PipelineStageOptions &options)
{
    if (!throughDevice(options, device))
        return {};
    executor = std::make_unique<SwappingExecutor>(*model, *flat, device, ComputeDtype::Float32);
    const std::int64_t budget = options.deviceMemoryBudget > 0 ? options.deviceMemoryBudget : deviceFreeBytes(device) / 2;
    const std::vector<std::int64_t> &bytes = executor->stageBytes();
    const std::int64_t total = std::accumulate(bytes.begin(), bytes.end(), std::int64_t(0));
    if (total <= budget) {
        SwapPlan whole;
        whole.groups.push_back({0, int(bytes.size()) - 1, total, OptimizerPlacement::Host});
        executor->setPlan(whole);
        executor->setKeepResident(true);
        return {};
    }
    const std::vector<StageCost> costs =
        executor->measureStages(std::max(1, options.microbatchSize), config.blockSize, optimizer.get());
    Result<SwapPlan> plan = planSwapping(costs, budget, OptimizerPlacement::Host);
    if (!plan)
        return makeError("cannot serve the stage through " + device.str() + ": " + plan.error().message);
    executor->setPlan(*plan);
    return {};
}

PipelineStage::PipelineStage(std::unique_ptr<State> state)
    : m_state(std::move(state))
{
}

PipelineStage::~PipelineStage() = default;

Result<std::unique_ptr<PipelineStage>> PipelineStage::create(const ModelConfig &config, const StageSpan &span,
                                                             const PipelineStageOptions &options)
{
    if (const std::string why = config.validate(); !why.empty())
        return makeError("invalid model config: " + why);
    if (span.first < 0 || span.first > span.last || span.last > config.nLayer + 1)
        return makeError("stage span " + std::to_string(span.first) + ".." + std::to_string(span.last)
                         + " is outside the model's " + std::to_string(config.nLayer + 2) + " engine stages");
    Result<torch::Device> device = resolveDevice(options.device);
    if (!device)
        return device.error();
    auto state = std::make_unique<State>();
    state->device = *device;
    state->config = config;
    state->span = span;
    state->options = options;
    // The whole model's initial values, so that every replica and the one-machine model agree,
    // without building the whole model.
    state->model = Decoder(config, span.first, span.last);
    state->model->initializeAsWhole(options.seed);
    state->model->train(config.dropout > 0);
    // Pinned for the copies to a GPU.
    state->flat = std::make_unique<FlatParameters>(state->model->namedParameters(),
                                                   state->device.is_cuda() && throughDevice(options, state->device));
    AdamWOptions adam;
    adam.beta1 = options.beta1;
    adam.beta2 = options.beta2;
    adam.weightDecay = options.weightDecay;
    state->optimizer = std::make_unique<AdamW>(*state->flat, adam);
    if (Result<void> placed = state->placeOnDevice(options); !placed)
        return placed.error();
    return std::unique_ptr<PipelineStage>(new PipelineStage(std::move(state)));
}

const ModelConfig &PipelineStage::config() const { return m_state->config; }
const StageSpan &PipelineStage::span() const { return m_state->span; }
bool PipelineStage::isFirst() const { return m_state->first(); }
bool PipelineStage::isLast() const { return m_state->last(); }
std::int64_t PipelineStage::parameterCount() const { return m_state->flat->numel(); }
int PipelineStage::swapGroups() const { return m_state->executor ? int(m_state->executor->plan().groups.size()) : 0; }

std::string PipelineStage::serving() const
{
    const State &s = *m_state;
    if (!s.executor)
        return s.device.str();
    if (swapGroups() == 1)
        return s.device.str() + ", resident";
    return s.device.str() + ", swapped: " + s.executor->plan().why;
}

Result<void> PipelineStage::checkInput(const StageInput &input) const
{
    const State &s = *m_state;
    if (input.shape.batch <= 0 || input.shape.tokens <= 0 || input.shape.tokens > s.config.blockSize)
        return makeError("microbatch of " + std::to_string(input.shape.batch) + " x " + std::to_string(input.shape.tokens)
                         + " tokens: needs at least one sequence of 1 to " + std::to_string(s.config.blockSize) + " tokens");
    if (s.first()) {
        if (!input.activations.empty())
            return makeError("the first stage takes token ids, not activations");
        return checkIds(input.tokens, input.shape.tokenCount(), s.config.vocabSize, "input");
    }
    if (!input.tokens.empty())
        return makeError("only the first stage takes token ids");
    return checkFinite(input.activations, s.width(input.shape), "input activations");
}

Result<std::vector<float>> PipelineStage::forward(const StageInput &input)
{
    State &s = *m_state;
    if (s.last())
        return makeError("the last stage answers backward requests only: its output is the loss");
    if (Result<void> valid = checkInput(input); !valid)
        return valid.error();
    return toVector(s.forwardOnly(input));
}

Result<double> PipelineStage::evaluate(const StageInput &input, std::span<const std::int32_t> targets)
{
    State &s = *m_state;
    if (!s.last())
        return makeError("only the last stage computes the loss");
    if (Result<void> valid = checkInput(input); !valid)
        return valid.error();
    if (Result<void> ids = checkIds(targets, input.shape.tokenCount(), s.config.vocabSize, "targets"); !ids)
        return ids.error();
    const torch::Tensor logits = s.forwardOnly(input).to(torch::kCPU, torch::kFloat);
    return DecoderImpl::loss(logits, idTensor(targets, input.shape)).item<double>();
}

Result<StageBackward> PipelineStage::backward(const std::string &key, const StageInput &input,
                                              std::span<const float> gradOutput, std::span<const std::int32_t> targets)
{
    State &s = *m_state;
    if (s.held.contains(key))
        return makeError("microbatch " + key + " was already run backward on this stage");
    if (Result<void> valid = checkInput(input); !valid)
        return valid.error();
    if (s.last()) {
        if (!gradOutput.empty())
            return makeError("the last stage starts backward from the loss, not from an output gradient");
        if (Result<void> ids = checkIds(targets, input.shape.tokenCount(), s.config.vocabSize, "targets"); !ids)
            return ids.error();
    } else {
        if (!targets.empty())
            return makeError("only the last stage takes targets");
        if (Result<void> finite = checkFinite(gradOutput, s.width(input.shape), "output gradient"); !finite)
            return finite.error();
    }
    Held p{input.shape,
              {input.tokens.begin(), input.tokens.end()},
              {input.activations.begin(), input.activations.end()},
              {gradOutput.begin(), gradOutput.end()},
              {targets.begin(), targets.end()}};
    StageBackward result = s.runBackward(p);
    s.held.emplace(key, std::move(p));
    return result;
}

bool PipelineStage::confirm(const std::string &key)
{
    State &s = *m_state;
    const auto it = s.held.find(key);
    if (it == s.held.end() || it->second.confirmed)
        return false;
    it->second.confirmed = true;
    s.confirmed.push_back(key);
    return true;
}

bool PipelineStage::cancel(const std::string &key)
{
    State &s = *m_state;
    const auto it = s.held.find(key);
    if (it == s.held.end())
        return false;
    // Recompute the microbatch's gradient on its own (the same inputs give the same bits) and
    // subtract it from the accumulator.
    torch::Tensor &grads = s.flat->grads();
    const torch::Tensor accumulated = grads.clone();
    grads.zero_();
    s.runBackward(it->second);
    const torch::Tensor contribution = grads.clone();
    grads.copy_(accumulated).sub_(contribution);
    if (it->second.confirmed)
        s.confirmed.erase(std::find(s.confirmed.begin(), s.confirmed.end(), key));
    s.held.erase(it);
    return true;
}

void PipelineStage::cancelUnconfirmed()
{
    cancelIf([this](const std::string &key) { return !m_state->held.at(key).confirmed; });
}

void PipelineStage::cancelIf(const std::function<bool(const std::string &)> &which)
{
    std::vector<std::string> picked;
    for (const auto &[key, held] : m_state->held) {
        if (which(key))
            picked.push_back(key);
    }
    for (const std::string &key : picked)
        cancel(key);
}

bool PipelineStage::isConfirmed(const std::string &key) const
{
    const auto it = m_state->held.find(key);
    return it != m_state->held.end() && it->second.confirmed;
}

int PipelineStage::confirmedCount() const { return int(m_state->confirmed.size()); }
int PipelineStage::pendingCount() const { return int(m_state->held.size() - m_state->confirmed.size()); }
const std::vector<std::string> &PipelineStage::confirmedKeys() const { return m_state->confirmed; }

std::vector<float> PipelineStage::gradientSum()
{
    cancelUnconfirmed();
    return toVector(m_state->flat->grads());
}

Result<void> PipelineStage::step(std::span<const float> meanGradient, double lr, double maxNorm)
{
    State &s = *m_state;
    if (std::int64_t(meanGradient.size()) != s.flat->numel())
        return makeError("a stage step needs " + std::to_string(s.flat->numel()) + " gradient values, got "
                         + std::to_string(meanGradient.size()));
    if (Result<void> finite = checkFinite(meanGradient, meanGradient.size(), "mean gradient"); !finite)
        return finite.error();
    s.held.clear();
    s.flat->grads().copy_(floatTensor(meanGradient, {s.flat->numel()}));
    // On the host even when a device computes, so every replica's step is the same arithmetic.
    s.optimizer->step(lr, maxNorm);
    if (s.executor)
        s.executor->hostValuesChanged();
    s.flat->zeroGrad();
    s.confirmed.clear();
    return {};
}

namespace {
constexpr char kStateMagic[4] = {'S', 'S', 'T', '\x01'};
constexpr std::size_t kStateHeaderBytes = 4 + 8 + 8;
} // namespace

std::size_t PipelineStage::stateSize(std::int64_t parameterCount)
{
    return kStateHeaderBytes + 3 * 4 * std::size_t(parameterCount);
}

std::vector<std::byte> PipelineStage::exportState() const
{
    State &s = *m_state;
    const std::size_t count = std::size_t(s.flat->numel());
    std::vector<std::byte> bytes(stateSize(std::int64_t(count)));
    std::memcpy(bytes.data(), kStateMagic, 4);
    byteorder::putU64(bytes.data() + 4, std::uint64_t(s.optimizer->stepCount()));
    byteorder::putU64(bytes.data() + 12, count);
    std::byte *out = bytes.data() + kStateHeaderBytes;
    for (const torch::Tensor *t : {&s.flat->values(), &s.optimizer->expAvg(), &s.optimizer->expAvgSq()}) {
        const torch::Tensor host = t->detach().to(torch::kCPU, torch::kFloat).contiguous();
        byteorder::putFloats(out, {host.data_ptr<float>(), count});
        out += 4 * count;
    }
    return bytes;
}

Result<void> PipelineStage::importState(std::span<const std::byte> bytes)
{
    State &s = *m_state;
    const std::size_t count = std::size_t(s.flat->numel());
    if (bytes.size() < kStateHeaderBytes || std::memcmp(bytes.data(), kStateMagic, 4) != 0)
        return makeError("not a stage state");
    if (byteorder::getU64(bytes.data() + 12) != count || bytes.size() != stateSize(std::int64_t(count)))
        return makeError("a stage state of another size: this stage holds " + std::to_string(count) + " parameters");
    const std::uint64_t steps = byteorder::getU64(bytes.data() + 4);
    if (steps > (std::uint64_t(1) << 40))
        return makeError("a stage state with an impossible step count");
    std::vector<float> values(count), expAvg(count), expAvgSq(count);
    const std::byte *in = bytes.data() + kStateHeaderBytes;
    for (std::vector<float> *v : {&values, &expAvg, &expAvgSq}) {
        byteorder::getFloats(in, *v);
        in += 4 * count;
        if (Result<void> finite = checkFinite(*v, count, "stage state"); !finite)
            return finite.error();
    }
    if (std::any_of(expAvgSq.begin(), expAvgSq.end(), [](float v) { return v < 0; }))
        return makeError("a stage state with a negative second moment");
    torch::NoGradGuard noGrad;
    s.flat->values().copy_(floatTensor(values, {std::int64_t(count)}));
    s.optimizer->restore(std::int64_t(steps), floatTensor(expAvg, {std::int64_t(count)}),
                         floatTensor(expAvgSq, {std::int64_t(count)}));
    if (s.executor)
        s.executor->hostValuesChanged();
    s.held.clear();
    s.confirmed.clear();
    s.flat->zeroGrad();
    return {};
}

std::int64_t PipelineStage::stepCount() const { return m_state->optimizer->stepCount(); }
std::string PipelineStage::hash() const { return m_state->flat->valuesHash(); }
std::vector<float> PipelineStage::parameters() const { return toVector(m_state->flat->values()); }

std::vector<std::pair<std::string, std::int64_t>> PipelineStage::parameterLayout() const
{
    std::vector<std::pair<std::string, std::int64_t>> layout;
    for (const FlatParameters::Slot &slot : m_state->flat->slots())
        layout.emplace_back(slot.name, slot.numel);
    return layout;
}

} // namespace swarmtrain
