#pragma once

#include "CenteredClip.h"
#include "Frame.h"
#include "Misbehaviour.h"
#include "Result.h"
#include "StalenessWeight.h"
#include "StateRecompute.h"
#include "VerificationMessages.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace swarmtrain {

class PeerTransport;

// A member of a round as the coordinator announced it. Reachable members own a range of the
// flat parameter vector; outbound-only members own none and only dial out.
struct AllReduceMember {
    QString keyId;
    QString endpoint; // "host:port" of its data plane; empty when it accepts no connections
    std::int64_t begin = 0;
    std::int64_t end = 0; // [begin, end); empty when it owns nothing
    bool probation = false; // its pieces are checked but left out of the average
    // How much its piece counts in an owner's average: the inner steps the coordinator admitted
    // for it in a time-budgeted round, never the sender's own claim (1 for every member else).
    double weight = 1.0;
    // An asynchronous round: the rounds since the state it trained on, which scale its piece
    // down by stalenessWeight (from the coordinator's round, never the sender's word).
    std::int64_t staleness = 0;
};

struct AllReduceOptions {
    int timeoutMs = 60'000;     // the round's deadline, from start()
    // An asynchronous round: its members' share of the swarm's work, which scales every average
    // (the coordinator's RoundAnswer::share).
    double share = 1.0;
    double ownerWaitShare = 0.6; // an owner averages what it has after this share of the timeout
    double maxUpdateRms = 1.0;   // a piece whose root-mean-square is larger is rejected
    // A piece of all zeros is a freeloader's in full-model rounds; in a pipeline stage's step a
    // member may hold no gradient for a range (none of its own there, or no microbatch served).
    bool refuseZeroPieces = true;
    Aggregation aggregation = Aggregation::CenteredClip; // how an owner combines its pieces
    CenteredClipOptions clip;
    Misbehaviour misbehaviour; // the adversary tests' hostile client only; none by default
    // The SHA-256 (hex) each sender committed to for its piece of this peer's range (what the
    // coordinator collected); a piece without one is left out, one that differs is refused.
    // Unset: pieces are not checked (a coordinator without commitments).
    std::optional<QHash<QString, QByteArray>> commitments;
    // Each range has a second owner, its checker (RangeCheckers.h): members send it the same
    // pieces, it recomputes the owner's average and every member applies a range only when its
    // checker agrees, or, where it does not, the average the range's referee says holds.
    // `checkedCommitments` are the commitments to the range this peer checks, and
    // `refereedCommitments` to the one it referees.
    bool rangeChecks = true;
    // The seed the round's checkers and referees are drawn from (the coordinator's, with the
    // commitments; rangeCheckers()). 0: they rotate by `rotation`, the round's turn (0: the
    // round's number); a pipeline step that runs its all-reduce again keeps its step's turn.
    quint64 checkSeed = 0;
    quint64 rotation = 0;
    std::optional<QHash<QString, QByteArray>> checkedCommitments;
    std::optional<QHash<QString, QByteArray>> refereedCommitments;
    // The range's referee checks every average too, not only a disputed one (where the
    // coordinator rules on disputed ranges, RangeRulings.h): members send it their pieces as
    // well, it rules on each range it referees, and a range is applied only when its checker
    // agrees and its referee rules for the very average that came. A coalition then decides its
    // own range only where it is both the range's checker and its referee. Members switch it on
    // where the coordinator says (CommitmentsAnswer::refereeChecks). A referee that has gone, or
    // committed to nothing, holds nothing up.
    bool refereeChecks = false;
    // The coordinator may audit this peer's range (CommitmentsAnswer::rangeAudits): it keeps the
    // evidence of its range (AllReduceOutcome::evidence) whether or not its checker agreed.
    bool keepEvidence = false;
    // Members that committed to nothing by the time the commitments closed (a stalling
    // stranger): nothing of theirs is waited for, as if they had gone.
    QStringList uncommitted;
};

