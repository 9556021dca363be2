#pragma once

#include "DisplayName.h"
#include "ModelConfig.h"
#include "PipelineMessages.h"
#include "Result.h"
#include "ShardInfo.h"
#include "TrainingSettings.h"
#include "VerificationMessages.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// The control plane's messages (DESIGN.md, "Swarm protocol"), each defined once with its JSON
// codec and its bounds, for the coordinator and the client alike. fromJson() checks every field
// and names the first one out of bounds; toJson() writes what fromJson() reads.
namespace swarmtrain {

namespace protocol {
constexpr qsizetype kMaxKeyIdChars = 64;
constexpr qsizetype kMaxEndpointChars = 300; // a DNS name, a colon and a port
constexpr qsizetype kMaxClientVersionChars = 100;
constexpr qsizetype kMaxReasonChars = 200;
constexpr qsizetype kMaxShards = 1 << 20;
// Token ids of any tokenizer: below every Unicode code point's count and SentencePiece's 2^20 pieces.
constexpr qint64 kMaxVocabulary = 1 << 21;
constexpr qsizetype kMaxMembers = 100'000;
constexpr qsizetype kMaxListedRounds = 1 << 20;
constexpr qsizetype kMaxLeaderboard = 1000;
constexpr int kPublicKeyBytes = 32; // Ed25519
constexpr qsizetype kMaxGpus = 16;
constexpr qsizetype kMaxLinkReports = 64;
constexpr qsizetype kMaxProbePeers = 32;
constexpr qsizetype kMaxListedEstimates = 1024;
constexpr qsizetype kMaxInviteChars = 128;
constexpr qsizetype kMaxAppliedAverages = 4096; // a round's ranges (RangeAverageBlob.h's bound)
} // namespace protocol

// The global state the coordinator serves at /v1/checkpoint (and answers an upload with).
struct CheckpointInfo {
    qint64 round = 0;
    QString sha256;
    qint64 bytes = 0;

    QJsonObject toJson() const;
    static Result<CheckpointInfo> fromJson(const QJsonObject &json);
};

struct DeviceGpu {
    QString name;
    QString vendor; // nvidia, amd, apple, ...
    qint64 memoryBytes = 0;
};

// What a peer says about its machine when it joins: claims, bounded here and checked later
// against the work it does. Every figure is 0 when not said.
struct DeviceReport {
    QString kind;       // the --device it trains on: auto, cpu, cuda[:N]; "" when not said
    int cpuThreads = 0;
    std::vector<DeviceGpu> gpus;
    qint64 trainingMemoryBytes = 0; // memory it may train in (the device budget, or RAM)
    double flopsPerSecond = 0.0;    // measured: dense matrix products in the precision it trains in
    double hostToDeviceBytesPerSecond = 0.0;
    double deviceToHostBytesPerSecond = 0.0;

    QJsonObject toJson() const;
    static Result<DeviceReport> fromJson(const QJsonObject &json);
};

// POST /v1/join
struct JoinRequest {
    QByteArray publicKey; // raw Ed25519 key
    DeviceReport device;
    QString endpoint; // "host:port", "*:port" (the address the coordinator sees) or "" (outbound only)
    QString clientVersion;
    QString invite{}; // the invite link's token, for a swarm that admits by invite; "" otherwise
    // The name the person chose for the leaderboard (validateDisplayName); "" for none, as from
    // an older client that does not send it.
    QString displayName{};

    QJsonObject toJson() const;
    static Result<JoinRequest> fromJson(const QJsonObject &json);
    // Only the key, with the same bound: what a join's signature is checked against before the
    // rest of the message is decoded.
    static Result<QByteArray> publicKeyOf(const QJsonObject &json);
};

// The swarm's tokenizer in the join answer. A character vocabulary travels here; a SentencePiece
// model at GET /v1/tokenizer, which a peer refuses unless its SHA-256 is this one; every kind's
// sha256 is also in each token shard's header.
struct TokenizerInfo {
    QString kind;       // char | byte | sentencepiece
    QString vocabulary; // char: the code points in token order; "" otherwise
    QString sha256{};   // hex, Tokenizer::sha256()
    qint64 vocabSize = 0;
};

struct JoinAnswer {
    QString peerId;
    ModelConfig model;
    TokenizerInfo tokenizer;
    TrainingSettings training;
    std::vector<ShardInfo> shards;
    QStringList assignedShards;
    qint64 round = 0;
    qint64 heartbeatIntervalMs = 10'000;
    bool reachable = false;
    CheckpointInfo checkpoint; // the current global state; none (no sha256) in a pipeline swarm without one
    // A pipeline-stage swarm's settings (issue 17); unset: every peer trains a whole copy.
    std::optional<PipelineSettings> pipeline{};

