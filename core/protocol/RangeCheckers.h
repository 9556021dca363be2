#pragma once

#include <QString>
#include <QtGlobal>

#include <map>
#include <vector>

// Two owners per range (issue 16; DESIGN.md, "Security model"). Every range of a round's flat
// parameter vector has its owner and a second owner, its checker: each member sends its piece of
// the range to both, the checker recomputes the owner's average over the contributors the owner
// names and tells every member whether it agrees, and members apply a range only when it does.
// Who checks whom is drawn anew each round from a seed the coordinator draws when the round starts
// (RoundRecord::checkSeed), after its members are fixed: no member can steer which partners it
// gets, by its key, its place in range order or its timing, and a lying owner meets another
// checker from round to round and is the member that disagrees with several. The draw is a
// random cyclic order of the owners: each owner is checked by the next one and refereed by the one
// after, so every owner checks one range and referees one. Without a seed (a coordinator or a
// round from before, or a pipeline stage's step) the pairs rotate with the round's number. The
// client and the coordinator derive the pairs alike from the round's owners.
//
// When a checker does not agree, a third owner, the range's referee, settles it in the same
// round: the checker sends its own average of the range to every member and the pieces to the
// referee, which recomputes the range once more and says which of the two averages holds. Every
// member applies that one, so a lie costs no range, and the referee names the liar.
namespace swarmtrain {

struct RangeOwner {
    QString keyId;
    qint64 begin = 0; // where its range starts; owners are taken in range order
};

// The checker of each owner's range, by owner key id. With a seed: the next owner in the seed's
// random cyclic order (SplitMix64, Fisher-Yates over the owners in range order). Without one
// (seed 0): with n owners in range order, owner i is checked by owner (i + 1 + round mod (n - 1))
// mod n. Empty when there are fewer than two.
std::map<QString, QString> rangeCheckers(std::vector<RangeOwner> owners, qint64 round, quint64 seed = 0);

// The referee of each owner's range, by owner key id: the owner after its checker in the same
// order, or the one after that where that is the owner itself. Empty when there are fewer than
// three.
std::map<QString, QString> rangeReferees(std::vector<RangeOwner> owners, qint64 round, quint64 seed = 0);

} // namespace swarmtrain
