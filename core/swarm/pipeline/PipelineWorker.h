#pragma once

#include "ControlMessages.h"
#include "PipelineDriver.h"
#include "PipelinePlane.h"
#include "Result.h"
#include "StagePartition.h"
#include "WorkStatus.h"
#include "WorkerOptions.h"

#include <QObject>

#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace swarmtrain {

class CoordinatorSession;
class Identity;
class WorkGate;

// The swarm client's loop in pipeline-stage mode (issue 17), run on the worker's thread after the
// join: it asks the coordinator (POST /v1/pipeline) about twice a second where this peer serves and
// what the open step needs, and does it on its PipelinePlane:
//  - builds its stage from the swarm's seed, or takes the stage's state from a neighbour when the
//    coordinator says so (a new, restarted, moved or disagreeing replica);
//  - as a trainer (stage 0) drives its share of each step's microbatches, cut from its data shards,
//    measures the validation loss every few steps, and closes the step;
//  - as a stage peer serves whoever asks, and says whether it holds each trainer's count;
//  - steps with its group and reports the hash.
// While paused it serves nothing: the stage is dropped (the device's memory with it) and taken
// from a neighbour again on resume.
class PipelineWorker : public QObject {
    Q_OBJECT

public:
    struct Hooks {
        std::function<void(WorkState, const QString &)> status;
        std::function<void(const WorkStatus &)> progress;
        std::function<void(const RoundReport &)> stepFinished;
        // The coordinator credited a step this peer stepped in (once a step).
        std::function<void(const PipelineAnswer::Credited &)> credited;
    };

    // `tokens`: the data shards'; `port`: where the data plane listens ("" listen address: it does not).
    PipelineWorker(const WorkerOptions &options, WorkGate &gate, CoordinatorSession &session, const Identity &identity,
                   std::vector<std::int32_t> tokens, Hooks hooks);
    ~PipelineWorker() override;

    // Listens on `port` (the one the join announced) and trains until stopped.
    Result<void> run(quint16 port);

private:
    struct Report {
        PipelineRequest request; // report fields only
        bool pending() const { return !request.report.isEmpty(); }
    };

    Result<void> setUp(quint16 port);
    Result<void> follow(const PipelineAnswer &answer);
    void train(const PipelineAnswer &answer);
    void close(const PipelineAnswer &answer);
    void step(const PipelineAnswer &answer);
    void resync(const PipelineAnswer &answer);
    // The stage's state to the coordinator, when it asks for it for the model's export.
    void uploadState(const PipelineAnswer &answer);
    Result<void> holdStage(int stage);
    std::vector<Microbatch> microbatches(const std::vector<std::int32_t> &tokens, int count, std::uint64_t step);
    void setReport(const PipelineAnswer &answer, const QString &kind);
    PipelineRequest request();
    void publish(const PipelineAnswer &answer);

    const WorkerOptions &m_options;
    WorkGate &m_gate;
    CoordinatorSession &m_session;
    const Identity &m_identity;
    Hooks m_hooks;
    PipelineSettings m_settings;
    ModelConfig m_config;
    WirePrecision m_precision = WirePrecision::Int8;
    std::vector<StageSpan> m_spans;
    std::unique_ptr<PipelinePlane> m_plane;
    std::vector<std::int32_t> m_train;
    std::vector<std::int32_t> m_validation;
    std::mt19937_64 m_rng;
    std::uint64_t m_nextId = 1;

    int m_stage = -1;         // the stage held
    qint64 m_seenStep = -1;   // the open step last seen
    qint64 m_drivenStep = -1; // trainers: the step whose microbatches went out
    qint64 m_closedStep = -1;
    qint64 m_creditedStep = -1; // the last step the coordinator's credit for was passed on
    int m_seenAttempt = 0;
    // All-reduce rounds (pipelineAllReduceRound: a step's attempt): the one whose closing this
    // peer follows, the one whose group step began here, the one the stage's optimizer expects.
    quint64 m_closingFor = 0;
    quint64 m_stepStarted = 0;
    quint64 m_expectedRound = 0;
    bool m_evaluating = false;
    double m_evalLoss = -1.0;
    // Since when this peer, closing, has seen no progress: no work served, no change in what it
    // holds. It sits the step out only after kCloseWait of that.
    std::chrono::steady_clock::time_point m_closingSince;
    qint64 m_closingServed = 0;
    std::chrono::steady_clock::time_point m_resyncAsked;
    bool m_resyncing = false;
    Report m_report;
    qint64 m_servedReported = 0;
    double m_busyReported = 0.0;
    std::chrono::steady_clock::time_point m_rateSince = std::chrono::steady_clock::now();
    int m_share = 0;
    QString m_seenPhase;  // the open step's phase last seen
    QString m_uploadedState; // the agreed hash of the last state uploaded (or tried)
    bool m_acted = false; // this poll made a report or saw a new step or phase
    int m_eagerPolls = 0;
    qint64 m_servedAt = 0; // this PC's served rate, for the dashboard
    std::chrono::steady_clock::time_point m_rateAt = std::chrono::steady_clock::now();
    double m_servedRate = 0.0;
    qint64 m_bytesSent = 0;     // the data plane's counts at the last step's report
    qint64 m_bytesReceived = 0;
};

} // namespace swarmtrain
