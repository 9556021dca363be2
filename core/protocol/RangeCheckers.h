#pragma once

#include <QString>
#include <QtGlobal>

#include <map>
#include <vector>

// Two owners per range (issue 16; DESIGN.md, "Security model"). Every range of a round's flat
// parameter vector has its owner and a second owner, its checker: each member sends its piece of
// the range to both, the checker recomputes the owner's average over the contributors the owner
// names and tells every member whether it agrees, and members apply a range only when it does.
// Who checks whom rotates with the round, so a lying owner meets a different checker each round
// and is the one member that disagrees with several. The client and the coordinator derive the
// pairs alike from the round's owners.
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

// The checker of each owner's range, by owner key id: with n owners in range order, owner i is
// checked by owner (i + 1 + round mod (n - 1)) mod n. Empty when there are fewer than two.
std::map<QString, QString> rangeCheckers(std::vector<RangeOwner> owners, qint64 round);

// The referee of each owner's range, by owner key id: the owner after its checker in range
// order, or the one after that where that is the owner itself. Empty when there are fewer than
// three.
std::map<QString, QString> rangeReferees(std::vector<RangeOwner> owners, qint64 round);

} // namespace swarmtrain
