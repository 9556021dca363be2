#pragma once

#include "Result.h"

#include <QtGlobal>

#include <vector>

namespace swarmtrain {

// Time-budgeted rounds (issue 18): the coordinator's side of "each member trains as many inner
// steps as fit the round's budget". Pure arithmetic, so it can be checked without a swarm.
struct RoundBudget {
    bool enabled = false;
    qint64 pinnedMs = 0;       // --round-seconds; 0: adapted to the swarm's speeds
    qint64 nominalSteps = 500; // H: the budget is what the swarm's median peer needs for H steps
    qint64 minSteps = 1;       // fewer steps than this and a member sits the round out
    qint64 maxSteps = 2'000;   // the cap: no member's round holds more
    qint64 tokensPerStep = 0;  // batch x block
    double flopsPerToken = 0.0; // the model's training FLOPs per token
    qint64 smallestMs = 1'000;  // an adapted budget stays within these
    qint64 largestMs = 3'600'000;
    // Asynchronous rounds: a round starts once peers are ready (after asyncWindowMs, for those
    // finishing with them), waiting for no one still training; a member may have trained on a
    // state up to maxStaleness rounds older than the round's.
    bool async = false;
    qint64 maxStaleness = 4;

    // How long an asynchronous round's first ready peer waits for others to finish with it: a
    // fortieth of the budget (what it costs that peer), between 0.1 s and 1 s.
    qint64 asyncWindowMs(qint64 budgetMs) const;
    // The steps a peer training at `tokensPerSecond` brings from a budget of `budgetMs`, within
    // the minimum and the cap; H while either is unknown (0).
    qint64 expectedSteps(double tokensPerSecond, qint64 budgetMs) const;

    // The budget for a round gathering now: pinned, or the time H steps take at the median of
    // the online peers' measured training speeds (tokens a second; a peer not measured yet, 0,
    // has no say). 0 while no speed is known: that round runs H steps, as a fixed-H round.
    qint64 budgetMs(const std::vector<double> &tokensPerSecond) const;

    // The most inner steps a peer can have trained on a round's state in `elapsedMs` (the time
    // since that round began gathering, plus its own start, which may be a little earlier) at
    // the speed its device measured at join (FLOPs a second, peak matrix multiplies: a training
    // step reaches less, so this bounds from above). With no measurement, nothing beyond H is
    // believed: a claim that cannot be checked is not credited.
    qint64 stepsAllowed(double deviceFlopsPerSecond, qint64 elapsedMs) const;

    // Why a member's claim of `steps` inner steps on the round's state cannot be taken into the
    // round, or nothing: below the minimum (a straggler this round; it sits out), above the cap,
    // or beyond what its speed allows in the time it had.
    Result<void> checkSteps(qint64 steps, double deviceFlopsPerSecond, qint64 elapsedMs) const;

    // Straggler-aware admission: at `tokensPerSecond` (its measured training speed; 0, not
    // measured yet, is never a straggler) a peer cannot fit the minimum steps into `budgetMs`.
    bool straggler(double tokensPerSecond, qint64 budgetMs) const;
};

} // namespace swarmtrain