    QJsonObject toJson() const;
    static Result<JoinAnswer> fromJson(const QJsonObject &json);
};

// A link this peer measured to another over the data plane.
struct LinkReport {
    QString peerId;
    double rttMs = 0.0;
    double bytesPerSecond = 0.0;
};

// POST /v1/heartbeat
struct HeartbeatRequest {
    QString state; // training | paused | ready | idle | verifying (a spot check) | left
    qint64 baseRound = 0; // the global state the peer holds
    double tokensPerSecond = 0.0;
    QString reason; // why it is paused, in the person's words
    std::vector<LinkReport> links; // measured since the last heartbeat
    // The inner steps trained on baseRound's state (a time-budgeted swarm weighs a member's
    // pseudo-gradient by them; the coordinator bounds them before it believes them).
    qint64 steps = 0;

    QJsonObject toJson() const;
    static Result<HeartbeatRequest> fromJson(const QJsonObject &json);
};

// The verdict on a peer's latest contribution, as far as it is known.
struct ContributionVerdictInfo {
    qint64 round = 0;
    std::optional<bool> accepted; // unset while the round is open
    double credit = 0.0;
    bool uploadCheckpoint = false; // the coordinator asks this peer for state round + 1
};

// A peer to exchange link probes with: measure it (when it has an endpoint) and accept its
// probes (it may dial us).
struct ProbePeerInfo {
    QString peerId;
    QByteArray publicKey; // raw
    QString endpoint;     // "" for a peer that only dials out
};

struct HeartbeatAnswer {
    qint64 round = 0;
    QString roundState; // gathering | running | done
    qint64 deadlineMs = 0;
    bool member = false; // of the running round
    qint64 checkpointRound = 0;
    std::optional<ContributionVerdictInfo> lastContribution;
    std::vector<ProbePeerInfo> probe;
    // Spot checks (VerificationMessages.h): send your update of this round; check this member.
    std::optional<qint64> uploadUpdateRound;
    std::optional<SpotCheckTask> spotCheck;
    qint64 budgetMs = 0; // a time-budgeted swarm: the round's compute budget (0: fixed H)
    // At the speed it reports, this peer cannot fit the round's minimum steps into the budget:
    // it sits rounds out and checks other peers' work instead (sent only when true).
    bool straggler = false;

    QJsonObject toJson() const;
    static Result<HeartbeatAnswer> fromJson(const QJsonObject &json);
};

// GET /v1/round
struct RoundMemberInfo {
    QString peerId;
    QByteArray publicKey; // raw; empty when the coordinator no longer knows the peer
    QString endpoint;
    bool reachable = false;
    qint64 begin = 0; // the range of the flat parameter vector it owns
    qint64 end = 0;
    bool probation = false; // its pieces are left out of the average (sent only when true)
    // A time-budgeted round: the inner steps its pseudo-gradient holds, which weigh it in the
    // average (0: an equal share, as in a fixed-H round).
    qint64 steps = 0;
    // An asynchronous round: the rounds since the state it trained on (round - staleness), which
    // scale its pseudo-gradient down (stalenessWeight); 0: it trained on this round's state.
    qint64 staleness = 0;
};

struct RoundAnswer {
    qint64 round = 0;
    int attempt = 0;
    QString state;
    qint64 deadlineMs = 0;
    qint64 parameterCount = 0;
    std::vector<RoundMemberInfo> members;
    // An asynchronous round: its members' share of the swarm's work in a budget, which scales
    // the round's averages (0 < share <= 1; absent: 1).
    double share = 1.0;
    // How far applying the round moves the inner learning-rate schedule (RoundRecord's); 0: H.
    qint64 scheduleAdvance = 0;

    QJsonObject toJson() const;
    static Result<RoundAnswer> fromJson(const QJsonObject &json);
};

// A range average a member applied in a round: where its range begins and the SHA-256 (hex) of
// the encoded average (issue 16: the coordinator recomputes the new state from these).
struct AppliedAverage {
    qint64 begin = 0;
    QString sha256;

