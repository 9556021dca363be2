#pragma once

#include "CoordinatorRecords.h"
#include "Result.h"

#include <QString>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// The unbanned peers seen since a moment from one address and from its subnet (PeerAddress.h).
struct NearbyPeers {
    qint64 sameAddress = 0;
    qint64 sameSubnet = 0;
};

// Said by a write that lost a race with another instance on the same database: it changed
// nothing, and reading again shows what the other one did.
inline constexpr char kChangedMeanwhile[] = "was changed meanwhile by another coordinator instance";
inline bool lostRace(const Error &error) { return error.message.find(kChangedMeanwhile) != std::string::npos; }

// The coordinator's durable state: peers, rounds, contributions, credit and checkpoints.
// Every call that changes something has committed it when it returns, so an HTTP answer sent
// afterwards never promises what a kill -9 could lose. An interface because a large public
// swarm runs several coordinators on one PostgreSQL database (DESIGN.md, "Platforms and
// scale"); SqlCoordinatorStore is the embedded default.
class CoordinatorStore {
public:
    virtual ~CoordinatorStore() = default;

    // Small settings of the swarm (the model config, the data's hash, ...).
    virtual Result<std::optional<QString>> meta(const QString &key) = 0;
    virtual Result<void> setMeta(const QString &key, const QString &value) = 0;

    // Inserts the peer or replaces everything stored about it.
    virtual Result<void> savePeer(const PeerRecord &peer) = 0;
    virtual Result<std::optional<PeerRecord>> peer(const QString &keyId) = 0;
    virtual Result<std::vector<PeerRecord>> peers() = 0; // in join order
    // The peers seen at or after `sinceMs` (the online ones), in join order: an index range, so
    // the timed work and the status read the swarm online, not every peer it ever had.
    virtual Result<std::vector<PeerRecord>> peersSeenSince(qint64 sinceMs) = 0;
    // How many peers the swarm has had, banned ones included (a count of the primary key's index).
    virtual Result<qint64> peerCount() = 0;
    // What a join needs, without reading every peer (issue 20): the ordinal after the highest
    // given, and the peers other than `exceptKeyId` from `address` and its subnet seen at or after
    // `seenSinceMs`, each count stopping at `atMost` (the limit it is checked against). Both are
    // index lookups reading at most `atMost` rows.
    virtual Result<qint64> nextOrdinal() = 0;
    virtual Result<NearbyPeers> onlinePeersNear(const QString &address, qint64 seenSinceMs, const QString &exceptKeyId,
                                                qint64 atMost) = 0;
    virtual Result<void> recordHeartbeat(const QString &keyId, const QString &state, const QString &reason,
                                         double tokensPerSecond, qint64 baseRound, qint64 innerSteps, qint64 nowMs) = 0;
    // A done round took the peer's work on a state older than `nextBaseRound`: a "ready" its
    // last heartbeat said is spent, and it counts as training on `nextBaseRound` (no steps yet)
    // until its next heartbeat says otherwise. Nothing changes if it already said more.
    virtual Result<void> spendReadiness(const QString &keyId, qint64 nextBaseRound) = 0;
    virtual Result<void> countRejectedRequest(const QString &keyId) = 0;
    // Records a dishonest claim or request of a known peer (`kind` names it: "claim", "replay",
    // ...); the peer's offences so far, this one included. With `once`, an offence of the same
    // kind and detail recorded before is not counted again (a retried request, say).
    virtual Result<qint64> recordOffence(const QString &keyId, const QString &kind, const QString &detail,
                                         qint64 nowMs, bool once) = 0;
    // Bans the key; all its credit and counted work go with it (nothing a cheater did is trusted).
    virtual Result<void> banPeer(const QString &keyId, const QString &reason) = 0;
    // Peers by credit, highest first.
    virtual Result<std::vector<PeerRecord>> leaderboard(int limit) = 0;

    // The round with the highest number, if any.
    virtual Result<std::optional<RoundRecord>> currentRound() = 0;
    // The same, without a query while this store writes the rounds alone: the round it last
    // read, unless a round was written through it since. A lone coordinator or the leader reads
    // the round at each request, and a query is a database round trip (issue 20).
    virtual Result<std::optional<RoundRecord>> knownCurrentRound() = 0;
    // No other store writes rounds until `until` (the timed-work lease's holder, with a margin for
    // the instances' clocks); a moment past: other instances may, and knownCurrentRound reads.
    virtual void setSoleRoundWriterUntil(std::chrono::steady_clock::time_point until) = 0;
    virtual Result<std::optional<RoundRecord>> round(qint64 number) = 0;
    // Inserts a new round (revision 0) or replaces the stored one of the same number and revision;
    // fails, changing nothing, when that round was stored meanwhile (by another instance). The
    // same holds for the rounds reopenRound and closeRound replace.
    virtual Result<void> saveRound(const RoundRecord &round) = 0;
    // Goes back a round in one transaction: drops round `abandoned` (gathering, never run) and
    // replaces the round before it with `reopened` (gathered again from the state it started on).
    virtual Result<void> reopenRound(qint64 abandoned, const RoundRecord &reopened) = 0;

    // Fails when the peer already reported for this round and attempt.
    virtual Result<void> addContribution(const ContributionRecord &contribution) = 0;
    virtual Result<std::vector<ContributionRecord>> contributions(qint64 round, int attempt) = 0;
    virtual Result<std::optional<ContributionRecord>> lastContribution(const QString &keyId) = 0;

