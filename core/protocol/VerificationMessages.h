#pragma once

#include "Result.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

// The messages of verifiable contributions (issue 16; DESIGN.md, "Security model"): a member
// commits to the pieces of its pseudo-gradient before the all-reduce, owners check what they
// receive against the commitments, and the coordinator has a random fraction of (member, round)
// pairs recomputed by another peer. Same rules as ControlMessages.h: every field bounded.
namespace swarmtrain {

namespace protocol {
constexpr qsizetype kMaxCommittedPieces = 4096; // owners in one round
constexpr qsizetype kMaxReportedPeers = 4096;
constexpr qsizetype kMaxFailureChars = 300;
} // namespace protocol

// The SHA-256 (hex) of one encoded piece and the peer at its other end: the owner it goes to in
// a commitment, the member that sent it in CommitmentsAnswer.
struct PieceHash {
    QString peerId;
    QString sha256;
};

// POST /v1/round/commit: before sending anything, a member of the running round names the
// hash of each piece it will send, by owner.
struct CommitRequest {
    qint64 round = 0;
    std::vector<PieceHash> pieces;

    QJsonObject toJson() const;
    static Result<CommitRequest> fromJson(const QJsonObject &json);
};

// GET /v1/round/commitments?round=R: the commitments to the asking owner's range, by sender,
// those to the range it checks this round as its second owner (rangeCheckers(); empty when it
// checks none) and those to the range it referees (rangeReferees(); empty when none). Complete
// once every member still online has committed.
struct CommitmentsAnswer {
    qint64 round = 0;
    bool complete = false;
    std::vector<PieceHash> pieces;
    std::vector<PieceHash> checked{};
    std::vector<PieceHash> refereed{};
    // Once the commitments closed: the round's members that committed to nothing. No one waits
    // for their pieces, averages, verdicts or rulings.
    QStringList uncommitted{};
    // The coordinator rules on disputed ranges (RangeRuling): members apply a range whose checker
    // did not agree only as it rules, not as the range's referee says.
    bool rangeRulings = false;
    // The seed the round's range checkers and referees are drawn from (rangeCheckers()), as 16
    // hex digits; 0 (absent): a coordinator from before, whose pairs rotate with the round.
    quint64 checkSeed = 0;
    // The coordinator audits a random share of the ranges each round (RangeAudit): owners name
    // their average (AverageClaim) and keep their evidence, and members settle each audited range
    // by its ruling as they do a disputed one.
    bool rangeAudits = false;
    // Each range's referee checks every average too, not only a disputed one
    // (AllReduceOptions::refereeChecks): members send it their pieces, a range is applied only
    // when its referee confirms the very average that came, and the referee names its verdict
    // (AverageClaim) as the checker does. With range rulings only.
    bool refereeChecks = false;

    QJsonObject toJson() const;
    static Result<CommitmentsAnswer> fromJson(const QJsonObject &json);
};

// POST /v1/round/average (issue 43): a range owner of the running round names the SHA-256 (hex)
// of the average it sent the members and whose pieces are in it, once, before the round's audit
// is drawn. An audited owner's evidence holds only for that average and those pieces, so an owner
// cannot wait to see whether it is audited and then choose which average to stand by.
// The range's checker names its verdict the same way (`owner`: the range it checked): the average
// it checked, the pieces it recomputed it from, and whether it agrees; so does its referee where
// referees check every average (CommitmentsAnswer::refereeChecks). The coordinator audits every
// range whose checker (or referee) did not vouch, before the draw, for the very average and
// pieces its owner named; and a checker or referee that vouched for an average the owner's
// evidence then shows far from what those pieces make is convicted with the owner
// (Verification::judgeVouches).
struct AverageClaim {
    qint64 round = 0;
    int attempt = 0;
    QString sha256;
    QStringList contributors; // the members whose pieces are in the average, as its owner named them
    QString owner{}; // a checker's (or referee's) verdict on this owner's range; empty: the sender's own average
    bool agrees = true; // a verdict: it reproduced the average from the same pieces

