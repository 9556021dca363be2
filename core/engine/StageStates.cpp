// A pipeline swarm's whole model, from one agreed state of each of its stages (SwarmState.h).

#include "SwarmState.h"

#include "Checkpoint.h"
#include "FlatParameters.h"
#include "PipelineStage.h"

#include <map>

namespace swarmtrain {

namespace {

Result<std::unique_ptr<PipelineStage>> importedStage(const ModelConfig &config, const StageSpan &span,
                                                     std::span<const std::byte> state)
{
    Result<std::unique_ptr<PipelineStage>> stage = PipelineStage::create(config, span, {});
    if (!stage)
        return stage.error();
    if (Result<void> imported = (*stage)->importState(state); !imported)
        return imported.error();
    return stage;
}

} // namespace

Result<std::string> stageStateHash(const ModelConfig &config, const StageSpan &span, std::span<const std::byte> state)
{
    Result<std::unique_ptr<PipelineStage>> stage = importedStage(config, span, state);
    if (!stage)
        return stage.error();
    return (*stage)->hash();
}

Result<void> writeSwarmStateFromStages(const std::filesystem::path &file, const ModelConfig &config,
                                       const Tokenizer &tokenizer, int stageCount, const StageStateSource &stateOf,
                                       std::int64_t round)
{
    Result<std::vector<StageSpan>> spans = partitionStages(config, stageCount);
    if (!spans)
        return spans.error();
    torch::NoGradGuard noGrad;
    Decoder model(config);
    std::map<std::string, torch::Tensor> parameters;
    for (const auto &[name, tensor] : model->namedParameters())
        parameters.emplace(name, tensor);
    std::map<std::string, bool> filled;
    std::int64_t steps = -1;
    for (std::size_t s = 0; s < spans->size(); ++s) {
        Result<std::vector<std::byte>> state = stateOf(int(s));
        if (!state)
            return makeError("stage " + std::to_string(s) + "'s state: " + state.error().message);
        Result<std::unique_ptr<PipelineStage>> stage = importedStage(config, (*spans)[s], *state);
        state->clear();
        state->shrink_to_fit();
        if (!stage)
            return makeError("stage " + std::to_string(s) + "'s state: " + stage.error().message);
        if (steps < 0)
            steps = (*stage)->stepCount(); // the trainers' stage: the swarm's optimizer steps
        const std::vector<float> values = (*stage)->parameters();
        std::int64_t offset = 0;
        for (const auto &[name, count] : (*stage)->parameterLayout()) {
            const auto it = parameters.find(name);
            if (it == parameters.end() || it->second.numel() != count)
                return makeError("stage " + std::to_string(s) + " holds " + name + ", which the model has not in that size");
            const torch::Tensor piece =
                torch::from_blob(const_cast<float *>(values.data() + offset), it->second.sizes(), torch::kFloat);
            offset += count;
            if (filled[name]) {
                // The tied embedding's copy on the head's stage steps with the first stage's.
                if (!torch::equal(it->second, piece))
                    return makeError("the stages' copies of " + name + " differ");
                continue;
            }
            it->second.copy_(piece);
            filled[name] = true;
        }
    }
    for (const auto &[name, tensor] : parameters) {
        if (!filled[name])
            return makeError("no stage holds " + name);
    }
    TrainingState training;
    training.iter = steps;
    const OuterState outer{round, torch::zeros({config.parameterCount()}, torch::kFloat), steps};
    return saveCheckpoint(file, *model, nullptr, tokenizer, training, &outer);
}

Result<std::vector<std::string>> swarmStateStageHashes(const std::filesystem::path &file, int stageCount)
{
    Result<LoadedSwarmState> state = loadSwarmState(file);
    if (!state)
        return state.error();
    const ModelConfig &config = state->checkpoint.config;
    Result<std::vector<StageSpan>> spans = partitionStages(config, stageCount);
    if (!spans)
        return spans.error();
    torch::NoGradGuard noGrad;
    std::map<std::string, torch::Tensor> whole;
    for (const auto &[name, tensor] : state->model->namedParameters())
        whole.emplace(name, tensor);
    std::vector<std::string> hashes;
    for (const StageSpan &span : *spans) {
        Decoder stage(config, span.first, span.last);
        for (auto &[name, tensor] : stage->namedParameters()) {
            const auto it = whole.find(name);
            if (it == whole.end())
                return makeError("the state has no " + name);
            tensor.copy_(it->second);
        }
        hashes.push_back(FlatParameters(stage->namedParameters()).valuesHash());
    }
    return hashes;
}

} // namespace swarmtrain