// A range whose checker did not agree with its owner's average, as it reached this member: its
// owner and the owner's average as it came (empty when none came). Settled by the coordinator's
// ruling where it rules (RangeRulings.h).
struct DisputedRange {
    QString owner;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    QByteArray ownerAverage;
};

// This peer's verdict on the range it checked, as it told the members: named to the coordinator
// before the round's audit is drawn (AverageClaim).
struct CheckVerdict {
    QString owner;
    QString averageSha256; // hex, of the average checked
    QStringList contributors; // the pieces it was recomputed from, as the owner named them
    bool agrees = false;
};

struct AllReduceOutcome {
    std::vector<float> average; // the (robust) mean pseudo-gradient; zeros where skipped
    std::vector<std::pair<std::int64_t, std::int64_t>> skippedRanges; // owners that failed
    // Ranges whose owner's average did not hold up, applied as its checker averaged them.
    std::vector<std::pair<std::int64_t, std::int64_t>> redoneRanges;
    // Pieces refused (bad size, NaN/Inf, outlandish norm) and senders of early frames refused
    // since the last round (too far ahead, over the budget).
    QStringList rejectedSenders;
    QStringList clippedSenders;   // pieces of this peer's range that CenteredClip cut down or left out
    QStringList leftOutSenders;   // ...of them, those left out of the average altogether
    QStringList uncommittedSenders; // pieces left out because their sender committed to none
    // Range partners this peer disagreed with: the checker of its own range that did not agree
    // (or said nothing), the owner of the range it checks whose average it could not reproduce,
    // and, as a referee, whichever of the two disputing partners' averages did not hold up.
    QStringList disputed;
    int ownPieceContributors = 0; // members in the average of this peer's own range
    QByteArray sentUpdate; // the encoded pieces this peer sent, in range order (for a spot check)
    // The range averages applied (not skipped), in range order, their payloads as they came:
    // what the coordinator recomputes the next state from (issue 16).
    std::vector<RangeAverage> appliedAverages;
    // Members whose piece some range's average lacks (by the contributors its owner named), and
    // owners whose average never came: whose work the round's average is missing.
    QStringList missingWork;
    // This peer's range, its average and the pieces it averaged, when its checker did not agree
    // with it or the coordinator may audit it (AllReduceOptions::keepEvidence): for the coordinator
    // to rule on (OwnerEvidence.h). Round and attempt left to the caller.
    std::optional<RangeEvidence> evidence;
    // The verdict this peer gave as a checker, if it gave one; and as a referee, with
    // refereeChecks (agrees: it confirmed the owner's average).
    std::optional<CheckVerdict> checkVerdict;
    std::optional<CheckVerdict> refereeVerdict;
    // The range this peer averaged as the checker of an owner that committed to nothing, and the
    // evidence of it (ButterflyStandIn.cpp), for the coordinator's audit of that range.
    struct StandIn {
        QString owner;
        RangeEvidence evidence;
    };
    std::optional<StandIn> standIn;
    // The ranges whose checker did not agree, this peer's own among them (settled as the referee
    // ruled until settleDisputedRanges() settles them by the coordinator's rulings).
    std::vector<DisputedRange> disputedRanges;
    // Ranges applied without a verdict because their checker committed to nothing (a stalling
    // stranger), where the coordinator may audit them (AllReduceOptions::keepEvidence): no checker
    // vouched, so the audit always draws them, and each stays only where its ruling upholds it
    // (skipUnauditedRanges(), settleAuditedRanges()). Skipping them cost a stalled round two ranges.
    std::vector<DisputedRange> uncheckedRanges;
};