    // Credits the work of pipeline step `step` (PipelineSteps), in one transaction and once: a
    // step whose number is not above the last one credited (a leader that died between this and
    // saving its step, and the next leader finishing the step again) changes nothing. Banned
    // peers get nothing.
    virtual Result<void> creditPipelineStep(qint64 step, const std::vector<StepCredit> &credits) = 0;

    // Ends a round in one transaction: the verdicts on its contributions, the credit and
    // tokens they earn their peers, the round row itself and, when given, the next round.
    virtual Result<void> closeRound(const RoundRecord &closed, const std::vector<ContributionRecord> &verdicts,
                                    const std::optional<RoundRecord> &next) = 0;

    // Inserts or replaces each (from, to) link, and forgets links measured before `forgetBeforeMs`.
    virtual Result<void> recordLinks(const std::vector<LinkRecord> &links, qint64 forgetBeforeMs) = 0;
    // Links measured at or after `sinceMs`.
    virtual Result<std::vector<LinkRecord>> links(qint64 sinceMs) = 0;

    virtual Result<void> addCheckpoint(const CheckpointRecord &checkpoint) = 0;
    virtual Result<std::optional<CheckpointRecord>> latestCheckpoint() = 0;
    virtual Result<std::optional<CheckpointRecord>> checkpoint(qint64 round) = 0;
    virtual Result<std::vector<CheckpointRecord>> checkpoints() = 0; // oldest first
    // Records the validation loss of state `round` (in its checkpoint and in round `round - 1`).
    virtual Result<void> setValidationLoss(qint64 round, double loss) = 0;

    // Verifiable contributions (issue 16). One member's commitments, all or none; fails when it
    // committed for that round and attempt already.
    virtual Result<void> addCommitments(const std::vector<CommitmentRecord> &pieces) = 0;
    virtual Result<std::vector<CommitmentRecord>> commitments(qint64 round, int attempt) = 0;
    // The member's commitments of the latest round before `beforeRound` it committed in.
    virtual Result<std::vector<CommitmentRecord>> lastCommitments(const QString &keyId, qint64 beforeRound) = 0;
    // Reports already made (same round, reporter, sender and kind) are kept once.
    virtual Result<void> addUpdateReports(const std::vector<UpdateReportRecord> &reports) = 0;
    virtual Result<std::vector<UpdateReportRecord>> updateReports(qint64 round, int attempt) = 0;
    // The disputes between range partners (reports of kind "disputed") of rounds `fromRound` to
    // `toRound`, every attempt; update reports are never pruned.
    virtual Result<std::vector<UpdateReportRecord>> disputes(qint64 fromRound, qint64 toRound) = 0;
    // The coordinator's rulings on owners' evidence (kinds "evidence_upheld" and
    // "evidence_refuted") of rounds `fromRound` to `toRound`, every attempt.
    virtual Result<std::vector<UpdateReportRecord>> evidenceRulings(qint64 fromRound, qint64 toRound) = 0;
    // Inserts the check or replaces the one of the same round and member.
    virtual Result<void> saveSpotCheck(const SpotCheckRecord &check) = 0;
    virtual Result<std::optional<SpotCheckRecord>> spotCheck(qint64 round, const QString &memberKeyId) = 0;
    virtual Result<std::vector<SpotCheckRecord>> openSpotChecks() = 0; // oldest first
    // A refuted contribution in one transaction: no longer accepted, its credit and tokens taken
    // back from the peer, which is on probation again.
    virtual Result<void> revokeContribution(qint64 round, int attempt, const QString &keyId) = 0;
    // An agreed spot check: one more verified round, and the end of a quarantine.
    virtual Result<void> countVerifiedRound(const QString &keyId) = 0;
    virtual Result<void> quarantinePeer(const QString &keyId) = 0;

    // The range averages members applied (issue 16). One member's reports of a round, all or
    // none; fails when it reported for that round and attempt already.
    virtual Result<void> addAverageReports(const std::vector<AverageReportRecord> &reports) = 0;
    virtual Result<std::vector<AverageReportRecord>> averageReports(qint64 round, int attempt) = 0;

    // Several instances on one database (issue 20).
    // Takes or renews the lease `name` for `holder` until `untilMs` when it is free, expired at
    // `nowMs` or held by `holder`; whether `holder` holds it now. Its holder hands it back with
    // `untilMs` 0.
    virtual Result<bool> takeLease(const QString &name, const QString &holder, qint64 nowMs, qint64 untilMs) = 0;
    // Records a signed request by its signature: false when it was recorded before (a replay,
    // whichever instance saw it first). Requests signed before `forgetBeforeMs` are forgotten
    // (they are refused as stale anyway).
    virtual Result<bool> recordRequest(const QString &signature, qint64 signedMs, qint64 forgetBeforeMs) = 0;
    // A rate limit every instance counts against: takes a token of `bucket` (a token bucket
    // that refills at `perSecond` up to `burst` and starts full); 0 when taken, else
    // the milliseconds until one is there (nothing is taken then).
    virtual Result<qint64> takeToken(const QString &bucket, double perSecond, double burst, qint64 nowMs) = 0;
};

} // namespace swarmtrain
