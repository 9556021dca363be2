#pragma once

#include "ActivationWire.h"
#include "PipelineDriver.h"
#include "Result.h"
#include "StageOptimizer.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QString>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace swarmtrain {

class Identity;
class NetworkThread;
class PeerTransport;
class PipelineStage;
class StageEvaluator;
class StageServer;

// What a pipeline peer's network side has done, read by the worker between its requests.
struct PipelinePlaneState {
    int stage = -1;          // the stage it holds; -1: none
    QString hash;            // that stage's parameters' hash; "" while unknown
    qint64 stateSteps = 0;   // optimizer steps the state went through
    int done = 0;            // trainers: microbatches of the step finished...
    int failed = 0;          // ...and given up
    double lossSum = 0.0;    // ...their losses' sum
    int inFlight = 0;        // trainers: the open step's microbatches not finished yet
    std::optional<std::pair<bool, QString>> stepOutcome;   // the last step: applied + hash, or why not
    QStringList stepDisputed; // the last step's range partners this peer disagreed with
    bool stepIncomplete = false; // the last step's all-reduce lacked a vanished member's work
    int stepCounted = 0;     // the microbatches the last step counted at this peer
    std::optional<std::pair<bool, QString>> resyncOutcome; // the last resync: hash, or why not
    std::optional<std::pair<bool, double>> evalOutcome;    // the last validation: loss, or failed
    qint64 served = 0;       // microbatches computed, since the start
    // Trainers: stage peers whose answers the driver's cross-checks caught wrong, not yet
    // reported (PipelinePlane::takeWrongAnswerers).
    QStringList wrongAnswerers;
    double busySeconds = 0.0;
    qint64 bytesSent = 0;
    qint64 bytesReceived = 0;
};

// A pipeline peer's side of the data plane (issue 17), on a network thread of its own as the
// full-model DataPlane is: the PeerTransport, the stage it serves (StageServer, on its own
// thread) and its optimizer step (StageOptimizer); for a trainer (stage 0), the PipelineDriver
// that takes its microbatches through the other stages and the evaluator of validation batches.
// Driven by blocking calls from the worker's thread.
class PipelinePlane {
public:
    explicit PipelinePlane(const Identity &identity);
    ~PipelinePlane();
    PipelinePlane(const PipelinePlane &) = delete;
    PipelinePlane &operator=(const PipelinePlane &) = delete;

    Result<quint16> listen(const QHostAddress &address, quint16 port);
    // The placed peers' public keys, by key id: the only peers a handshake accepts.
    void setKnownPeers(const QHash<QString, QByteArray> &publicKeys);

    // Serves `stage` from now on (a fresh one, or the first): the old stage's work is dropped.
    Result<void> setStage(int index, std::unique_ptr<PipelineStage> stage, int stageCount, WirePrecision precision,
                          int maxBatch);
    // Serves nothing any more (paused): the stage and its work are dropped.
    void clearStage();
    // The adversary tests' hostile client only (its stage's all-reduce); release code never sets it.
    void setMisbehaviour(Misbehaviour misbehaviour) { m_misbehaviour = std::move(misbehaviour); }
    // The swarm's share of cross-checked hops (PipelineSettings), for the driver of a trainer
    // placed from now on.
    void setCrossCheckShare(double share) { m_crossCheckShare = share; }
    // Trainers: the open step's peers of each stage 1..S-1 (key id -> endpoint).
    void setStagePeers(const std::vector<QHash<QString, QString>> &byStage);
    // Trainers: drives the step's microbatches (the counts in state() start again).
    void drive(std::vector<Microbatch> batches);
    Result<void> closeStep(std::uint64_t step);
    // Trainers: the coordinator left these members out of closed `step`; their confirmed work is
    // replayed on their stages' other peers (PipelineDriver::leaveOut).
    void leaveOut(std::uint64_t step, const QStringList &peerKeyIds);
    // Stage peers: when every trainer in `trainers` closed `step` here with the count this stage
    // holds, the step's microbatches held (their sum); work of other trainers of the step is
    // dropped then. Nothing otherwise.
    std::optional<int> readyForStep(std::uint64_t step, const QStringList &trainers);
    // The step of this peer's group; state().stepOutcome tells how it ended.
    Result<void> startStep(const StageStepPlan &plan);
    // The all-reduce round of the swarm's open step (StageOptimizer::expectRound).
    void expectRound(quint64 round);
    // Takes the stage's state from `peerKeyId` at `endpoint`; state().resyncOutcome tells how it went.
    void resyncFrom(const QString &peerKeyId, const QString &endpoint);
    // Trainers: the mean validation loss of `batches` through the open step's peers;
    // state().evalOutcome tells it.
    void evaluate(std::vector<Microbatch> batches);
    PipelinePlaneState state() const;
    // Trainers: the stage peers caught answering wrong since the last call, for the close.
    QStringList takeWrongAnswerers();
    // Trainers: which stage peer served how many of `step`'s microbatches (PipelineDriver::confirmedCounts).
    std::map<QString, int> servedBy(std::uint64_t step);
    // Trainers: the stage peers whose every answer the driver checks (PipelineDriver::setSuspects).
    void setSuspects(const QStringList &peerKeyIds);
    // The stage's parameters' hash and its state (PipelineStage::exportState), taken together;
    // none when the stage is gone or busy past `timeout`.
    std::optional<std::pair<QString, QByteArray>> exportState(std::chrono::milliseconds timeout);

private:
    void onNetworkThread(const std::function<void()> &work) const;
    void teardownStage();
    void refreshHash();

    std::unique_ptr<NetworkThread> m_thread;
    QString m_self;
    PeerTransport *m_transport = nullptr; // the rest live on m_thread too
    StageServer *m_server = nullptr;
    PipelineDriver *m_driver = nullptr;
    StageOptimizer *m_optimizer = nullptr;
    Misbehaviour m_misbehaviour;
    double m_crossCheckShare = PipelineDriverSettings{}.crossCheckShare;
    StageEvaluator *m_evaluator = nullptr;
    PipelinePlaneState m_state; // touched on m_thread only
    std::vector<QHash<QString, QString>> m_stagePeers; // trainers: the open step's, by stage
    std::set<std::uint64_t> m_driving; // trainers: the open step's microbatches not finished yet
    std::pair<std::uint64_t, QStringList> m_droppedOthersFor; // stage peers: the step and closed trainers last readied for
    mutable std::mutex m_keysMutex;
    QHash<QString, QByteArray> m_keys;
};

} // namespace swarmtrain