// DESIGN.md's butterfly all-reduce of pseudo-gradients. Every member sends each owner that
// owner's range of its pseudo-gradient, 8-bit quantized with error feedback (what quantization
// drops is added to the next round's values); each owner aggregates the pieces it got with
// the weights the coordinator gave the members (equal in a fixed-H round; the token count a
// sender writes is not trusted) by CenteredClip, quantizes the result once and returns it to every member,
// using the same decoded average itself, so every member applies identical numbers. A range
// whose checker disputes its owner's average is applied as its referee rules (RangeCheckers.h);
// a range whose owner fails, or that no ruling settles, is skipped (left zero) by everyone;
// pieces that arrive late are left out of the average. Runs on the transport's thread.
class ButterflyAllReduce : public QObject {
    Q_OBJECT

public:
    // `transport` must outlive this object; `selfKeyId` is this peer's key id.
    ButterflyAllReduce(PeerTransport &transport, QString selfKeyId, QObject *parent = nullptr);

    // Compresses this peer's pieces of round `round` (error feedback applied) and returns the
    // SHA-256 (hex) of each, by owner: what the member commits to before start(round) sends
    // exactly these. Nothing is sent yet, and frames of the round are held until start().
    Result<QHash<QString, QByteArray>> prepare(quint64 round, QList<AllReduceMember> members,
                                               std::vector<float> pseudoGradient, const Misbehaviour &misbehaviour = {});
    // Starts round `round` with the pieces prepare() made for it (pass no pseudo-gradient), or
    // with `pseudoGradient`'s. Errors (an inconsistent member list, a wrong-sized vector) come
    // back at once; otherwise finished(round) is emitted once, by the deadline at the latest.
    // `tokens` (the round's scheduled work) only goes into frame headers, for older peers.
    Result<void> start(quint64 round, QList<AllReduceMember> members, std::vector<float> pseudoGradient,
                       double tokens, AllReduceOptions options = {});
    bool running() const { return m_running; }
    // Gives up the running round without finishing it (this peer is leaving): no more dials,
    // timers or finished(); the other members skip this peer's range.
    void abort();
    // The outcome of the last finished round.
    const AllReduceOutcome &outcome() const { return m_outcome; }
    // What quantization has dropped so far (error feedback); reset when a peer resyncs.
    void resetErrorFeedback() { m_residual.clear(); }
    // The swarm's round this peer takes part in next, as the coordinator says. A peer that sat
    // rounds out (checking another's work, paused) holds that round's early frames instead of
    // refusing them as too far ahead of the last round it ran.
    void expectRound(quint64 round) { m_expectedRound = std::max(m_expectedRound, round); }
    // Payload bytes of frames held for a round that has not started here yet.
    qint64 earlyBytesHeld() const { return m_earlyBytes; }

Q_SIGNALS:
    void finished(quint64 round);

private:
    enum Tag : quint32 {
        PieceTag = 1,
        AverageTag = 2,
        VerdictTag = 3,
        PieceRequestTag = 4,
        ForwardedPieceTag = 5,
        RecomputedTag = 6, // a checker's own average of a range it does not agree with
        RulingTag = 7,     // the referee's word on which of the two holds
    };
    struct Piece {
        std::vector<float> values;
        QByteArray encoded; // as it came, for the checker of this peer's range
    };
    struct EarlyFrame {
        QString sender;
        Frame frame;
    };
    struct PendingPiece {
        const AllReduceMember *owner = nullptr; // whose range it is
        QByteArray bytes;
    };
    // A checker's word on a range, as every member gets it.
    struct Verdict {
        bool agrees = false;
        QByteArray averageHash; // SHA-256 of the encoded average it checked
    };
    // This peer as the checker of another owner's range (ButterflyRangeCheck.cpp).
    struct Check {
        const AllReduceMember *owner = nullptr;
        std::map<QString, Piece> pieces;           // of that range, by sender
        std::optional<std::vector<float>> average; // the owner's, decoded
        QByteArray averageHash;
        QStringList contributors;                  // whose pieces the owner says are in it
        bool requested = false;                    // the pieces missing here were asked of the owner
        bool done = false;                         // the verdict is out
        QByteArray recomputed;                     // this peer's own average of the range, encoded...
        std::vector<float> recomputedValues;       // ...and decoded
    };
    // A checker's own average of a range whose owner's it could not reproduce, as members get it.
    struct Recomputed {
        QByteArray payload;
        std::vector<float> values;
        QByteArray hash; // SHA-256 of the payload
    };
    // The referee's word on a disputed range: which average holds, by its hash (none: neither).
    struct Ruling {
        enum Side : char { Neither = 0, Owner = 1, Checker = 2 } side = Neither;
        QByteArray averageHash;
    };
    // This peer as the referee of another owner's range (ButterflyRangeReferee.cpp).
    struct Referee {
        const AllReduceMember *owner = nullptr;
        std::map<QString, Piece> pieces; // of that range, by sender, each as its sender committed
        // Without commitments (a stage's all-reduce): a piece one partner passed on, by sender,
        // until the other partner passes on the same bytes.
        std::map<QString, std::pair<QString, QByteArray>> unconfirmed;
        QStringList contributors;        // whose pieces the owner says are in its average
        bool requested = false;          // the pieces missing here were asked of the owner
        bool done = false;               // the ruling is out
    };

