#include "SwarmState.h"

#include "Checkpoint.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "WindowLoss.h"

namespace swarmtrain {

Result<void> writeInitialSwarmState(const std::filesystem::path &file, const ModelConfig &config,
                                    const Tokenizer &tokenizer, std::uint64_t seed)
{
    if (const std::string why = config.validate(); !why.empty())
        return makeError("invalid model config: " + why);
    ModelConfig fitted = config;
    if (Result<void> fits = fitVocabulary(fitted, tokenizer.vocabSize()); !fits)
        return makeError("the tokenizer and the model disagree on the vocabulary: " + fits.error().message);
    torch::manual_seed(seed);
    Decoder model(config);
    const OuterState outer{0, torch::zeros({config.parameterCount()}, torch::kFloat), 0};
    return saveCheckpoint(file, *model, nullptr, tokenizer, TrainingState{}, &outer);
}

Result<SwarmStateInfo> inspectSwarmState(const std::filesystem::path &file, const ModelConfig *expected)
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
