#pragma once

#include "CoordinatorStore.h"
#include "Result.h"
#include "RoundBudget.h"
#include "WorkAccounting.h"

#include <QString>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace swarmtrain {

struct RoundSettings {
    qint64 parameterCount = 0;
    qint64 heartbeatIntervalMs = 10'000;
    int missedHeartbeats = 3; // a peer not seen for this many intervals is offline
    qint64 gatherTimeoutMs = 60'000;
    qint64 roundDeadlineMs = 600'000;
    // A round's members commit to their pieces (POST /v1/round/commit, their first act in the
    // all-reduce) within this long of its start, plus 80 ms a million parameters for hashing
    // them: commitDeadlineMs. Later, the commitments are closed; a member with neither a
    // commitment nor a report stalls the round, which waits for it no more.
    qint64 commitTimeoutMs = 30'000;
    // An online peer that rounds started without this many times in a row (it says "training"
    // and is never ready) is not waited for again until it is ready.
    int leftBehindRounds = 2;
    int minPeers = 1; // no round starts with fewer ready peers
    // Bootstrapping a public swarm: while no established member reports, a round's hash is
    // voted by subnet (subnetVotes()), so identities made in numbers behind one address or
    // subnet weigh as one. Off: one vote an identity (the defence's adversary test switches it).
    bool votePerSubnet = true;
    double creditPerToken = 0.001;
    // Each member's work; 0 tokens: whatever it reports (tests of the lifecycle alone).
    RoundWork work;
    // Time-budgeted rounds (issue 18); off: every member trains H steps.
    RoundBudget budget;
};

// What a contribution earned, as far as it is known yet.
struct ContributionVerdict {
    std::optional<bool> accepted; // unset while the round is open
    double credit = 0;
    bool uploadCheckpoint = false; // the coordinator asks this peer for state round + 1
};

// The round lifecycle (DESIGN.md, full-model mode): round r turns global state r into r + 1.
// "gathering" until every online peer is ready on state r (or the gather timeout passes with
// --min-peers ready), then "running" with ranges of the flat parameter vector split among the
// reachable members, then "done" when every member reported or the deadline passed. The params
// hash that established members' votes, weighted by their verified work, put above half is the
// result (while no established member reports, as in a new swarm, each subnet is one vote);
// a round starts only once the coordinator holds its starting state (recomputed and checked);
// matching contributions are accepted and credited with the round's fixed work. Members still
// on probation own no range and have no vote. A round without a majority is gathered again. All
// state lives in the store, so a restarted coordinator carries on.
class CoordinatorRounds {
public:
    using Clock = std::function<qint64()>;

    CoordinatorRounds(CoordinatorStore &store, RoundSettings settings, Clock clock);

    // Makes sure there is a current round; a new swarm starts at `firstRound`.
    Result<RoundRecord> initialize(qint64 firstRound);
    Result<RoundRecord> current();
    // Takes the transitions that are due now; nothing on an instance that is not the leader.
    Result<void> advance();
    // Several instances on one database (issue 20): only the one holding the timed-work lease
    // moves rounds (its holds and budget are the ones that count); the others record reports
    // and answer from the store. A lone coordinator is the leader.
    void setLeader(bool leader) { m_leader = leader; }
    // Records a member's report for the running round and advances.
    Result<ContributionVerdict> contribute(ContributionRecord contribution);
    // The verdict on the peer's latest contribution (for heartbeats).
    Result<std::optional<std::pair<ContributionRecord, ContributionVerdict>>> lastVerdict(const QString &keyId);

    bool isOnline(const PeerRecord &peer) const;
    // The peers seen at or after this moment are online.
    qint64 onlineSinceMs() const;
    const RoundSettings &settings() const { return m_settings; }
    // A time-budgeted swarm: the compute budget of the round its members train for now (set
    // when the round before it starts, from the online peers' speeds); 0: H steps.
    qint64 budgetMs();
    // A budgeted swarm's straggler: its measured speed cannot fit the minimum steps into the
    // budget (RoundBudget::straggler). It is told so and checks others' work instead.
    bool isStraggler(double tokensPerSecond) { return m_settings.budget.straggler(tokensPerSecond, budgetMs()); }

