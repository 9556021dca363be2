#pragma once

#include "CoordinatorRounds.h"
#include "CoordinatorStore.h"
#include "OwnerEvidence.h"
#include "Reputation.h"
#include "Result.h"
#include "TrustSettings.h"
#include "VerificationMessages.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <set>

namespace swarmtrain {

// Verifiable contributions (issue 16; README, "Verification"), the coordinator's side.
//
// Before the all-reduce, each member commits to the SHA-256 of every piece it will send, by
// owner; owners fetch the commitments to their range and refuse a piece that differs. When a
// round closes, the owners' reports count against the senders they refused (two owners must
// agree, so no single owner can frame anyone), a member the owners left out of their averages
// earns nothing and is quarantined until a check agrees with its work, and a random share of the accepted members, larger
// on probation, is spot-checked: the member uploads the pieces it sent (checked against its commitment), another
// member recomputes its inner steps from the round's start state, its shards and seed, and
// reports how close the two updates are. The coordinator judges with its own tolerance: a
// refuted member loses the round's credit, goes back on probation and is counted an offence.
// Each range also has a second owner that recomputes its average; the two dispute each other
// when they disagree, and the owner disputed by more partners than any of theirs over the last
// rounds loses the round's credit and is counted an offence (OwnerDisputes.h).
// Everything lives in the store, so a restarted coordinator carries on.
class Verification {
public:
    using Clock = std::function<qint64()>;

    Verification(CoordinatorStore &store, CoordinatorRounds &rounds, Reputation &reputation,
                 const TrustSettings &settings, std::filesystem::path updatesDir, Clock clock);

    // POST /v1/round/commit. `status` is the HTTP status of a refusal.
    Result<void> commit(const PeerRecord &peer, const CommitRequest &request, int &status);
    // GET /v1/round/commitments: those to `owner`'s range in the running round, and those to the
    // range it checks (OwnerDisputes.h).
    Result<CommitmentsAnswer> commitmentsTo(const PeerRecord &owner, qint64 round, int &status);
    // What a member of the running round said about others' pieces and about its range partners
    // (with its contribution).
    Result<void> recordReports(const PeerRecord &reporter, qint64 round, const QStringList &refused,
                               const QStringList &leftOut, const QStringList &disputed);
    // CoordinatorRounds::setOnClosed: counts the owners' reports, judges their disputes and draws
    // the spot checks.
    Result<void> roundClosed(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts);

    // For heartbeat answers: the round whose update the coordinator asks `keyId` for, and the
    // check it asks `keyId` to do (each left unset when there is none).
    Result<void> tasksFor(const QString &keyId, std::optional<qint64> &updateRound,
                          std::optional<SpotCheckTask> &spotCheck);

    // POST /v1/round/evidence (OwnerEvidence.h), in three steps like an update's: the case the
    // evidence is judged by, when `sender` owns its range in the running round (and committed), or
    // checks the range of an owner that committed to nothing by the close and stands in for it,
    // and nobody's evidence for that range was judged yet (on the server's thread);
    // weighEvidence() (any thread); the ruling kept (server's thread), with the range as the
    // coordinator recomputed it from refuted evidence's pieces, for the members (redonePath()).
    Result<EvidenceCase> evidenceCase(const PeerRecord &sender, const RangeEvidence &evidence, int &status);
    Result<void> rule(const EvidenceCase &owned, const QString &averageSha256, const EvidenceFinding &finding);
    // GET /v1/round/ruling: the ruling on `owner`'s evidence in the running round, for a member.
    Result<RangeRuling> rangeRuling(const PeerRecord &asker, qint64 round, const QString &owner, int &status);
    // What the members of `round` did against the coordinator's rulings on its owners' evidence,
    // by the averages they reported. `overruled`: those that applied a range against its ruling
    // (another average than the one upheld, or the one refuted); judgeEvidence() charges them.
    // `unsettled`: those and the members that skipped an upheld range another member applied;
    // CoordinatorRounds leaves their votes out.
    struct RulingBreaches {
        std::set<QString> overruled;
        std::set<QString> unsettled;
    };
    Result<RulingBreaches> rulingBreaches(const RoundRecord &round);
    // Range audits (VerificationAudits.cpp): a checker that vouches for its partner's made-up
    // average decides nothing unchallenged. Each round, once the owners that committed named
    // their averages (POST /v1/round/average), the coordinator draws a random share of their
    // ranges (TrustSettings::rangeAuditRate), and every owner that named none in time: those
    // owners send their evidence, which it rules on as on a disputed range's, and members settle
    // those ranges by the rulings. The draw comes after the claims, so an owner cannot lie only
    // where it is not audited; an audited owner's evidence holds only for the average it named,
    // and one that goes on without sending it is counted an offence. Each range's checker names
    // its verdict the same way (AverageClaim::owner); a range whose checker did not vouch for the
    // very average and pieces its owner named is audited.
    Result<void> claimAverage(const PeerRecord &sender, const AverageClaim &claim, int &status);
    // GET /v1/round/audit: the running round's audited owners, once drawn (drawn then if due).
    Result<RangeAudit> rangeAudit(const PeerRecord &asker, qint64 round, int &status);
    // GET /v1/round/redone: the file of `owner`'s range as the coordinator recomputed it in the
    // running round, for a member, and its SHA-256 (`sha256`). Members apply it to an audited
    // range whose owner's average was refuted, so the swarm loses nothing of that range.
    Result<std::filesystem::path> redonePath(const PeerRecord &asker, qint64 round, const QString &owner, QString &sha256,
                                             int &status);
    // The largest encoded range any piece or average of the evidence can be, and the largest body
    // the running round's evidence can have.
    qint64 maxEvidencePayloadBytes() const;
    qint64 maxEvidenceBytes();

