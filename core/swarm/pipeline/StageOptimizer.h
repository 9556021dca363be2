#pragma once

#include "ButterflyAllReduce.h"
#include "ModelConfig.h"
#include "StagePartition.h"

#include <QList>
#include <QObject>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace swarmtrain {

class PeerTransport;
class StageWorker;

// Which part of a step group's vector a member's parameters fill. A middle stage's replicas
// average their own parameters' gradients. Stage 0's replicas and the last stage's step as one
// group, so that the tied token embedding gets one gradient, the sum of both copies': the group's
// vector is [token embedding | stage 0's other parameters | the last stage's other parameters],
// and each member fills its own parts and sends zeros in the other's.
enum class StepPart { Own, TiedFirst, TiedLast };

struct StageStepPlan {
    std::uint64_t step = 0;         // the optimizer step: only the microbatches of this step count
    quint64 round = 0;              // the all-reduce's round: one per step, attempt and group
    // An all-reduce that lacks a member's work (it vanished during it) is not applied: the step
    // fails as incomplete, and its work is replayed on the survivors for another attempt. On a
    // step's last attempt what came is applied.
    bool requireComplete = false;
    QList<AllReduceMember> members; // the group, each reachable one owning a range of its vector
    int microbatches = 0;           // M: the step's microbatches, each counted once at every stage
    double lr = 0.0;
    // The group's mean gradient is clipped to this norm (0: not clipped). Every member of the
    // group clips by the same norm, so the tied embedding's two copies take the same step.
    double gradClip = 1.0;
    StepPart part = StepPart::Own;
    std::int64_t firstRest = 0;     // tied group: stage 0's parameters besides the token embedding
    std::int64_t lastRest = 0;      // ...and the last stage's
    std::string tiedName;           // the tied token embedding's parameter name; empty: untied, nothing shared
    int timeoutMs = 60'000;

    // The length of the group's vector for a member holding `ownCount` parameters.
    std::int64_t groupSize(std::int64_t ownCount) const;
    // Sets part, firstRest, lastRest and tiedName for a peer of `stage` of a pipeline split into
    // `spans`: the first and last stages step as one group, sharing the tied token embedding
    // (nothing, when the model's head has its own weight).
    void placeInPipeline(const ModelConfig &config, const std::vector<StageSpan> &spans, int stage);
};

// One optimizer step of a stage's replicas (issue 17). Each member reads its confirmed gradient
// sum (unconfirmed answers cancelled), scales it by members / M, and the group averages with
// ButterflyAllReduce (8-bit with error feedback, a plain mean: replicas that served more
// microbatches weigh more, as they should), so the result is the mean gradient over the step's
// microbatches; every member takes the same AdamW step with it and reports its parameters' hash,
// which the replicas compare. Each range has a second owner that recomputes its average and, with
// three replicas or more, a referee, as in full-model rounds: a range whose checker disagrees is
// applied as the referee rules (a lying owner's redone from the same pieces), or skipped by every
// member without a ruling, so a liar never puts its numbers into the stage. Lives on the
// transport's thread; the stage's work runs on its StageWorker.
class StageOptimizer : public QObject {
    Q_OBJECT

public:
    StageOptimizer(PeerTransport &transport, const QString &selfKeyId, StageWorker &stage, QObject *parent = nullptr);

    // Starts the step; stepFinished says how it ended. Fails at once on a plan that cannot be
    // run (no microbatches, a step already running).
    Result<void> start(const StageStepPlan &plan);
    bool running() const { return m_running; }
    // The swarm's next all-reduce round for this stage, as the coordinator says: a replica that
    // sat steps out holds its group's early frames of that round instead of refusing them.
    void expectRound(quint64 round) { m_allReduce.expectRound(round); }
    const AllReduceOutcome &lastOutcome() const { return m_allReduce.outcome(); }
    // The last step was not applied because its all-reduce lacked a vanished member's work.
    bool lastStepIncomplete() const { return m_incomplete; }
    // The adversary tests' hostile peer only (a lying range owner); release code never sets it.
    void setMisbehaviour(Misbehaviour misbehaviour) { m_misbehaviour = std::move(misbehaviour); }

Q_SIGNALS:
    // `applied`: the stage stepped, and `hash` is its parameters'; otherwise `why` says why not.
    void stepFinished(quint64 round, bool applied, const QString &hash, const QString &why);

private:
    void onAllReduced(quint64 round);
    void finish(bool applied, const QString &hash, const QString &why);

    StageWorker &m_stage;
    ButterflyAllReduce m_allReduce;
    StageStepPlan m_plan;
    std::vector<std::pair<std::string, std::int64_t>> m_layout; // the stage's parameters, in order
    bool m_running = false;
    bool m_incomplete = false;
    Misbehaviour m_misbehaviour;
};

// Splits a vector of `count` values into equal ranges among the reachable members, in order.
QList<AllReduceMember> withEqualRanges(QList<AllReduceMember> members, std::int64_t count);

} // namespace swarmtrain
