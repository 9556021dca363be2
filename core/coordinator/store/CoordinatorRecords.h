#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace swarmtrain {

// What the coordinator knows about one peer; keyed by its key id (Identity::keyIdOf).
struct PeerRecord {
    QString keyId;
    QByteArray publicKey;   // raw 32 bytes
    QByteArray deviceJson;  // the device report as the peer sent it (compact JSON)
    QString endpoint;       // "host:port" of its data plane, empty when outbound-only
    bool reachable = false; // the coordinator could open a TCP connection to `endpoint`
    QString clientVersion;
    qint64 ordinal = 0; // join order, for spreading peers over the shards
    QStringList assignedShards;
    qint64 joinedMs = 0;
    qint64 lastSeenMs = 0;
    QString state = QStringLiteral("idle"); // training | paused | ready | idle
    QString pauseReason;
    double tokensPerSecond = 0;
    qint64 baseRound = -1; // the global state the peer holds
    qint64 innerSteps = 0; // the inner steps it says it trained on baseRound (a time-budgeted swarm)
    qint64 rejectedRequests = 0;
    double credit = 0;
    qint64 tokens = 0; // tokens of accepted contributions
    QString address;        // the IP address it joined from (identities per address are limited)
    qint64 offences = 0;    // claims and requests refused as dishonest (DESIGN.md, "Security model")
    QString bannedReason;   // not empty: banned, and why
    qint64 acceptedRounds = 0; // rounds whose result it agreed with; past probation at enough of them
    qint64 verifiedRounds = 0; // rounds whose work a spot check recomputed and found honest
    // The owners left its pieces out of their averages: on probation, uncredited, until a spot
    // check agrees with one of its rounds (whatever --probation-rounds and the check rates say).
    bool quarantined = false;
    // The name its latest join gave for the leaderboard ("" for none); validated at decoding,
    // never unique and never used to find a peer.
    QString displayName;

    bool banned() const { return !bannedReason.isEmpty(); }
};

// What one peer earned in a pipeline step: its stage's share of the tokens it served.
struct StepCredit {
    QString keyId;
    double credit = 0.0;
    qint64 tokens = 0;
};

// A member of a running round and the part of the flat parameter vector it owns in the
// all-reduce; outbound-only members own nothing (begin == end).
struct RoundMember {
    QString keyId;
    bool reachable = false;
    qint64 begin = 0;
    qint64 end = 0;
    // On probation while established members take part: its pieces are checked and its work
    // credited, but the owners leave them out of the average.
    bool probation = false;
    // A time-budgeted round: the inner steps admitted for it, which weigh its piece in the
    // averages and its credit (0: a fixed-H round's equal share).
    qint64 steps = 0;
    // An asynchronous round: the rounds since the state it trained on (0: this round's).
    qint64 staleness = 0;
};

enum class RoundState { Gathering, Running, Done };
QString roundStateName(RoundState state);
std::optional<RoundState> roundStateFromName(const QString &name);

// Round `number` turns global state `number` into `number + 1`. A round that ends without an
// agreed result is gathered again with the next attempt number.
struct RoundRecord {
    qint64 number = 0;
    int attempt = 0;
    RoundState state = RoundState::Gathering;
    qint64 gatheringSinceMs = 0;
    qint64 startedMs = 0;
    qint64 deadlineMs = 0;
    qint64 finishedMs = 0;
    std::vector<RoundMember> members;
    QString agreedHash;
    QString uploaderKeyId; // the accepted member asked to upload state number + 1
    // An asynchronous round: its members' share of the work the swarm does in a budget (their
    // admitted steps over those and the steps the peers still training will bring), which
    // scales the round's update, so that a round of a few members moves the state that much.
    // 1 in other rounds.
    double share = 1.0;
    // How far the round moves the inner learning-rate schedule (the state's schedule step): the
    // swarm's tokens of the round in steps of one of its peers (the members and those still
    // training), set when it starts; H in a fixed-H round. 0: H (a round from before).
    qint64 scheduleAdvance = 0;
    std::optional<double> validationLoss; // of state number + 1
    // The random seed that draws the attempt's range checkers and referees (rangeCheckers()),
    // drawn when it starts, after its members are fixed. 0: a round from before (the rotation).
    quint64 checkSeed = 0;
    // The stored row's revision, as read (0: a round never stored). A write names the revision
    // it replaces, so that of two coordinator instances moving the same round one fails.
    qint64 revision = 0;
};

struct ContributionRecord {
    qint64 round = 0;
    int attempt = 0;
    QString keyId;
    qint64 tokens = 0;
    double flops = 0;
    double seconds = 0;
    double loss = 0;
    QString paramsHash;
    qint64 bytesUp = 0;
    qint64 bytesDown = 0;
    std::optional<bool> accepted; // unset while the round is open
    double credit = 0;
    qint64 receivedMs = 0;
};

// A member's commitment to one piece of its round's update: the SHA-256 (hex) of the encoded
// piece it sends to the owner `ownerKeyId` (issue 16).
struct CommitmentRecord {
    qint64 round = 0;
    int attempt = 0;
    QString keyId;
    QString ownerKeyId;
    QString sha256;
};

// A range average a member says it applied in a round (issue 16): its range's begin and the
// SHA-256 (hex) of the encoded average. What owners and checkers report fixes which averages
// the coordinator recomputes the next state from.
struct AverageReportRecord {
    qint64 round = 0;
    int attempt = 0;
    QString keyId;
    qint64 begin = 0;
    QString sha256;
};

// What a range owner said about a sender's piece: "refused" (not what it committed to, or
// malformed) or "left_out" (of the robust average); what range partners said of each other
// ("disputed"); and the coordinator's ruling on an owner's evidence ("evidence_upheld",
// "evidence_refuted", reporter and sender the owner, `detail` the SHA-256 of its average).
struct UpdateReportRecord {
    qint64 round = 0;
    int attempt = 0;
    QString reporterKeyId;
    QString senderKeyId;
    QString kind;
    QString detail;
};

// A spot check of one member's work in one round: another peer recomputes it (issue 16).
enum class SpotCheckState { AwaitingUpdate, Checking, Agreed, Refuted, Expired };
QString spotCheckStateName(SpotCheckState state);
std::optional<SpotCheckState> spotCheckStateFromName(const QString &name);

struct SpotCheckRecord {
    qint64 round = 0;
    int attempt = 0;
    QString memberKeyId;
    QString verifierKeyId;
    SpotCheckState state = SpotCheckState::AwaitingUpdate;
    qint64 assignedMs = 0;
    QString updateFile; // inside STATE/updates; empty until the member sent its update
    QString updateSha256;
    std::optional<double> cosine;
    std::optional<double> relativeNorm;
    qint64 finishedMs = 0;
    QString detail; // why it was refuted or expired

    bool open() const { return state == SpotCheckState::AwaitingUpdate || state == SpotCheckState::Checking; }
};

// A link one peer measured to another over the data plane (issue 15), blended with the ones
// before it.
struct LinkRecord {
    QString fromKeyId;
    QString toKeyId;
    double rttMs = 0.0;
    double bytesPerSecond = 0.0;
    qint64 measuredMs = 0;
};

// A global state file the coordinator holds and serves.
struct CheckpointRecord {
    qint64 round = 0;
    QString fileName; // inside STATE/checkpoints
    QString sha256;   // hex, of the whole file
    qint64 bytes = 0;
    QString parametersHash;
    std::optional<double> validationLoss;
};

} // namespace swarmtrain
