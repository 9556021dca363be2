#pragma once

#include "CoordinatorRecords.h"
#include "VerificationMessages.h"

#include <QString>
#include <QStringList>

#include <map>
#include <vector>

// A range owner's evidence, and the coordinator's ruling on it (issue 43; hosting.md, "Range
// checks and colluders"). A range's checker and referee are two other owners: with two of three
// owners colluding they are both theirs, whatever the draw, and could say an honest owner's
// average is wrong. So an owner whose checker disagreed sends the coordinator the pieces it
// averaged (RangeEvidence). The coordinator holds every member's commitment to each piece, so it
// tells the pieces the members sent from pieces made up, and recomputes the range with the same
// function the owner and its checker use (RangeAggregation.h). Evidence that does not hold names
// the owner a liar at once. The ruling, with the hash of the average ruled on, decides the range
// (GET /v1/round/ruling; RangeRulings.h on the members' side): members apply the owner's average
// only when the very one they got was upheld, so a liar that sends honest evidence and the members
// another average gains nothing; disputes of an owner whose evidence held count for nothing; and a
// member that reports applying a range against a ruling is left out of the round's vote and counted
// an offence, and one that skipped an upheld range others applied is left out of the vote
// (Verification::rulingBreaches).
namespace swarmtrain {

// What a ruling needs from the store: the round (its members' weights, its share), the owner's
// range, and the commitments to that range by sender.
struct EvidenceCase {
    RoundRecord round;
    RoundMember owner;
    std::map<QString, QString> commitments; // sender -> SHA-256 (hex) of its piece of the range
    // What the owner named for the round's audit (AverageClaim), as claimDetail() keeps it; empty:
    // nothing.
    QString claimed;
    // The range's checker, where it sent the evidence standing in for an owner that committed to
    // nothing (a stalling stranger): it averaged the range in the owner's place, and answers for
    // that average. Empty: the owner sent it.
    QString standIn;
};

// What the coordinator found in an owner's evidence.
struct EvidenceFinding {
    // Why it does not show that the owner's average is what the committed pieces make (within the
    // checkers' tolerance); empty when it does.
    QString refusal;
    // Where the pieces hold and only the average does not: the encoded average they make, the
    // range as the coordinator averaged it (Verification::rule).
    QByteArray redone;
    // ...and where the average lies farther than twice the tolerance from it: the claim (average
    // and pieces, claimDetail()) that nobody who recomputed it from those pieces could have taken,
    // whatever their rounding. A checker that vouched for it lied (Verification::judgeVouches).
    QString farOffClaim;
};

// Weighs `evidence` for `owned`. A pure function: it runs on a worker thread. An honest owner's
// evidence always holds: it averaged only pieces it checked against the same commitments, refused
// those an owner must refuse, and the result is a pure function of them.
EvidenceFinding weighEvidence(const RangeEvidence &evidence, const EvidenceCase &owned);

// How a claim on a range's average is kept among a round's update reports: the average's SHA-256
// and that of the keys of the members whose pieces are in it (sorted, comma-separated), both hex,
// as "SHA:SHA". A fixed size, however large the round.
QString claimDetail(const QString &sha256, QStringList contributors);

// The kinds of the rulings' records among a round's update reports (reporter and sender: the owner).
inline constexpr char kEvidenceUpheld[] = "evidence_upheld";
inline constexpr char kEvidenceRefuted[] = "evidence_refuted";
// The SHA-256 of the range as the coordinator recomputed it from a refuted owner's pieces.
inline constexpr char kEvidenceRedone[] = "evidence_redone";
// EvidenceFinding::farOffClaim of a refuted owner's evidence.
inline constexpr char kEvidenceFarOff[] = "evidence_far_off";
// Who sent the evidence standing in for its owner (EvidenceCase::standIn): reporter the checker,
// sender the owner.
inline constexpr char kEvidenceStandIn[] = "evidence_stand_in";

// The rulings among `rulings` (CoordinatorStore::evidenceRulings) of `round`'s attempt, by the
// begin of their owner's range in it.
// The SHA-256 of `owner`'s range as the coordinator recomputed it from its refuted evidence, among
// a round's update reports; empty when there is none.
QString redoneSha256Of(const std::vector<UpdateReportRecord> &reports, const QString &owner);

std::map<qint64, UpdateReportRecord> rulingsByRange(const RoundRecord &round, const std::vector<UpdateReportRecord> &rulings);

} // namespace swarmtrain
