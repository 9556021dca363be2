#pragma once

#include "CoordinatorRecords.h"
#include "Result.h"

namespace swarmtrain {

// A round's work, fixed by the swarm's config (DESIGN.md, "Security model": credit comes from
// the coordinator's accounting, never from a claim): every member trains H inner steps of
// batch x block tokens.
struct RoundWork {
    qint64 tokensPerMember = 0; // H steps' tokens: a fixed-H round's work
    double flopsPerToken = 0.0; // the model's training FLOPs per token
    qint64 maxTokensPerMember = 0; // a time-budgeted round's cap (0: tokensPerMember)

    // Why a member's report cannot be true of this work (tokens beyond the round's, FLOPs
    // beyond those tokens', a loss or time that is not a number), or nothing.
    Result<void> checkClaim(const ContributionRecord &claim) const;
};

} // namespace swarmtrain
