#pragma once

#include <cstdint>

namespace swarmtrain {

namespace protocol {
constexpr int kMaxStaleness = 64; // rounds an asynchronous member's state may lag the swarm's
} // namespace protocol

// What every peer of a swarm trains with: the coordinator's flags, sent in the join answer.
struct TrainingSettings {
    int innerSteps = 500; // H: local steps between rounds
    int batchSize = 12;
    double lr = 1e-3;
    double minLr = 1e-4;
    int warmupIters = 100;
    // Inner steps (counted across rounds) of the cosine decay to minLr; 0: the full rate
    // after warm-up, for a swarm without an end.
    std::int64_t lrDecayIters = 0;
    double weightDecay = 0.1;
    // The inner AdamW's epsilon. Larger damps the tiny gradients of rare tokens' rows, which a
    // second moment started afresh each round scales up to whole steps: a Llama swarm over a BPE
    // of 4,096 pieces ended 12% above one machine with 1e-4, against 19% with 1e-8 (benchmarks).
    double adamEps = 1e-8;
    double gradClip = 1.0;
    // The outer Nesterov step. DiLoCo's 0.7 / 0.9 were tuned for H = 500 over many rounds; with
    // H = 50 and 4 peers, 1.2 / 0.5 came out best of those tried (bench/SwarmSimulation, README).
    double outerLr = 1.2;
    double outerMomentum = 0.5;
    std::uint64_t seed = 1;
    // Time-budgeted rounds (issue 18): each member trains as many inner steps as fit the
    // round's compute budget (the coordinator sends it with every heartbeat answer and adapts
    // it to the swarm), at least minInnerSteps and at most maxInnerSteps, and its
    // pseudo-gradient counts by those steps; the inner schedule counts the swarm's tokens (the
    // round's steps over the swarm's peers, RoundRecord::scheduleAdvance). Off: every member
    // trains exactly innerSteps (fixed H).
    bool timeBudgeted = false;
    int minInnerSteps = 1;
    int maxInnerSteps = 0; // 0: innerSteps
    // Asynchronous rounds (issue 18, `--rounds async`; always time-budgeted): a round starts as
    // soon as peers are ready, without waiting for those still training; a member may have
    // trained on a state up to maxStaleness rounds old, and its pseudo-gradient then counts
    // less (stalenessWeight), applied to the newest state.
    bool asyncRounds = false;
    int maxStaleness = 4;
    // Each member's inner optimizer (AdamW's moments and step count) runs on from round to round
    // instead of starting afresh (`--inner-state kept`). No other peer can then replay a member's
    // round, so only a swarm that spot-checks no one keeps it; a Llama swarm of 4 trained 19%
    // worse than one machine with fresh moments and 3.8% with kept ones (docs/benchmarks.md).
    bool innerStateKept = false;

    // The most inner steps a round may hold: the cap of a budgeted round, else H.
    int stepCap() const { return timeBudgeted && maxInnerSteps > 0 ? maxInnerSteps : innerSteps; }
};

} // namespace swarmtrain
