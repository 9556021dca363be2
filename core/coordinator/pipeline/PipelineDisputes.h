#pragma once

#include "CoordinatorStore.h"
#include "Result.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <map>
#include <vector>

namespace swarmtrain {

// Two owners per range in pipeline mode: the disputes of the stage groups' all-reduces, and who
// the lying owner is (OwnerDisputes.h, as in full-model rounds). A group's all-reduce of step s
// is round s + 1, its ranges equal and in the group's order among the members that accept
// connections, so the coordinator knows every member's range partners. One step's dispute cannot
// say which of the two lied; the partners rotate from step to step, so within a window of steps
// the liar is the one disputed by more distinct partners than any of theirs. A stage of two
// replicas never rotates: there a liar's range is skipped every step, but it is never named.
// The disputes live in the store (the full-model rounds' reports, one "round" a step, unused in
// this mode), so a restarted coordinator keeps the window.
class PipelineDisputes {
public:
    explicit PipelineDisputes(CoordinatorStore &store) : m_store(store) {}

    // `reporter`'s disputes in step `step`'s all-reduce of `owners` (its group's members that
    // own a range, in range order): only those naming its range partner of that round count.
    Result<void> record(qint64 step, const QStringList &owners, const QString &reporter, const QStringList &disputed);
    // The lying owners among the window's disputes that have a dispute in step `step`, each with
    // its number of distinct partners.
    Result<std::map<QString, std::size_t>> judge(qint64 step);

    // A trainer's word in its close of step `step` that `accused`, a stage peer of that step,
    // answered it wrong (its cross-checks, PipelineDriver). The word of one trainer of several
    // names nobody, or a hostile trainer could have honest stage peers banned: `accused` is named
    // once min(2, `trainers`) distinct trainers said so within kAccusationWindowSteps, and its
    // accusers then start afresh. True when it is named now. Not saved: a restarted coordinator
    // starts the count again.
    bool accuse(qint64 step, const QString &trainer, const QString &accused, std::size_t trainers);
    // The stage peers some trainer accused within the window before `step`: every trainer checks
    // each of their answers, so a liar one trainer caught is caught by the others at once. One
    // hostile trainer's word costs an honest peer checks, never credit.
    QStringList suspects(qint64 step) const;
    // A liar drops out of a trainer's hops once caught, so a second trainer may catch it steps
    // later; the window is long.
    static constexpr qint64 kAccusationWindowSteps = 100;

private:
    CoordinatorStore &m_store;
    std::map<QString, std::map<QString, qint64>> m_accusers; // accused -> trainer -> its latest step
};

} // namespace swarmtrain
