#pragma once

#include "CoordinatorRecords.h"

#include <QString>
#include <QStringList>

#include <map>
#include <set>
#include <tuple>
#include <vector>

// Two owners per range (issue 16; DESIGN.md, "Security model"), the coordinator's side: which
// disputes between range partners count, and who the lying owner is.
//
// Each round every owner's range has a second owner, its checker (rangeCheckers()). An owner
// disputes its checker when the checker would not agree with its average (a silent checker may
// just be slow, and is not disputed); a checker disputes the owner whose average it could not
// reproduce. One such dispute cannot say which
// of the two lied, but the range's referee settles it and disputes whichever average did not
// hold up, and the pairs rotate: a lying owner is disputed by its checker and its referee, and
// each round by others, while each honest owner is disputed only by the liar. So over the last
// rounds the liar is the one with more distinct dispute partners than any of its partners.
namespace swarmtrain {

// How many rounds (the one that closes and those before it) a dispute counts for.
constexpr qint64 kDisputeWindowRounds = 10;

// The owners of `round`'s ranges, in the order their pieces travel in an update: by range.
std::vector<RoundMember> ownersByRange(const RoundRecord &round);

// The checker of each owner's range in `round`, by owner key id: rangeCheckers() over the members
// that own a range (end > begin).
std::map<QString, QString> rangeCheckersOf(const RoundRecord &round);
// ...and the referee of each (rangeReferees()).
std::map<QString, QString> rangeRefereesOf(const RoundRecord &round);

// Whether `a` and `b` are partners in `checkers`: one checks the other's range.
bool rangePartners(const std::map<QString, QString> &checkers, const QString &a, const QString &b);

// Whether `reporter` may dispute `disputed` in a round paired by `checkers` and `referees`: they
// are partners, or `reporter` referees a range that `disputed` owns or checks.
bool mayDispute(const std::map<QString, QString> &checkers, const std::map<QString, QString> &referees,
                const QString &reporter, const QString &disputed);

// The disputes `reporter` made in `round` that count (kind "disputed", sender = the disputed
// peer): only those naming its partner of the round, or, for a referee, the owner or the checker
// of the range it referees. A stranger's accusation means nothing.
std::vector<UpdateReportRecord> admissibleDisputes(const RoundRecord &round, const QString &reporter,
                                                   const QStringList &disputed);

// An owner whose evidence the coordinator upheld in a round (issue 43): its disputes of that round
// say nothing against it.
struct Vindicated {
    qint64 round = 0;
    int attempt = 0;
    QString keyId;

    bool operator<(const Vindicated &o) const { return std::tie(round, attempt, keyId) < std::tie(o.round, o.attempt, o.keyId); }
};

// The lying owners among `disputes`, each with its number of distinct dispute partners: a peer
// with at least two, and more than each of its partners has. Disputes are unordered pairs (who
// reported whom does not matter, nor how often), but for a peer `vindicated` in their round: a
// dispute of it counts for nothing, and one it made counts as a partner of the peer it disputed
// only (an honest owner whose lying checkers change each round is not the one with most partners).
std::map<QString, std::size_t> lyingOwners(const std::vector<UpdateReportRecord> &disputes,
                                           const std::set<Vindicated> &vindicated = {});

} // namespace swarmtrain
