#pragma once

#include "ButterflyAllReduce.h"
#include "Result.h"
#include "VerificationMessages.h"

#include <QString>

#include <cstdint>
#include <map>

// A member's side of the coordinator's rulings on disputed ranges (issue 43; hosting.md, "Range
// checks and colluders"). A range's checker and referee are two other owners, so two colluders
// can be both and have their own average applied to an honest owner's range. Where the
// coordinator rules (CommitmentsAnswer::rangeRulings), the owner's evidence decides instead:
// the coordinator recomputes the range from the committed pieces (OwnerEvidence.h) and every
// member settles the range by that ruling, whatever the referee said.
namespace swarmtrain {

// Settles each of `outcome`'s disputed ranges by its owner's ruling in `rulings` (by owner):
// - upheld, and the very average that came here: the owner's average is applied;
// - refuted: the range stays as its referee settled it on the checker's average, and is skipped
//   where that was the owner's average after all;
// - anything else (no ruling by the member's wait, or another average upheld than the one that
//   came here, which a lying owner that sent honest evidence would cause): the range is skipped.
// The average, the applied averages (what the coordinator recomputes the state from) and the
// skipped and redone ranges are rewritten to match. An owner's average that does not decode is
// an error and leaves `outcome` as it was: it decoded when it came.
Result<void> settleDisputedRanges(AllReduceOutcome &outcome, const std::map<QString, RangeRuling> &rulings);

// Skips each of `outcome`'s unchecked ranges (AllReduceOutcome::uncheckedRanges) whose owner is not
// among `audited`: applied without a checker's verdict, such a range stands on the audit alone. One
// the coordinator audited is settleAuditedRanges()'.
void skipUnauditedRanges(AllReduceOutcome &outcome, const QStringList &audited);

// Settles each range the coordinator audited (RangeAudit; `audited`: their owners and ranges) that
// was applied here and not disputed: it stays only where its owner's ruling upholds the very
// average that came. Where the ruling refutes it and `redone` holds the range as the coordinator
// recomputed it from the owner's pieces (by owner; the very bytes the ruling names), that is
// applied instead; otherwise (another average upheld, no ruling by the member's wait) the range is
// skipped. A disputed audited range is settleDisputedRanges()' first: where that skipped it (a
// refuted owner whose checker had no average of its own to apply, as when only its referee
// disputed it), the range as the coordinator recomputed it is applied the same way.
void settleAuditedRanges(AllReduceOutcome &outcome, const std::vector<DisputedRange> &audited,
                         const std::map<QString, RangeRuling> &rulings, const std::map<QString, QByteArray> &redone = {});

} // namespace swarmtrain
