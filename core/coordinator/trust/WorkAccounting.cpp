#include "WorkAccounting.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace swarmtrain {

Result<void> RoundWork::checkClaim(const ContributionRecord &claim) const
{
    const qint64 most = std::max(tokensPerMember, maxTokensPerMember);
    if (most > 0 && (claim.tokens <= 0 || claim.tokens > most))
        return makeError("the report claims " + std::to_string(claim.tokens) + " tokens; a round's work is at most "
                         + std::to_string(most) + " tokens a member");
    // Recomputed activations and attention cost more than the 6N rule: four times is no honest
    // client's figure but leaves room for every way of counting.
    const double flopsBound = 4.0 * flopsPerToken * double(most);
    if (!std::isfinite(claim.flops) || claim.flops < 0 || (flopsPerToken > 0 && claim.flops > flopsBound))
        return makeError("the report claims " + std::to_string(claim.flops) + " FLOPs, beyond what "
                         + std::to_string(most) + " tokens of this model take");
    if (!std::isfinite(claim.seconds) || claim.seconds < 0 || !std::isfinite(claim.loss) || claim.loss < 0)
        return makeError("the report's seconds or loss is not a non-negative number");
    if (claim.bytesUp < 0 || claim.bytesDown < 0)
        return makeError("the report's byte counts are negative");
    return {};
}

} // namespace swarmtrain
