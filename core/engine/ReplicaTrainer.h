#pragma once

#include "DeviceMemory.h"
#include "ModelConfig.h"
#include "LrSchedule.h"
#include "Result.h"
#include "Tokenizer.h"
#include "TrainOptions.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// How a peer trains its replica between rounds (DiLoCo's inner loop).
struct ReplicaOptions {
    int batchSize = 12;
    std::int64_t innerSteps = 50;    // H: inner steps per round (at most, where a round stops early)
    LrSchedule schedule{1e-3, 1e-4, 100, 5000}; // over inner steps counted across rounds
    // The schedule's steps a round, where the state does not record its schedule step (one
    // from before issue 18): inner step k of round r trains at schedule(r x this + k). 0:
    // innerSteps. Otherwise the state's schedule step counts the swarm's tokens
    // (applyOuterStep) and inner step k trains at schedule(that + k).
    std::int64_t scheduleStepsPerRound = 0;
    double beta1 = 0.9;
    double beta2 = 0.99;
    double eps = 1e-8; // AdamW's epsilon
    double weightDecay = 0.1;
    double gradClip = 1.0;
    double outerLr = 1.2;            // the outer Nesterov step, as the coordinator's defaults
    double outerMomentum = 0.5;
    std::uint64_t seed = 1;          // this peer's data order: step k of round r draws from (seed, r, k)
    std::string device = "cpu";
    ComputeDtype dtype = ComputeDtype::Auto;
    SwapMode swap = SwapMode::Auto;
    std::int64_t deviceMemoryBudget = 0;
    // The inner optimizer's moments, step count and loss scale run on from round to round
    // instead of starting afresh, which no other peer can reproduce: for a swarm that
    // spot-checks no one (TrainingSettings::innerStateKept), and bench/SwarmSimulation.cpp.
    bool keepInnerStateAcrossRounds = false;
    // With it: the first moment starts from zero each round all the same (the second moment
    // and the step count run on), to measure which moment matters.
    bool resetFirstMomentEachRound = false;
    // Steps at learning rate 0 at the start of each round, on batches of their own drawn as any
    // step's, that only fill the inner optimizer's moments, so the round's first updates are not
    // scaled by one batch's gradient. Replayable like the rest of the round. Only for
    // bench/SwarmSimulation.cpp: 10 of them recovered none of the reset's cost on a Llama
    // (docs/benchmarks.md), where keeping the second moment recovered most of it.
    std::int64_t momentWarmupSteps = 0;
    // With keepInnerStateAcrossRounds, only for bench/SwarmSimulation.cpp: whose moments run on
    // from round to round; the others' restart every round, with a step count of their own, as a
    // new optimizer's would (AdamW::restartRange). The token embedding must be the first parameter.
    // TokenEmbeddingSecondMoment keeps only its second moment (its first starts from zero);
    // TokenEmbeddingRows that too, each row's values replaced by their mean every round, as
    // one value per token that a swarm state could carry.
    enum class KeptMoments { All, TokenEmbedding, AllButTokenEmbedding, TokenEmbeddingSecondMoment, TokenEmbeddingRows };
    KeptMoments keptMoments = KeptMoments::All;
};

struct InnerReport {
    std::int64_t steps = 0;
    std::int64_t tokens = 0;
    double flops = 0.0;
    double seconds = 0.0; // computing; the caller's time in shouldStop() is left out
    double meanLoss = 0.0;
    bool interrupted = false; // shouldStop() said so before all steps ran
};