    // POST /v1/round/update: the largest body any round's update can have.
    qint64 maxUpdateBytes() const;
    // The member's upload of its update of `round`, in three steps: what the coordinator expects
    // (on the server's thread), whether the file matches it (on any thread: it reads the whole
    // file), and keeping it for the verifier or refuting the member (on the server's thread).
    struct ExpectedPiece {
        QString ownerKeyId;
        qint64 bytes = 0;
        QString sha256; // committed; empty when not
    };
    struct UpdateExpectation {
        SpotCheckRecord check;
        std::vector<ExpectedPiece> pieces; // in range order
    };
    Result<UpdateExpectation> expectUpdate(const QString &keyId, qint64 round, int &status);
    static QString mismatchOf(const std::filesystem::path &file, const UpdateExpectation &expected);
    Result<void> keepUpdate(const UpdateExpectation &expected, const std::filesystem::path &file, const QString &sha256,
                            const QString &mismatch, int &status);
    // GET /v1/round/update: the member's update file, for its verifier only.
    Result<SpotCheckRecord> updateFor(const QString &verifierKeyId, qint64 round, const QString &memberKeyId,
                                      int &status);
    std::filesystem::path updatePath(const SpotCheckRecord &check) const { return m_updatesDir / check.updateFile.toStdString(); }
    // POST /v1/round/check.
    Result<void> report(const PeerRecord &verifier, const SpotCheckReport &report, int &status);
    // The ticker: checks past their time.
    Result<void> expire();

