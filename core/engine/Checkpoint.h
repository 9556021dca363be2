#pragma once

#include "AdamW.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "Result.h"
#include "TensorContainer.h"
#include "Tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

namespace swarmtrain {

// Training progress that goes into a checkpoint beside the tensors.
struct TrainingState {
    std::int64_t iter = 0;    // the next iteration to run
    std::string dataRngState; // std::mt19937_64, as its stream form
    std::string dataPath;     // what the run trained on, so --resume can find it
    double valLoss = 0.0;
};

// What swarm training adds to a checkpoint: the round its parameters belong to and DiLoCo's
// outer Nesterov momentum (flat, in FlatParameters order).
struct OuterState {
    std::int64_t round = 0;
    torch::Tensor momentum;
    // Where the inner learning-rate schedule stands at this state: the swarm's tokens so far, in
    // steps of one peer (issue 18; ReplicaTrainer::applyOuterStep). -1: not recorded (a state
    // from before), and the schedule counts round x H.
    std::int64_t scheduleStep = -1;
};

// The largest schedule step a state holds (2^53, the largest exact JSON integer): a file beyond
// it is refused, and outer steps stop there, so no advance a coordinator sends overflows it.
inline constexpr std::int64_t kMaxScheduleStep = std::int64_t(1) << 53;
inline std::int64_t advancedScheduleStep(std::int64_t step, std::int64_t advance)
{
    return std::min(step + std::clamp(advance, std::int64_t(0), kMaxScheduleStep), kMaxScheduleStep);
}

struct LoadedCheckpoint {
    ModelConfig config;
    Tokenizer tokenizer;
    TrainingState state;
    TensorContainer container;
};

// One safetensors file: the model under nanoGPT's names, the optimizer's flat moments, the
// tokenizer's vocabulary and the RNG states; written atomically, SHA-256 checked on load.
Result<void> saveCheckpoint(const std::filesystem::path &file, DecoderImpl &model, AdamW *optimizer,
                            const Tokenizer &tokenizer, const TrainingState &state, const OuterState *outer = nullptr);
Result<LoadedCheckpoint> readCheckpoint(const std::filesystem::path &file);
// Copies the checkpoint's parameters into `model`; names, shapes and finiteness are checked.
Result<void> restoreModel(const LoadedCheckpoint &checkpoint, DecoderImpl &model);
// The checkpoint's model, built from its config and restored; errors name `file`.
Result<Decoder> restoredModel(const LoadedCheckpoint &checkpoint, const std::filesystem::path &file);
// The outer state of a swarm checkpoint; `parameterCount` is the model's flat size.
Result<OuterState> readOuterState(const LoadedCheckpoint &checkpoint, std::int64_t parameterCount);

// A swarm state file (SwarmState.h): the checkpoint, its model restored, and the outer state.
struct LoadedSwarmState {
    LoadedCheckpoint checkpoint;
    Decoder model{nullptr};
    OuterState outer;
};
// With `expected`, a file whose model config differs is refused before any model is built: a
// stranger's file must not make this process allocate what its config asks for.
Result<LoadedSwarmState> loadSwarmState(const std::filesystem::path &file, const ModelConfig *expected = nullptr);
Result<void> restoreOptimizer(const LoadedCheckpoint &checkpoint, FlatParameters &parameters, AdamW &optimizer);

std::filesystem::path checkpointFile(const std::filesystem::path &dir);

} // namespace swarmtrain
