#include "UpdateAgreement.h"

#include <cmath>
#include <string>

namespace swarmtrain {

Result<UpdateComparison> compareUpdates(std::span<const float> claimed, std::span<const float> recomputed)
{
    if (claimed.size() != recomputed.size())
        return makeError("the claimed update has " + std::to_string(claimed.size()) + " values, the recomputed one "
                         + std::to_string(recomputed.size()));
    double dot = 0.0, claimedSq = 0.0, recomputedSq = 0.0;
    for (std::size_t i = 0; i < claimed.size(); ++i) {
        const double c = claimed[i], r = recomputed[i];
        if (!std::isfinite(c) || !std::isfinite(r))
            return makeError(std::string(std::isfinite(c) ? "the recomputed" : "the claimed")
                             + " update holds NaN or Inf at value " + std::to_string(i));
        dot += c * r;
        claimedSq += c * c;
        recomputedSq += r * r;
    }
    if (recomputedSq == 0.0)
        return makeError("the recomputed update is all zeros: there is nothing to compare with");
    if (claimedSq == 0.0)
        return UpdateComparison{0.0, 0.0};
    const double claimedNorm = std::sqrt(claimedSq), recomputedNorm = std::sqrt(recomputedSq);
    return UpdateComparison{dot / (claimedNorm * recomputedNorm), claimedNorm / recomputedNorm};
}

bool agrees(const UpdateComparison &comparison, const AgreementTolerance &tolerance)
{
    return comparison.cosine >= tolerance.minCosine && comparison.relativeNorm >= tolerance.minRelativeNorm
           && comparison.relativeNorm <= tolerance.maxRelativeNorm;
}

} // namespace swarmtrain
