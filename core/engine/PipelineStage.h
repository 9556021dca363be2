#pragma once

#include "ModelConfig.h"
#include "Result.h"
#include "StagePartition.h"
#include "TrainOptions.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace swarmtrain {

// One microbatch's shape: `batch` sequences of `tokens` tokens.
struct MicrobatchShape {
    int batch = 0;
    int tokens = 0;

    std::size_t tokenCount() const { return std::size_t(batch) * std::size_t(tokens); }
    bool operator==(const MicrobatchShape &) const = default;
};

// What a stage runs on: token ids for the first stage, the previous stage's activations
// [batch, tokens, nEmbd] for the others.
struct StageInput {
    MicrobatchShape shape;
    std::span<const std::int32_t> tokens;
    std::span<const float> activations;
};

struct StageBackward {
    std::vector<float> inputGradient; // [batch, tokens, nEmbd]; empty on the first stage
    double loss = 0.0;                // the microbatch's mean loss, on the last stage
};

struct PipelineStageOptions {
    double beta1 = 0.9;
    double beta2 = 0.99;
    double weightDecay = 0.1;
    // The whole model's initialisation (as writeInitialSwarmState): every replica of a stage
    // starts from the same values, which are the one-machine model's.
    std::uint64_t seed = 1;
    // Where the stage computes: "cpu", "cuda[:N]" or "auto". On a GPU the stage's master
    // weights, gradient sum and AdamW state stay in host memory, and its engine stages go
    // through the device with the SwappingExecutor: all at once and kept there while they fit
    // `deviceMemoryBudget`, in planned groups when they do not. So every replica takes the same
    // host step, whatever its hardware, and a stage bigger than the GPU still serves. On the
    // CPU it computes in place, unless `swap` is On (tests: the CPU stands in for the device).
    std::string device = "cpu";
    SwapMode swap = SwapMode::Auto;
    std::int64_t deviceMemoryBudget = 0; // bytes of engine stages on the device at once; 0: half its free memory
    int microbatchSize = 4;              // sequences a request brings: the shape the swap plan is measured with
};

// One pipeline stage's share of the model on one peer (SWARM parallelism, issue 17), behind a
// header without LibTorch so the swarm's Qt code can serve it. Float32, on the CPU or through a
// GPU (PipelineStageOptions::device).
//
// Backward is stateless, as in SWARM and hivemind: a backward request carries the stage's input
// again and the forward is recomputed, so any peer of the stage can serve (or retry) any
// microbatch's backward. Its parameter gradients go into the stage's accumulator at once, under
// the caller's key, and stay *unconfirmed* until confirm(key) counts them; cancel(key) takes
// them back out (recomputed and subtracted), confirmed or not. The trainer confirms the one
// answer it used, so a backward retried on another peer is counted once across the stage, and
// can take a confirmed one back when it had to replay it elsewhere. So the stage keeps each
// microbatch's input and output gradient (or targets) until its step: 2 x batch x tokens x
// nEmbd floats a microbatch, what the trainer keeps too.
//
// The tied embedding: a stage that holds the head but not the embedding has its own copy of
// the token embedding, equal to the embedding stage's at the start. The two stay equal when both
// step with the same gradient for it, the sum of the two copies' (README, "Pipeline-stage mode"):
// the caller of step() puts that sum into both stages' mean gradients.
//
// Not thread-safe: one thread calls it at a time.
class PipelineStage {
public:
    static Result<std::unique_ptr<PipelineStage>> create(const ModelConfig &config, const StageSpan &span,
                                                         const PipelineStageOptions &options);
    ~PipelineStage();

    const ModelConfig &config() const;
    const StageSpan &span() const;
    bool isFirst() const;
    bool isLast() const;
    std::int64_t parameterCount() const;
    // How the stage computes, for the log: "cpu", or the device with "resident" or the swap plan.
    std::string serving() const;
    // Groups of engine stages the device takes in turn: 0 when the stage computes in place
    // (the CPU), 1 when it is resident on the device.
    int swapGroups() const;

    // Checks an input against this stage and the config: tokens for the first stage (ids below
    // the vocabulary), activations of [batch, tokens, nEmbd] elsewhere, tokens <= blockSize.
    Result<void> checkInput(const StageInput &input) const;

    // The stage's output [batch, tokens, nEmbd], without keeping anything; not on the last stage.
    Result<std::vector<float>> forward(const StageInput &input);
    // The last stage's mean loss on `targets` (batch x tokens ids), computing no gradient: for
    // validation.
    Result<double> evaluate(const StageInput &input, std::span<const std::int32_t> targets);
    // Backpropagates `gradOutput` (not on the last stage) or the loss of `targets` (the last
    // stage, batch x tokens ids) through the stage for microbatch `key`, adding its parameter
    // gradients to the accumulator, unconfirmed. A key already held is refused.
    Result<StageBackward> backward(const std::string &key, const StageInput &input, std::span<const float> gradOutput,
                                   std::span<const std::int32_t> targets = {});
    // Counts `key`'s gradient; false when the key is not pending.
    bool confirm(const std::string &key);
    // Takes `key`'s gradient back out, confirmed or not; false when the stage does not hold it.
    bool cancel(const std::string &key);
    bool isConfirmed(const std::string &key) const;
    // Cancels every unconfirmed key (before a step: an answer nobody confirmed counts for nothing).
    void cancelUnconfirmed();
    // Cancels every key, confirmed or not, that `which` picks (another step's, before a step).
    void cancelIf(const std::function<bool(const std::string &)> &which);

    int confirmedCount() const;
    int pendingCount() const;
    // The confirmed microbatches' keys, in the order they were confirmed.
    const std::vector<std::string> &confirmedKeys() const;

    // The sum of the confirmed microbatches' gradients, float32 in parameter order, after
    // cancelling every unconfirmed one.
    std::vector<float> gradientSum();
    // One AdamW step with `meanGradient` (the stage's average over the target batch, in
    // parameter order), clipped to `maxNorm` by its own norm (0: not clipped); the accumulator
    // and the keys start afresh.
    Result<void> step(std::span<const float> meanGradient, double lr, double maxNorm);
    std::int64_t stepCount() const;

    // The stage's training state, for a replica that resyncs or a peer moved here: parameters,
    // AdamW's moments and step count. Little-endian: "SST\x01" | u64 step count | u64 count |
    // float32 values[count] | float32 first moments[count] | float32 second moments[count].
    std::vector<std::byte> exportState() const;
    // Replaces the state by an exported one (from a stranger: strict). The count must be this
    // stage's, every value finite and every second moment non-negative; nothing changes on an
    // error. Held microbatches and the gradient sum are dropped: a resynced replica starts a step
    // afresh.
    Result<void> importState(std::span<const std::byte> bytes);
    static std::size_t stateSize(std::int64_t parameterCount);

    // Hex SHA-256 of the parameters (FlatParameters::valuesHash): replicas of a stage compare it.
    std::string hash() const;
    // The parameters in order, and their nanoGPT names and sizes in that order: for tests and
    // for a replica's resync.
    std::vector<float> parameters() const;
    std::vector<std::pair<std::string, std::int64_t>> parameterLayout() const;

private:
    struct State;
    explicit PipelineStage(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace swarmtrain