    // [0, parameterCount) split into contiguous ranges among the reachable members (in the
    // given order), in proportion to `weights` (one per member; empty, or a weight that is not
    // positive: an equal share); unreachable members get none. A lone unreachable member owns
    // everything, since it exchanges nothing.
    static std::vector<RoundMember> assignRanges(std::vector<RoundMember> members, qint64 parameterCount,
                                                 const std::vector<double> &weights = {});
    // The weight of each member's range when a round starts: its measured bandwidth, so a slow
    // link carries less and nobody waits for it. Unset: equal ranges.
    using OwnerWeights = std::function<std::vector<double>(const std::vector<RoundMember> &members)>;
    void setOwnerWeights(OwnerWeights weights) { m_ownerWeights = std::move(weights); }
    // The member a round's new state is asked of: the first accepted range owner (established, or
    // the swarm's first members), else the first accepted member; empty when none was accepted.
    static QString uploaderAmong(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts);
    // The hash reported by more than half of the reports, if any.
    static std::optional<QString> majorityHash(const std::vector<QString> &hashes);
    // Bootstrapping votes (no established member reported): each subnet (subnetOf(); "" for
    // peers of no known address) one vote, split evenly among its reporters. Given
    // (subnet, hash) per report, the (hash, weight) pairs for weightedMajority().
    static std::vector<std::pair<QString, double>> subnetVotes(const std::vector<std::pair<QString, QString>> &reports);
    // The hash whose votes weigh more than half of all votes' weight, if any.
    static std::optional<QString> weightedMajority(const std::vector<std::pair<QString, double>> &votes);
    // Whether a peer is past probation: it owns ranges and votes. Unset: everyone is.
    using Established = std::function<bool(const PeerRecord &peer)>;
    void setEstablished(Established established) { m_established = std::move(established); }
    // The members of a closing round whose votes do not count (Verification::rulingBreaches: they
    // applied a range against the coordinator's ruling, or skipped one it upheld); their reports
    // are not accepted.
    using Overruled = std::function<Result<std::set<QString>>(const RoundRecord &round)>;
    void setOverruled(Overruled overruled) { m_overruled = std::move(overruled); }
    // Called when a round closed with an agreed result, with the verdicts (Verification).
    using Closed = std::function<Result<void>(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts)>;
    void setOnClosed(Closed closed) { m_onClosed = std::move(closed); }
    // The next round to start waits for `keyId` (Verification: the verifier of a newcomer's
    // work, so that a stranger's check costs the swarm time but never an honest member's round):
    // until the hold is released and the peer is ready, and never past `untilMs` or for a peer
    // offline or banned. A round that starts drops the released holds. Kept in memory: a
    // restarted coordinator just does not wait. Asynchronous rounds wait for no hold.
    void holdGathering(const QString &keyId, qint64 untilMs) { m_holds[keyId] = {untilMs, false}; }
    void releaseHold(const QString &keyId);
    // How long the member asked for a round's new state has to send it before another accepted
    // member of the round is asked (the next round waits for it): the gather timeout, or longer
    // for a large model (8 bytes a parameter at 1 MB/s).
    qint64 stateUploadTurnMs() const;
    // When the running `round` closes its commitments (RoundSettings::commitTimeoutMs).
    qint64 commitDeadlineMs(const RoundRecord &round) const;
    // Called for each member that stalled a round once it is heard from after the round's
    // commitments closed, not paused: alive, and silent on purpose (an offence). A round often
    // closes moments after its commitments do, before the staller's next heartbeat, so it is
    // judged on the heartbeats that follow, for a minute (judgeStallers). Every member that
    // stalled a round sits the next one out.
    using Stalled = std::function<void(const QString &keyId, qint64 round)>;
    void setOnStalled(Stalled stalled) { m_onStalled = std::move(stalled); }

private:
    struct Hold {
        qint64 untilMs = 0;
        bool released = false;
    };
    // Whether a hold keeps the gathering round `round` from starting now.
    bool heldBy(const PeerRecord &peer, const RoundRecord &round, qint64 nowMs) const;
    // The peers a gathering round could start with now, and what it waits for.
    struct Candidates {
        std::vector<RoundMember> ready;
        std::vector<bool> readyEstablished;
        std::size_t online = 0; // the peers it would wait for, ready or not
        std::vector<QString> training; // those of them not ready
        bool held = false;
        std::optional<qint64> firstReadyMs; // an asynchronous round: since when its first peer waits
        double readySteps = 0.0, stepsToCome = 0.0; // and the work it holds, of the work in a budget
    };
    Result<Candidates> candidates(const RoundRecord &round, const std::vector<PeerRecord> &peers, qint64 nowMs);
    Result<void> maybeStart(RoundRecord round, qint64 nowMs);
    // A budgeted round: whether a ready peer's claimed steps can be taken into it (a straggler
    // below the minimum, or a claim beyond the cap or its speed, is left out and not waited for).
    // `trainedForMs`: since the round of the state it trained on began gathering.
    bool stepsAdmitted(const PeerRecord &peer, qint64 trainedForMs) const;
    // The budget for the rounds to come, from the online peers' measured speeds.
    void updateBudget(const std::vector<PeerRecord> &peers);
    // Round `round` gathers but the coordinator does not hold its starting state: waits for the
    // upload in the uploader's turn, asks the round before's other accepted members in turn, and
    // when every turn passed or no holder is left, goes back and runs that round again (true).
    Result<bool> recoverLostState(const RoundRecord &round, const std::vector<PeerRecord> &peers, qint64 nowMs);
    Result<void> maybeFinish(RoundRecord round, qint64 nowMs);
    // A done round's members count as training on its new state until they heartbeat again.
    Result<void> spendReadiness(const RoundRecord &done);
    // The members of the running `round` that stalled it: past the commit timeout, with neither a
    // commitment nor a report (`reported`).
    Result<std::set<QString>> stalledMembers(const RoundRecord &round, const std::set<QString> &reported, qint64 nowMs);
    // Each online member that stalled `round` sits out the round after it, and is reported.
    void benchStalled(const RoundRecord &round, const std::set<QString> &stalled, const std::vector<PeerRecord> &online);
    // Reports the suspected stallers heard from since their round's commitments closed; forgets
    // those not heard from within a minute (gone, not stalling).
    Result<void> judgeStallers(qint64 nowMs);
    Result<ContributionVerdict> verdictFor(const ContributionRecord &contribution);
    // The agreed hash of `reports`: established members' votes weighted by their verified
    // tokens, or one vote a subnet (subnetVotes()) when none of them is established.
    std::optional<QString> agreedHash(const std::vector<ContributionRecord> &reports,
                                      const std::vector<PeerRecord> &peers) const;
    bool established(const PeerRecord &peer) const { return !m_established || m_established(peer); }

    CoordinatorStore &m_store;
    RoundSettings m_settings;
    Clock m_clock;
    OwnerWeights m_ownerWeights;
    Established m_established;
    Overruled m_overruled;
    Closed m_onClosed;
    Stalled m_onStalled;
    std::map<QString, Hold> m_holds;
    std::set<QString> m_benched;          // peers that sit out the next round to start (they stalled one)
    struct StallSuspect {
        qint64 round = 0;
        qint64 commitDeadlineMs = 0;
    };
    std::map<QString, StallSuspect> m_stallSuspects; // stalled a round, not yet heard from after it
    std::map<QString, int> m_leftBehind; // online peer -> rounds started without it, in a row
    // An asynchronous swarm's ready peers: the state each trained on, and since when it waits.
    std::map<QString, std::pair<qint64, qint64>> m_readySince;
    std::optional<qint64> m_budgetMs; // unset until first asked or a round starts
    bool m_leader = true;
};

} // namespace swarmtrain