// A peer's full replica in full-model mode (ATOM + DiLoCo), behind a header without LibTorch
// so the swarm worker (Qt) can drive it. It holds the round's global parameters and outer
// momentum, and a local copy that trains H inner steps (resident or swapped through the
// device, TrainingStep); the round then averages every member's pseudo-gradient
// (global - local) and each member applies the same outer Nesterov step to the global copy.
//
// A round's inner run is a pure function of public inputs, so that another peer can spot-check
// a member's work (DESIGN.md, "Verifiable work"): the batches of inner step k of round r are
// drawn from (options.seed, r, k) alone, and every round starts from fresh inner optimizer state
// (zero AdamW moments and step count, the initial loss scale), set at create(), by
// applyOuterStep() and by loadGlobalState(). So
//     create(stateFileOfRoundR, optionsWithSeedOfM) + setTrainingTokens(tokensOfM)
//     + trainInner() + pseudoGradient()
// with the swarm's training settings in the other options gives the pseudo-gradient member M
// computed in round r, however M's run was stopped and resumed, released and reloaded, or
// restarted. On the CPU it is bit for bit the same for the same build and thread count; other
// devices, dtypes and thread counts round differently (UpdateAgreement.h: how close it stays).
// Not with dropout: its masks come from LibTorch's global generator, nor with
// keepInnerStateAcrossRounds.
class ReplicaTrainer {
public:
    // From a swarm state file (SwarmState.h): the round, the model, the outer momentum.
    static Result<std::unique_ptr<ReplicaTrainer>> create(const std::filesystem::path &stateFile,
                                                          const ReplicaOptions &options);
    ~ReplicaTrainer();

    std::int64_t round() const;
    // Where the inner learning-rate schedule starts this round's steps (the state's schedule step).
    std::int64_t scheduleStep() const;
    std::int64_t parameterCount() const;
    const ModelConfig &config() const;
    const Tokenizer &tokenizer() const;
    std::string deviceName() const;

    // The tokens this peer trains on (its data shards, encoded).
    Result<void> setTrainingTokens(std::vector<std::int32_t> tokens);

    // Runs the round's inner steps that have not run yet (up to options.innerSteps in all),
    // checking `shouldStop` before each, on this thread (it may block or do I/O). `interrupt`
    // is checked between the stages of every step, from any of the engine's threads, so keep
    // it cheap: when it says true the step is abandoned at once and changes nothing. A stopped
    // run continues on the next call, with the batches an unstopped run would have drawn.
    Result<InnerReport> trainInner(const std::function<bool()> &shouldStop = {},
                                   const std::function<bool()> &interrupt = {});
    // Inner steps done in this round.
    std::int64_t innerStepsDone() const;

    // global - local, float32, in parameter order (FlatParameters).
    std::vector<float> pseudoGradient() const;
    // The inner optimizer's second moment (AdamW's exp_avg_sq), float32, in parameter order, and
    // its replacement by another (every value finite and at least 0; the step count stays). Only
    // for bench/SwarmSimulation.cpp, which measures a swarm that averages its members' second
    // moments and starts each round from that average, with keepInnerStateAcrossRounds.
    std::vector<float> innerSecondMoment() const;
    Result<void> setInnerSecondMoment(std::span<const float> secondMoment);
    // The outer step with the round's averaged pseudo-gradient; the local copy becomes the new
    // global one, the round advances and the inner optimizer starts afresh. Nothing changes
    // when the average is rejected. The state's schedule step (when it records one) advances
    // by `scheduleAdvance`, the round's share of the swarm's tokens in steps of one peer (the
    // coordinator's, issue 18); -1: scheduleStepsPerRound.
    Result<void> applyOuterStep(std::span<const float> averagedPseudoGradient, std::int64_t scheduleAdvance = -1);
    // Replaces global and local parameters, momentum and round by a downloaded state (a late
    // or mismatched member catching up); the inner optimizer starts afresh.
    Result<void> loadGlobalState(const std::filesystem::path &stateFile);
    // Writes the global state (what the coordinator serves) atomically.
    Result<void> saveGlobalState(const std::filesystem::path &stateFile) const;

    // FlatParameters::valuesHash of the global parameters.
    std::string globalHash() const;
    // Mean loss of the global parameters on `tokens` (seeded windows), for benchmarks and logs.
    Result<double> globalLoss(const std::vector<std::int32_t> &tokens, int evalIters, std::uint64_t seed) const;

private:
    struct State;
    explicit ReplicaTrainer(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace swarmtrain