    // The random draws (tests make them certain with rates of 0 or 1).
    void setSeed(std::uint64_t seed) { m_random.seed(seed); }

private:
    // The owners' reports: a sender two owners refused is counted an offence, one they left out of
    // their averages is quarantined (Reputation::established); either way its round's credit is
    // taken back (added to `revoked`).
    Result<void> countReports(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                              std::set<QString> &revoked);
    // The lying owner of the last rounds' disputes, if it was disputed in `round` (and not judged
    // on its evidence already): an offence and the round's credit taken back (added to `revoked`).
    Result<void> judgeDisputes(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                               std::set<QString> &revoked);
    // The rulings on the round's evidence (OwnerEvidence.h): an owner whose evidence did not hold,
    // and a member that applied a range against a ruling, is counted an offence and loses the
    // round's credit (added to `revoked`).
    Result<void> judgeEvidence(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                               std::set<QString> &revoked);
    // An audited owner that contributed to `round` without sending the evidence for the average it
    // named: an offence and the round's credit taken back (added to `revoked`).
    Result<void> judgeAudits(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                             std::set<QString> &revoked);
    // A checker (or, with refereeChecks(), a referee) that vouched, before the draw, for an average
    // and pieces that its owner's evidence then showed far from what those pieces make
    // (EvidenceFinding::farOffClaim): it took a made-up average for the range's, so it is
    // convicted with the owner and loses the round's credit (added to `revoked`).
    Result<void> judgeVouches(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                              std::set<QString> &revoked);
    bool rangeAudits() const;
    // Whether each range's referee checks every average and names its verdict (with rulings).
    bool refereeChecks() const;
    // The running round `round` and its update reports, for a member (an owner, with `owner`) when
    // this coordinator audits.
    struct RoundReports {
        RoundRecord round;
        std::vector<UpdateReportRecord> reports;
    };
    Result<RoundReports> runningRoundFor(const PeerRecord &peer, qint64 round, bool owner, int &status);
    // The average and pieces `owner` named among a round's `reports`, as claimDetail() keeps them
    // (empty: none).
    static QString claimedAverage(const std::vector<UpdateReportRecord> &reports, const QString &owner);
    // Keeps `redone` for the members; its SHA-256. Ranges of rounds before the last are removed.
    Result<QString> keepRedone(const EvidenceCase &owned, const QByteArray &redone);
    std::filesystem::path redoneFile(qint64 round, int attempt, const QString &owner) const;
    // Takes back the credit of `keyId`'s contribution to `round` when it was accepted.
    Result<void> revokeAccepted(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                const QString &keyId);
    // The round's new state was asked of `revoked`, whose work was just taken back (it may be
    // banned next and never send it): it is asked of the first member still accepted, a range
    // owner first, so the coordinator holds (and validates) every state.
    Result<void> askAnotherForTheState(qint64 roundNumber, const QString &revoked);
    // A quarantined member's round earns nothing (the check that ends the quarantine may still
    // be drawn).
    Result<void> withholdQuarantined(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts);
    // Draws the round's spot checks among its accepted members, leaving out the `revoked`.
    Result<void> drawChecks(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                            const std::set<QString> &revoked);
    // The verifiers at work: those of checks whose update is in. A check still waiting for its
    // member's update keeps no one from training or from taking another check, so a stranger that
    // withholds its update ties up no verifier (the check refutes it when its time is up).
    static std::set<QString> busyVerifiers(const std::vector<SpotCheckRecord> &open);
    // How much slower than the member a verifier may be and still replay its round in time: at
    // most this many times the member's own training time.
    static constexpr double kReplaySlowdown = 2.0;
    // Whether `verifier` replays `member`'s round within kReplaySlowdown times the member's own
    // time, by the speeds their heartbeats gave (a member of no known speed: any verifier).
    static bool replayFits(const PeerRecord &member, const PeerRecord &verifier);
    // A peer that may check `memberKeyId`'s work now (not one in `busy`, which are checking
    // already), one that replays it in time (replayFits()) where any is free; null when none may.
    const PeerRecord *pickVerifier(const QString &memberKeyId, const std::vector<PeerRecord> &peers,
                                   const std::set<QString> &busy);
    // The members asked for a state the coordinator does not hold yet (of the last two rounds).
    // A check would put their replica aside, and the next state is recomputed from that one
    // (issue 16): no state, no states after it. So they check only when no one else may.
    std::set<QString> stateOwers();
    // Gives the check a verifier (added to `busy`) when one may take it and saves it; a check
    // just `drawn` is saved either way, waiting for one.
    Result<void> assignVerifier(SpotCheckRecord check, const std::vector<PeerRecord> &peers, std::set<QString> &busy,
                                bool drawn);
    // A newcomer's check is the price of its admission, paid in time: the next round waits for
    // the verifier (CoordinatorRounds::holdGathering), which keeps its own round, for as long as
    // a member has for its round's work once the update is in. An established member's (rare)
    // check costs its verifier that round instead, the cheaper way in a swarm of many, and so
    // does a newcomer's check given to a verifier too slow to replay it in time (replayFits()):
    // no round waits for a slow replay.
    void holdForNewcomer(const SpotCheckRecord &check, const PeerRecord &member);
    // Ends an open check with `state`; a refutation takes the credit back and counts an offence
    // (`offence`: the offence's kind, empty for none).
    Result<void> finish(SpotCheckRecord check, SpotCheckState state, const QString &detail, const QString &offence);
    bool established(const PeerRecord &peer) const { return m_reputation.established(peer); }

    CoordinatorStore &m_store;
    CoordinatorRounds &m_rounds;
    Reputation &m_reputation;
    const TrustSettings &m_settings;
    std::filesystem::path m_updatesDir;
    Clock m_clock;
    std::mt19937_64 m_random;
};

} // namespace swarmtrain
