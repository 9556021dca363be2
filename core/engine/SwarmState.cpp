#include "SwarmState.h"

#include "Checkpoint.h"
#include "FlatParameters.h"
#include "Gpt.h"
#include "WindowLoss.h"

namespace swarmtrain {

Result<void> writeInitialSwarmState(const std::filesystem::path &file, const GptConfig &config,
                                    const Tokenizer &tokenizer, std::uint64_t seed)
{
    if (const std::string why = config.validate(); !why.empty())
        return makeError("invalid model config: " + why);
    if (tokenizer.vocabSize() != config.vocabSize)
        return makeError("the tokenizer's vocabulary size differs from the model's");
    torch::manual_seed(seed);
    Gpt model(config);
    const OuterState outer{0, torch::zeros({config.parameterCount()}, torch::kFloat), 0};
    return saveCheckpoint(file, *model, nullptr, tokenizer, TrainingState{}, &outer);
}

Result<SwarmStateInfo> inspectSwarmState(const std::filesystem::path &file, const GptConfig *expected)
{
    Result<LoadedSwarmState> state = loadSwarmState(file, expected);
    if (!state)
        return state.error();
    const FlatParameters flat(state->model->namedParameters());
    return SwarmStateInfo{state->outer.round, state->checkpoint.config, flat.numel(), flat.valuesHash()};
}

Result<double> swarmStateLoss(const std::filesystem::path &file, const std::vector<std::int32_t> &tokens, int batch,
                              int evalIters, std::uint64_t seed)
{
    Result<LoadedSwarmState> state = loadSwarmState(file);
    if (!state)
        return state.error();
    return windowLoss(*state->model, tokens, batch, evalIters, seed);
}

} // namespace swarmtrain
