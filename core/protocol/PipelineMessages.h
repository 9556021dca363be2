#pragma once

#include "Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

// The control plane of pipeline-stage mode (issue 17; DESIGN.md, "Pipeline-stage mode"): what a
// pipeline swarm trains with, and POST /v1/pipeline, which every peer of such a swarm calls about
// twice a second to learn its stage and the open step, and to report how its part of the step
// went. Bounded on reading like every control message.
namespace swarmtrain {

namespace protocol {
constexpr int kMaxPipelineStages = 64;
constexpr qsizetype kMaxPipelinePeers = 1024;
constexpr int kMaxMicrobatchesPerStep = 1 << 16;
// Stage peers a trainer's "closed" report may name as caught answering wrong.
constexpr int kMaxWrongAnswerers = 8;
constexpr int kMaxMicrobatchSize = 1024; // sequences a microbatch
// A step group's all-reduce is run at most this many times in a step: once, and again when a
// member vanished during it and took its share of the step's work along (the trainers replay
// that work on the survivors first).
constexpr int kMaxStepAttempts = 2;
constexpr qsizetype kMaxValidationSampleTokens = 1 << 16;
} // namespace protocol

// The all-reduce round of a step's attempt: each attempt its own, rising, so no frame of an
// abandoned attempt is taken for the next one's.
constexpr quint64 pipelineAllReduceRound(qint64 step, int attempt)
{
    return 2 * quint64(step) + 1 + quint64(attempt);
}

// A pipeline swarm's settings, in the join answer; absent in a full-model swarm.
struct PipelineSettings {
    int stages = 2;
    int microbatchesPerStep = 8; // the step's target batch, in microbatches, shared among the trainers
    int microbatchSize = 4;      // sequences a microbatch
    QString precision = QStringLiteral("int8"); // activations on the wire: int8 | fp16 | fp32
    int evalEvery = 10;          // trainers measure the validation loss every this many steps (0: never)
    // The share of hops a trainer also runs on a second peer of the stage to compare the answers
    // (PipelineDriver's cross-checks); 0: none. Absent (an older coordinator): 0.1.
    double crossCheckShare = 0.1;

    QJsonObject toJson() const;
    static Result<PipelineSettings> fromJson(const QJsonObject &json);
};

// POST /v1/pipeline: what the peer holds, and its report on the open step. A report is sent
// again with every request until the answer moves on (another step or phase), so a coordinator
// that restarted in between still gets it.
struct PipelineRequest {
    int stage = -1;       // the stage whose state this peer holds; -1: none yet
    qint64 stateSteps = 0; // optimizer steps that state went through
    QString hash;         // hex SHA-256 of the stage's parameters; "" with no stage
    qint64 step = -1;     // the step the report is about
    int attempt = 0;      // ...and its attempt (ready, unready, stepped, failed, incomplete)
    // "" | closed (a trainer drove its share and closed the step) | ready / unready (a stage
    // peer holds every closed trainer's count, or not) | stepped / failed (its group's step) |
    // incomplete (its group's all-reduce lacked a vanished member's work: nothing applied)
    QString report;
    // closed: microbatches done; ready: the step's microbatches it holds; stepped: microbatches
    // its step counted
    int microbatches = 0;
    int dropped = 0;      // closed: microbatches that failed
    double lossSum = 0.0; // closed: their training losses' sum
    double evalLoss = -1.0; // closed: a validation loss measured before the step; -1: none
    QString why;          // unready / failed: why
    // stepped / failed: its range partners in the group's all-reduce it disagreed with (the
    // checker of its range, the owner of the range it checks); at most two.
    QStringList disputed;
    // closed: stage peers whose answers a cross-check of this trainer's caught wrong since its
    // last close (PipelineDriver), at most kMaxWrongAnswerers.
    QStringList wrongAnswers;
    // A trainer, while the step it closed is open (with `step`, whatever the report): how many of
    // its microbatches each stage peer's answers carried to the end (the peer whose backward
    // counts at its stage), at most kMaxPipelinePeers.
    // What the coordinator credits a stage peer with (PipelineSteps): never more than the
    // trainers say it served for them, nor than it says it holds.
    std::map<QString, int> servedBy;
    qint64 served = 0;        // microbatches its stage computed since the last request
    double busySeconds = 0.0; // seconds its stage computed since the last request

    QJsonObject toJson() const;
    static Result<PipelineRequest> fromJson(const QJsonObject &json);
};

struct PipelinePeerInfo {
    QString peerId;
    QByteArray publicKey; // raw
    QString endpoint;     // "" for a peer that only dials out
    int stage = 0;
    bool member = false;  // of the open step
};

struct PipelineAnswer {
    qint64 step = 0;
    QString phase;       // waiting | training | closing | stepping
    int attempt = 0;     // closing, stepping: 1 while the groups that lost a member redo their step
    int stage = -1;      // where this peer is placed; -1: nowhere yet
    bool member = false; // of the open step
    int share = 0;       // training, a trainer: microbatches to drive
    QStringList closedTrainers; // closing, stepping: the trainers whose microbatches count
    int microbatches = 0;       // stepping: M, the step's microbatches
    QStringList leftOut;        // closing: members sitting the step out; trainers replay their work
    QStringList group;          // stepping: this peer's all-reduce group; empty: it sits the step out
    QString resyncFrom;         // take the stage's state from this peer (placed or moved here)
    // Upload the stage's state (POST /v1/pipeline/state) if its parameters' hash is this one:
    // the coordinator puts the model together for its export (issue 44).
    QString uploadState;
    // A trainer: stage peers some trainer caught answering wrong lately; check every answer of
    // theirs (at most kMaxPipelinePeers).
    QStringList suspects;
    // The latest step this peer was credited for, when the coordinator credited it: the
    // microbatches of its stage it served that the step applied, and the credit they earned.
    struct Credited {
        qint64 step = 0;
        int microbatches = 0;
        double credit = 0.0;
    };
    std::optional<Credited> credited;
    std::vector<PipelinePeerInfo> peers; // the placed peers online
    std::vector<double> stageRates;      // microbatches a second each stage can serve (0: not known)

    QJsonObject toJson() const;
    static Result<PipelineAnswer> fromJson(const QJsonObject &json);
};

// GET /v1/validation-sample: the first tokens of the swarm's held-out split, which the trainers
// of a pipeline swarm measure the validation loss on, and the UTF-8 bytes of their text (for
// bits per byte). Tokens are checked against the swarm's vocabulary.
struct ValidationSample {
    std::vector<std::int32_t> tokens;
    qint64 bytes = 0;

    QJsonObject toJson() const;
    static Result<ValidationSample> fromJson(const QJsonObject &json, qint64 vocabSize);
};

// In GET /v1/status of a pipeline swarm.
struct PipelineStatus {
    struct Stage {
        QStringList peers;
        double microbatchesPerSecond = 0.0;
    };
    struct Step {
        qint64 step = 0;
        int issued = 0;            // microbatches the trainers drove and counted
        std::vector<int> applied;  // by stage: microbatches its replicas' steps counted
        double loss = 0.0;         // mean training loss
        double evalLoss = -1.0;    // -1: none measured
        bool agreed = true;        // every stage's replicas ended with one hash
        double credit = 0.0;       // what the step's peers were credited with, all together
    };
    qint64 step = 0;
    QString phase;
    std::vector<Stage> stages;
    int bottleneck = -1; // the slowest stage; -1 while unknown
    std::vector<Step> history; // the latest steps, oldest first

    QJsonObject toJson() const;
    static Result<PipelineStatus> fromJson(const QJsonObject &json);
};

} // namespace swarmtrain