    QJsonObject toJson() const;
    static Result<AverageClaim> fromJson(const QJsonObject &json);
};

// GET /v1/round/audit?round=R (issue 43): the owners whose ranges the coordinator audits in the
// running round. It draws them at random once every owner that committed has named its average,
// or the time for that is up, so no owner knows before it named its average whether its range is
// audited; an owner that named none by then is audited. An audited owner sends its evidence
// (RangeEvidence) and every member applies the range only when the ruling upholds the very average
// that came (RangeRuling): a range whose checker vouched for a made-up average is caught too.
struct RangeAudit {
    qint64 round = 0;
    bool drawn = false;
    QStringList owners; // once drawn

    QJsonObject toJson() const;
    static Result<RangeAudit> fromJson(const QJsonObject &json);
};

// POST /v1/round/evidence (issue 43): a range owner whose checker did not agree with its average
// sends the coordinator what it averaged, so the coordinator rules on the range itself rather
// than on the word of the owner's partners: each piece must be the one its sender committed to,
// and the average must be what the pieces make (RangeAggregation.h). `maxPayloadBytes` bounds
// each payload (the encoded range), and there is at most one piece a member.
struct RangeEvidence {
    qint64 round = 0;
    int attempt = 0;
    qint64 begin = 0;
    qint64 end = 0;
    QByteArray average; // the 8-bit encoded average, as the members got it
    std::vector<std::pair<QString, QByteArray>> pieces; // sender, its encoded piece as it came

    QJsonObject toJson() const;
    static Result<RangeEvidence> fromJson(const QJsonObject &json, qsizetype maxPayloadBytes);
};

// Its answer: whether the average holds, and why not.
struct EvidenceRuling {
    bool upheld = false;
    QString why;

    QJsonObject toJson() const;
    static Result<EvidenceRuling> fromJson(const QJsonObject &json);
};

// GET /v1/round/ruling?round=R&owner=KEY (issue 43): the coordinator's word on a range whose
// checker did not agree with its owner. Once the owner's evidence is in, the SHA-256 (hex) of the
// average it sent is `upheld` (the committed pieces make it) or `refuted`; until then `pending`.
// A member applies the owner's average only when it is upheld and is the very one that came.
struct RangeRuling {
    enum class State { Pending, Upheld, Refuted };
    qint64 round = 0;
    QString owner;
    State state = State::Pending;
    QString averageSha256; // hex; empty while pending
    // Refuted, where the owner's pieces held: the SHA-256 of the range as the coordinator
    // recomputed it from them (GET /v1/round/redone), which members apply to an audited range.
    QString redoneSha256{};

    QJsonObject toJson() const;
    static Result<RangeRuling> fromJson(const QJsonObject &json);
};

// A spot check the coordinator gives a peer (in its heartbeat answer): re-run `peerId`'s inner
// steps of round `round` from state baseRound() with that member's shards and seed, and compare with
// the update it sent (GET /v1/round/update, once `updateReady`), whose pieces cover `ranges`.
struct SpotCheckTask {
    qint64 round = 0;
    QString peerId;
    QStringList shards;
    std::vector<std::pair<qint64, qint64>> ranges; // [begin, end) of each piece, in order
    bool updateReady = false;
    qint64 steps = 0; // a time-budgeted round: the member's inner steps to run again (0: H)
    // An asynchronous round: the member trained on state round - staleness, not `round`.
    qint64 staleness = 0;

    qint64 baseRound() const { return round - staleness; }

    QJsonObject toJson() const;
    static Result<SpotCheckTask> fromJson(const QJsonObject &json);
};

// POST /v1/round/check: what the verifier measured, or why it could not. The coordinator judges.
struct SpotCheckReport {
    qint64 round = 0;
    QString peerId;
    double cosine = 0.0;       // of the sent update with the recomputed one
    double relativeNorm = 0.0; // |sent| / |recomputed|
    QString failed;            // not empty: the check could not be done, and why

    QJsonObject toJson() const;
    static Result<SpotCheckReport> fromJson(const QJsonObject &json);
};

} // namespace swarmtrain
