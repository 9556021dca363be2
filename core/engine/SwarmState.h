#pragma once

#include "ModelConfig.h"
#include "Result.h"
#include "StagePartition.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// The swarm's global state, for code that must not include LibTorch (the coordinator).
// It is a checkpoint file (Checkpoint.h) whose OuterState is set: the model's tensors under
// nanoGPT's names, the tokenizer, metadata "round", and the flat float32 tensor
// "outer.momentum" (DiLoCo's Nesterov buffer); SHA-256 checked as every checkpoint.
struct SwarmStateInfo {
    std::int64_t round = 0;
    ModelConfig config;
    std::int64_t parameterCount = 0;
    std::string parametersHash; // FlatParameters::valuesHash of the model
};

// Round 0: a freshly initialized model (seeded) and zero momentum, written atomically.
Result<void> writeInitialSwarmState(const std::filesystem::path &file, const ModelConfig &config,
                                    const Tokenizer &tokenizer, std::uint64_t seed);

// Reads and fully checks a state file: container checksum, config, tokenizer, every tensor's
// shape, and that no value is NaN or infinite. With `expected`, a file of another model config
// is refused before its model is built (an upload from a stranger).
Result<SwarmStateInfo> inspectSwarmState(const std::filesystem::path &file, const ModelConfig *expected = nullptr);

// Mean cross-entropy of the state's model on `tokens`: evalIters batches of `batch` windows of
// the model's block size, at offsets drawn from `seed`, so the same call gives the same number.
Result<double> swarmStateLoss(const std::filesystem::path &file, const std::vector<std::int32_t> &tokens, int batch,
                              int evalIters, std::uint64_t seed);

// A pipeline swarm's model (issue 44), which no one peer holds: the stages' agreed states
// (PipelineStage::exportState; stateOf(s) gives stage s's, read one at a time, the model split as
// partitionStages(config, stageCount) splits it) put together into one state file of round
// `round`, its schedule step the first stage's optimizer steps and its outer momentum zero. Each
// state is checked as a stranger's; the tied embedding's two copies must be equal.
using StageStateSource = std::function<Result<std::vector<std::byte>>(int stage)>;
Result<void> writeSwarmStateFromStages(const std::filesystem::path &file, const ModelConfig &config,
                                       const Tokenizer &tokenizer, int stageCount, const StageStateSource &stateOf,
                                       std::int64_t round);
// The parameters' hash (PipelineStage::hash) of a stage state: what its replicas agreed on.
Result<std::string> stageStateHash(const ModelConfig &config, const StageSpan &span,
                                   std::span<const std::byte> state);
// The hash each of `stageCount` stages of the state's model would have: a published pipeline
// model checked against the stages' agreed hashes.
Result<std::vector<std::string>> swarmStateStageHashes(const std::filesystem::path &file, int stageCount);

} // namespace swarmtrain
