#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <functional>
#include <vector>

namespace swarmtrain {

// Ways a peer can cheat in a round's all-reduce, for the adversary tests (tests/adversary): only
// the test-only swarmtrain-hostile client sets one; release binaries have no switch for it, and
// the default does nothing.
struct Misbehaviour {
    // Replaces this peer's pseudo-gradient before it is split and sent (scaled, sign-flipped,
    // zero, noise).
    std::function<void(std::vector<float> &)> pseudoGradient;
    // Replaces the average of this peer's own range before it goes back to the members (a
    // lying range owner).
    std::function<void(std::vector<float> &)> ownerAverage;
    // Replaces its own recomputation of the range it checks (a lying checker, which then
    // disputes an honest owner's average with this one).
    std::function<void(std::vector<float> &)> checkerAverage;
    // As a range's checker, agrees with the owner's average whatever the pieces make (an owner's
    // colluding partner).
    bool vouchAsChecker = false;
    // A coalition's keys: as a checker (or referee) this peer vouches for an ally's average, and as
    // an owner it changes its own average (`ownerAverage`) only in rounds whose draw made an ally
    // its checker, when no checker would dispute it.
    QStringList allies;
    // ...and only where its referee is not an ally: the lies that only the referee's check can
    // catch (AllReduceOptions::refereeChecks; the rest are the audits').
    bool liesUnderHonestReferee = false;
    // ...from this round on: until then it behaves (a patient coalition, earning its standing).
    quint64 fromRound = 0;
    // As a range's referee, rules for the checker's average whatever the pieces make (a checker's
    // colluding partner).
    bool refereeForChecker = false;
    // Applies a disputed range as its referee ruled, whatever the coordinator rules on the owner's
    // evidence (RangeRulings.h).
    bool ignoreRulings = false;
    // Bytes of frames for a round a million ahead, sent to every owner before this peer's piece.
    qint64 farFutureBytes = 0;
    // Commits to its pieces, then sends each owner a slightly different one.
    bool equivocate = false;
    // Sends its pieces to the ranges' owners but not to their checkers, to get ranges skipped.
    bool withholdFromCheckers = false;
    // Becomes a member, then commits to nothing and sends nothing, saying "training" until its
    // round ends without it (a stranger stalling the swarm's rounds).
    bool stall = false;
    // Reports this parameters hash for its rounds instead of its own (not empty): Sybils
    // agreeing on a state nobody trained, to outvote the honest members.
    QString reportedHash;
    // Changes its pipeline stage's state before it uploads it for the model's export (a forged
    // stage passed off as the agreed one).
    std::function<void(QByteArray &)> stageState;
    // Changes the values of its pipeline stage's answers before they go back to the trainer: the
    // activations of a forward (`backward` false) or the input gradient of a backward.
    std::function<void(std::vector<float> &values, bool backward)> stageAnswer;
};

} // namespace swarmtrain