    bool operator==(const AppliedAverage &) const = default;
};

// POST /v1/contribution
struct ContributionRequest {
    qint64 round = 0;
    qint64 tokens = 0;
    double flops = 0.0;
    double seconds = 0.0;
    double loss = 0.0;
    QString paramsHash; // hex SHA-256 of the parameters after the outer step
    qint64 bytesUp = 0;
    qint64 bytesDown = 0;
    // Members whose pieces this peer, as a range owner, refused (not what they committed to,
    // malformed, NaN, outlandish norm, early frames out of bounds) or left out of its robust
    // average; the coordinator counts the first against them, puts the second back on probation,
    // and credits neither with the round.
    QStringList refused{};
    QStringList leftOut{};
    // Its range partners of the round (rangeCheckers()) it disagrees with: its checker, which
    // disagreed with its average or sent no verdict, or the owner it checks, whose average it
    // could not reproduce. A member disputed by more partners than any of theirs is the liar.
    QStringList disputed{};
    // The range averages it applied, in range order (skipped ranges left out); absent from an
    // older client's report, which reads as none.
    std::vector<AppliedAverage> averages{};

    QJsonObject toJson() const;
    static Result<ContributionRequest> fromJson(const QJsonObject &json);
};

struct ContributionAnswer {
    std::optional<bool> accepted;
    double credit = 0.0;
    bool uploadCheckpoint = false;
    qint64 uploadRound = 0;

    QJsonObject toJson() const;
    static Result<ContributionAnswer> fromJson(const QJsonObject &json);
};

// GET /v1/status: public.
struct StatusAnswer {
    struct LossPoint {
        qint64 round = 0;
        double validationLoss = 0.0;
    };
    struct Leader {
        QString peerId; // the key: names are neither unique nor proof of anything
        double credit = 0.0;
        qint64 tokens = 0;
        QString displayName{}; // "" when the peer chose none
    };
    qint64 round = 0;
    QString roundState;
    qint64 peers = 0; // online
    qint64 peersTotal = 0;
    qint64 checkpointRound = 0;
    ModelConfig model;
    qint64 parameterCount = 0;   // the model's; 0 from a coordinator that does not say
    double tokensPerSecond = 0.0; // the online peers' training speeds, as their heartbeats report
    std::vector<LossPoint> validationLossHistory;
    // Tokens per UTF-8 byte of the validation text (0: not said, an older coordinator): a loss in
    // nats per token times this / ln 2 is bits per byte, which compares across tokenizers.
    double validationTokensPerByte = 0.0;
    // Bits per byte of a validation loss of this swarm; 0 when the swarm does not say.
    double bitsPerByte(double validationLoss) const;
    std::vector<Leader> leaderboard;
    std::optional<PipelineStatus> pipeline{}; // a pipeline-stage swarm's stages and steps

    QJsonObject toJson() const;
    static Result<StatusAnswer> fromJson(const QJsonObject &json);
};

// GET /v1/schedule: public. How the scheduler would place the online peers on a pipeline grid
// (issue 15), from their measured devices and links, and what that costs.
struct ScheduleAnswer {
    QString state; // scheduled | waiting (too few peers, or not computed yet)
    qint64 computedMs = 0;
    qint64 peers = 0;
    qint64 linksMeasured = 0;  // directed links with a measurement
    qint64 linksEstimated = 0; // the others, estimated
    QStringList estimatedLinks; // which: "FROM>TO" peer ids, the first kMaxListedEstimates
    int pipelineStages = 0;
    int dataParallel = 0;
    std::vector<QStringList> stages;    // peer ids of each stage, first stage first
    std::vector<QStringList> pipelines; // peer ids along each pipeline: who feeds whom
    QStringList spares;
    double dataParallelSeconds = 0.0;
    double pipelineSeconds = 0.0; // one way; the total counts it twice
    double computeSeconds = 0.0;
    double totalSeconds = 0.0;
    QString why;
    int movedPeers = 0;  // peers this schedule moved to another stage (a repair of the last)
    int placedPeers = 0; // newcomers it put into a stage

    QJsonObject toJson() const;
    static Result<ScheduleAnswer> fromJson(const QJsonObject &json);
};

} // namespace swarmtrain
