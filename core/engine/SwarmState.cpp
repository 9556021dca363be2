#include "SwarmState.h"

#include "Checkpoint.h"
#include "FlatParameters.h"
#include "Gpt.h"
#include "WindowLoss.h"

namespace swarmtrain {

namespace {

struct LoadedState {
    LoadedCheckpoint checkpoint;
    Gpt model{nullptr};
    OuterState outer;
};

Result<LoadedState> loadState(const std::filesystem::path &file)
{
    Result<LoadedCheckpoint> checkpoint = readCheckpoint(file);
    if (!checkpoint)
        return checkpoint.error();
    LoadedState state{std::move(checkpoint).value(), Gpt(nullptr), {}};
    state.model = Gpt(state.checkpoint.config);
    if (Result<void> r = restoreModel(state.checkpoint, *state.model); !r)
        return makeError(file.string() + ": " + r.error().message);
    Result<OuterState> outer = readOuterState(state.checkpoint, state.checkpoint.config.parameterCount());
    if (!outer)
        return makeError(file.string() + ": " + outer.error().message);
    state.outer = std::move(outer).value();
    return state;
}

} // namespace

Result<void> writeInitialSwarmState(const std::filesystem::path &file, const GptConfig &config,
                                    const Tokenizer &tokenizer, std::uint64_t seed)
{
    if (const std::string why = config.validate(); !why.empty())
        return makeError("invalid model config: " + why);
    if (tokenizer.vocabSize() != config.vocabSize)
        return makeError("the tokenizer's vocabulary size differs from the model's");
    torch::manual_seed(seed);
    Gpt model(config);
    const OuterState outer{0, torch::zeros({config.parameterCount()}, torch::kFloat)};
    return saveCheckpoint(file, *model, nullptr, tokenizer, TrainingState{}, &outer);
}

Result<SwarmStateInfo> inspectSwarmState(const std::filesystem::path &file)
{
    Result<LoadedState> state = loadState(file);
    if (!state)
        return state.error();
    const FlatParameters flat(state->model->namedParameters());
    return SwarmStateInfo{state->outer.round, state->checkpoint.config, flat.numel(), flat.valuesHash()};
}

Result<double> swarmStateLoss(const std::filesystem::path &file, const std::vector<std::int32_t> &tokens, int batch,
                              int evalIters, std::uint64_t seed)
{
    Result<LoadedState> state = loadState(file);
    if (!state)
        return state.error();
    return windowLoss(*state->model, tokens, batch, evalIters, seed);
}

} // namespace swarmtrain
