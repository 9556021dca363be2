#pragma once

#include "Result.h"

#include <span>

namespace swarmtrain {

// How a member's claimed update compares with another peer's recomputation of it (a spot check,
// DESIGN.md "Verifiable work"; ReplicaTrainer.h says what a replay reproduces).
struct UpdateComparison {
    double cosine = 0.0;       // of the angle between the two
    double relativeNorm = 0.0; // |claimed| / |recomputed|
};

// A pure function of the two vectors, accumulated in double. An error when the sizes differ,
// either holds NaN or Inf, or the recomputed vector is all zeros (nothing to compare with); an
// all-zero claimed vector compares as cosine 0 and relative norm 0.
Result<UpdateComparison> compareUpdates(std::span<const float> claimed, std::span<const float> recomputed);

// When a claimed update counts as the recomputed one. The defaults come from
// bench/SpotCheckBench.cpp: a 0.8M-parameter GPT on tinyshakespeare, the claim being what the
// all-reduce sends (8-bit with error feedback), replayed by a fresh trainer on the CPU; four
// runs (4 peers H = 20 round 4, 4 peers H = 50 round 8, 2 peers H = 20 round 4, 4 peers H = 20
// round 6 with another seed), cosine / relative norm, worst of the four:
//   honest, replayed on as many threads:    >= 0.99991 / 1.0000 to 1.0001
//   honest, replayed on 1 thread (not 2):   the same to 1e-11 (the replay itself: cos 1 - 6e-12)
//   half the inner steps, honestly run:     0.80 to 0.96 / 0.71 to 0.95
//   another member's update of the round:   0.17 to 0.53 / 0.98 to 1.03
//   the member's previous round:            -0.02 to 0.18 / 0.81 to 1.71
//   the update scaled by 2:                 0.99991 / 2.0
//   Gaussian noise of the same norm:        < 0.002 / 1.0
//   all zeros:                              0 / 0
// 1 - minCosine is 100x the honest gap (1e-4) and a third of the closest attack's (the lazy
// run's 0.036); the norm's bounds catch what has the right direction at the wrong length (the
// scaled update, three of the four lazy runs). The margin leans toward the honest side on
// purpose: a false refutation costs an honest peer its reputation, and a replay on another
// device or dtype (a GPU's float16/bfloat16 over H steps, not measured here) strays further than
// another thread count; measure before tightening.
struct AgreementTolerance {
    double minCosine = 0.99;
    double minRelativeNorm = 0.9;
    double maxRelativeNorm = 1.1;
};

bool agrees(const UpdateComparison &comparison, const AgreementTolerance &tolerance = {});

} // namespace swarmtrain