    // A tensor frame of this round's `tag` for `owner`'s range, of `bytes` 8-bit codes.
    static FrameHeader tensorHeader(quint64 round, quint32 tag, const AllReduceMember &owner, qsizetype bytes, double tokens);
    void onFrame(const QString &peerKeyId, const FrameHeader &header, const QByteArray &payload);
    // Keeps a frame of a round that has not started here, if it is near and fits the budget.
    void holdEarly(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void refuseEarly(const QString &sender, const QString &why, bool disconnect);
    // Plays the held frames of this round; keeps those still ahead and within the window.
    void takeEarlyFrames();
    // The early-frame budgets for the rounds after this one, from this round's ranges.
    void setEarlyBudget();
    // `pieces` of a range of `count` values combined (robustly, unless told otherwise); with
    // `log`, which ones were clipped or left out goes into the outcome.
    Result<std::vector<float>> aggregatePieces(const std::map<QString, Piece> &pieces, std::int64_t count, bool log);
    void sendFarFutureFrames(const QString &ownerKeyId); // a hostile client's misbehaviour
    void onPeerConnected(const QString &peerKeyId);
    void sendAverage(const QString &peerKeyId);
    // Range checks (ButterflyRangeCheck.cpp): who checks whom this round, the checker's side
    // (its pieces, the owner's average, the recomputation, the verdict), the owner's answer to
    // a request for pieces, every member's verdicts, and the ranges left unchecked at the end.
    void setUpChecks();
    QByteArray memberBitmap(const QStringList &keyIds) const;
    std::optional<QStringList> membersIn(const std::string &bitmap) const;
    void handleCheckPiece(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void takeCheckedAverage(const FrameHeader &header, const QByteArray &payload, std::vector<float> values);
    void tryCheck();
    void giveVerdict(bool agrees, const QString &why);
    // Quantizes this peer's own average of the range it checks into m_check.recomputed (encoded)
    // and m_check.recomputedValues (decoded, as members would apply it).
    Result<void> keepRecomputed(const Result<std::vector<float>> &average);
    void sendVerdict(const QString &peerKeyId);
    void handleVerdict(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void handlePieceRequest(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    bool verdictsPending() const;
    void skipUncheckedRanges();
    // Disputed ranges (ButterflyRangeReferee.cpp): the checker's recomputed average and the
    // pieces it sends on, the referee's side (pieces, recomputation, ruling), every member's
    // rulings, and the average a ruling settles a range on.
    void sendRecomputed(const QString &peerKeyId);
    void forwardPiecesToReferee();
    void handleRecomputed(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void handleRefereePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    // A member's own piece of the range this peer referees, with refereeChecks; false when the
    // frame is not one (it is another range's).
    bool takeRefereePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    // Whether this peer, as a referee, has something to rule on and has not ruled yet.
    bool refereeAwaitsPieces() const;
    // With refereeChecks, whether `owner`'s range has no referee, or its referee ruled for the
    // very average that came here.
    bool refereeConfirms(const QString &owner) const;
    // Whether `owner`'s referee has a say in its range: with refereeChecks, one that ruled or is
    // still here. One that went, or committed to nothing, holds nothing up: the checker's verdict
    // and the coordinator's audit decide as without referee checks. (Skipping the range instead
    // made members that saw a connection drop that others did not decide differently: beside two
    // busy loops, a three-owner swarm's replicas parted in round 1.)
    bool refereeChecking(const QString &owner) const;
    void tryReferee();
    void giveRuling(Ruling::Side side, const QString &why);
    void sendRuling(const QString &peerKeyId);
    void handleRuling(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    bool rulingsPending() const;
    // Applies what the referee ruled for `owner`'s disputed range, if its ruling names an
    // average that came here; false when the range must be skipped.
    bool applyRuling(const QString &owner);
    // The ranges not skipped, with the averages that came for them (ButterflyRangeCheck.cpp).
    std::vector<RangeAverage> appliedAverages() const;
    void handlePiece(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    void handleAverage(const QString &sender, const FrameHeader &header, const QByteArray &payload);
    // The checker of an owner that committed to nothing (a stalling stranger), where the
    // coordinator audits ranges, averages that range in the owner's place from the pieces it got
    // as its checker and sends the average to every member; the audit always rules on it
    // (ButterflyStandIn.cpp). Without it, every round a stranger stalls lost its range.
    bool standsIn() const; // this peer, for the range it checks
    bool awaitsStandIn(const QString &owner) const; // ...some peer, for `owner`'s range, not done yet
    // The member whose range an average from `sender` is for: its own, or the one it stands in for.
    const AllReduceMember *averagedRange(const QString &sender, const FrameHeader &header) const;
    bool standInPiecesIn() const;
    void standInAverage();
    void sendStandInAverage(const QString &peerKeyId);
    void keepStandInEvidence(); // in the outcome, with the evidence of this peer's own range
    // Why `members` (sorted by key) cannot run a round over `count` parameters, if they cannot.
    Result<void> checkMembers(const QList<AllReduceMember> &members, std::int64_t count) const;
    // Quantizes each owner's piece of the pseudo-gradient with error feedback; encoded, by owner.
    Result<QHash<QString, QByteArray>> compressPieces(const QList<AllReduceMember> &members,
                                                      const std::vector<float> &pseudoGradient);
    // The prepared pieces become the round's: queued for their owners, this peer's own taken.
    Result<void> takePieces(QHash<QString, QByteArray> pieces);
    // Dials and sends the pieces, starts the timers and takes the frames that came early.
    void sendPieces();
    void sendPending(const QString &peerKeyId);
    bool dials(const QString &ownerKeyId) const; // this peer opens the connection to that owner
    void dial(const QString &ownerKeyId);
    void onConnectionFailed(const QString &peerKeyId);
    // A member disconnected mid-round, or could not be reached: its piece and its average are
    // not waited for (its range is skipped, as at the deadline).
    void onDeparted(const QString &peerKeyId);
    bool allPiecesIn() const; // from every member that has not gone
    void rejectPiece(const QString &sender, const std::string &why);
    // Averages the pieces of this peer's range and returns the average to their senders.
    void averageOwnRange();
    void finishIfDone();
    void finish();
    // The evidence of this peer's range, when its checker did not agree with its average or the
    // coordinator may audit it.
    void keepEvidence();
    void findMissingWork();
    const AllReduceMember *member(const QString &keyId) const;
    // Calls `send(keyId)` for every other member this peer is connected to.
    void toConnectedMembers(const std::function<void(const QString &)> &send) const;
    // A piece's or an average's values: 8-bit codes of `count` values, finite, of a sane norm.
    Result<std::vector<float>> decodeValues(const FrameHeader &header, const QByteArray &payload, std::int64_t count) const;
    // ...or nothing, and the sender counted as refused.
    std::optional<std::vector<float>> decodePiece(const QString &sender, const FrameHeader &header,
                                                   const QByteArray &payload, std::int64_t count);

    // Frames of rounds that have not started here: only of the next round (a member that
    // started it a moment before us), at most a piece and an average per sender, and bytes
    // within what a round can bring; before this peer's first round (ranges unknown) a fixed
    // budget (ButterflyEarlyFrames.cpp).
    static constexpr quint64 kEarlyRoundWindow = 1;
    // Three pieces (its owner's, its checker's and, with refereeChecks, its referee's), an
    // average, a verdict, a recomputed average and a ruling.
    static constexpr int kMaxEarlyFramesPerSender = 7;
    static constexpr qint64 kFirstRoundEarlyBudget = 16ll << 20;
    static constexpr qint64 kMinEarlyBudgetPerSender = 64ll << 10;

    // Pieces made by prepare() for a round not started yet.
    struct Prepared {
        quint64 round = 0;
        std::int64_t count = 0;
        QList<AllReduceMember> members; // sorted by key id
        QHash<QString, QByteArray> pieces;
    };

    PeerTransport &m_transport;
    QString m_self;
    AllReduceOptions m_options;
    bool m_running = false;
    quint64 m_round = 0;
    double m_tokens = 0.0; // written in headers for older peers; owners weigh every member alike
    QList<AllReduceMember> m_members;
    std::vector<float> m_residual;
    std::int64_t m_count = 0;
    const AllReduceMember *m_own = nullptr;
    std::map<QString, Piece> m_pieces;          // for this peer's range, by sender (ordered)
    bool m_ownAveraged = false;
    QHash<QString, QList<PendingPiece>> m_pendingPieces; // encoded pieces waiting for a connection, by peer
    QHash<QString, bool> m_rangeDone;           // by owner: its average arrived (or was skipped)
    QSet<QString> m_departed;                   // members gone this round
    QHash<QString, int> m_failedDials;
    bool m_started = false;                    // a round has started: m_round anchors the early window
    quint64 m_expectedRound = 0;               // ...or the round the coordinator said comes next, if later
    QList<EarlyFrame> m_early;                 // frames of a round that has not started here yet
    qint64 m_earlyBytes = 0;
    QHash<QString, qint64> m_earlyBytesBySender;
    qint64 m_earlyBudget = 0;                  // bytes held at most, from all senders
    qint64 m_earlyBudgetPerSender = 0;         // ...and from one
    QStringList m_earlyRefusedList;            // senders refused while no round ran
    QByteArray m_ownAverage;                    // the encoded average of this peer's range
    QHash<QString, QString> m_checkerOf;        // owner -> the checker of its range, this round
    QHash<QString, QByteArray> m_averageHashes; // owner -> SHA-256 of the average that came
    QHash<QString, QByteArray> m_averagePayloads; // owner -> the encoded average that came
    QHash<QString, QStringList> m_contributors;   // owner -> the members its average says it holds
    QHash<QString, Verdict> m_verdicts;         // owner -> its checker's verdict
    Check m_check;
    QSet<QString> m_forwardedTo;                // this peer answered their requests (its checker, its referee)
    QHash<QString, QString> m_refereeOf;        // owner -> the referee of its range, this round
    QHash<QString, Recomputed> m_recomputed;    // owner -> its checker's average, where it disagreed
    QHash<QString, Ruling> m_rulings;           // owner -> its referee's ruling
    QHash<QString, QByteArray> m_redone;        // owner -> the checker's average applied instead of its own
    Referee m_referee;
    QTimer m_refereeTimer;                      // a referee still missing pieces gives up
    QTimer m_ownerTimer;
    QTimer m_checkTimer;                        // a checker still missing pieces gives up
    QTimer m_deadline;
    AllReduceOutcome m_outcome;
    std::optional<Prepared> m_prepared;
};

} // namespace swarmtrain
