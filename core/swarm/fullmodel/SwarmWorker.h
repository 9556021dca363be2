#pragma once

#include "ButterflyAllReduce.h"
#include "ControlMessages.h"
#include "Result.h"
#include "WorkStatus.h"
#include "WorkerOptions.h"

#include <QDateTime>
#include <QObject>

#include <chrono>
#include <map>
#include <memory>
#include <optional>

namespace swarmtrain {

class CoordinatorClient;
class CoordinatorSession;
class DataPlane;
class Identity;
class ReplicaTrainer;
struct ReplicaOptions;
class StatsStore;
class WorkGate;

// The swarm client's loop in full-model mode, run on WorkController's worker thread: join,
// download, H inner steps, the round's all-reduce, the outer step, the contribution, repeat.
// Calls block this thread; WorkGate's pause and stop reach it between two stages of a step,
// and while it waits for the coordinator or the all-reduce.
class SwarmWorker : public QObject {
    Q_OBJECT

public:
    SwarmWorker(WorkerOptions options, std::shared_ptr<WorkGate> gate);
    ~SwarmWorker() override;

    // Runs until stopped or failed, then emits finished().
    void run();

Q_SIGNALS:
    void statusChanged(const swarmtrain::WorkStatus &status);
    void roundFinished(const swarmtrain::RoundReport &report);
    void finished(bool ok, const QString &message);

private:
    enum class Outcome { Done, Stopped, CatchUp, Verify, SitOut };

    // This round's inner work, summed over interrupted runs.
    struct RoundWork {
        qint64 tokens = 0;
        double flops = 0.0;
        double seconds = 0.0;
        double lossSum = 0.0;
        qint64 steps = 0;
        QDateTime startedAt;
        std::chrono::steady_clock::time_point startedSteady; // where a time budget counts from
        double restSeconds = 0.0; // resting between steps, as the duty cycle asks
    };

    Result<void> setUp();
    Result<void> join();
    Result<void> prepareShards();
    // Pipeline-stage mode, when the swarm trains one: until stopped or failed.
    Result<void> runPipeline();
    Result<void> prepareReplica();
    // How `keyId` trains its replica: the swarm's settings, its data order, this PC's device.
    ReplicaOptions replicaOptionsOf(const QString &keyId) const;
    Result<void> catchUp();
    // Downloads the global state the coordinator serves (of `round`, or its newest); returns the file.
    Result<std::filesystem::path> downloadState(std::optional<qint64> round = std::nullopt);
    void removeDownloadedState(const std::filesystem::path &file);
    Result<Outcome> trainRound();
    // The round's inner work is done: H steps (fixed H), or the time budget spent with at least
    // the minimum steps, or the cap reached.
    bool roundWorkDone() const;
    // A straggler (the coordinator says this PC cannot fit a round's minimum steps into its
    // budget): no rounds, only the spot checks it is given, until the budget fits it again or,
    // every 30 heartbeats, it trains again to measure its speed afresh.
    Result<void> sitOutRounds();
    Result<Outcome> waitForRound();
    Result<void> runRound();
    // The round's all-reduce and outer step; nullopt when this peer is out of the round.
    std::optional<AllReduceOutcome> averageRound(qint64 round, const RoundAnswer &info);
    // Sends the coordinator this peer's range evidence of `round` (OwnerEvidence.h), its range
    // `disputed` by its checker or else audited, and logs its ruling; none when it was not taken.
    std::optional<EvidenceRuling> sendEvidence(qint64 round, int attempt, RangeEvidence &evidence, bool disputed);
    // Settles the round's disputed and audited ranges: draws the audit (drawnAudit()), sends this
    // peer's evidence where its range is either, and settles the ranges by the rulings.
    void settleRanges(qint64 round, const RoundAnswer &info, AllReduceOutcome &outcome);
    // Where the coordinator audits ranges: names this owner's average (POST /v1/round/average)
    // and waits a while for the draw; the audited owners, or nullopt when no draw came.
    std::optional<QStringList> drawnAudit(qint64 round, const RoundAnswer &info, const AllReduceOutcome &outcome);
    // Where the coordinator rules on disputed ranges: asks for the ruling on each range disputed
    // or `audited` (this peer's own from `own`), waiting a while for those still pending, and
    // settles the ranges by them (RangeRulings.h). Elsewhere, and for a hostile client that
    // ignores rulings, nothing.
    void settleDisputes(qint64 round, const RoundAnswer &info, AllReduceOutcome &outcome, const QStringList &audited,
                        const std::optional<EvidenceRuling> &own);
    // The audited ranges whose rulings refute them, as the coordinator recomputed them from their
    // owners' pieces (GET /v1/round/redone), by owner; those it cannot fetch are left out.
    std::map<QString, QByteArray> redoneRanges(qint64 round, const std::vector<DisputedRange> &audited,
                                               const std::map<QString, RangeRuling> &rulings);
    // Commits to this peer's pieces of the round and, for a range owner, collects into `options`
    // what the other members committed to for its range and for the range it checks (none, and
    // no range checks, with a coordinator without commitments).
    Result<void> commitPieces(qint64 round, const QHash<QString, QByteArray> &hashes, const RoundAnswer &info,
                              AllReduceOptions &options);
    // Reports the applied round to the coordinator; `report` gets the verdict. False when the
    // coordinator did not take the report.
    bool reportRound(RoundReport &report, const AllReduceOutcome &outcome, qint64 sentBefore, qint64 receivedBefore);
    // SpotCheck.cpp: the check the coordinator gave this peer, then back to training (the
    // replica is put aside meanwhile and loaded again, caught up, afterwards).
    Result<void> runSpotCheck();
    // Recomputes the member's round and compares it with the update it sent; failed says why not.
    SpotCheckReport checkWork(const SpotCheckTask &task);
    // Waits until the member's update is with the coordinator; false when the check is gone.
    bool waitForUpdate(const SpotCheckTask &task);
    // The update this peer sent in `round`, when the coordinator asks for it.
    void uploadUpdate(qint64 round);
    Result<void> leave();
    // ThrottleAction::Release: save the replica and free it (and the device's memory), then
    // load it again on resume.
    Result<void> releaseReplica();
    Result<void> reloadReplica();

    // `persist`: wait for an answer however long the coordinator is away.
    Result<HeartbeatAnswer> heartbeat(const QString &state, const QString &reason, bool persist);
    // Sends a heartbeat if one is due; sets m_catchUpNeeded from the answer.
    void heartbeatIfDue(const QString &state);
    bool needsCatchUp(const HeartbeatAnswer &answer) const;
    bool stateInDoubt() const;
    // Round `round` was not accepted: resync once the agreed state after it is served.
    void replicaRejected(qint64 round);
    // Whether this peer's work can go into round `round`: trained on its state, or, in an
    // asynchronous swarm, on one at most max_staleness rounds older.
    bool joinable(qint64 round) const;
    // Sends the global state of `stateRound` the coordinator asked for, if we still hold it.
    bool uploadState(qint64 stateRound);
    void recordVerdict(const ContributionVerdictInfo &last);
    // Waits while paused, sending "paused" heartbeats; false when stopping.
    bool holdWhilePaused();

    void setStatus(WorkState state, const QString &detail);
    // At most once a second while training.
    void emitProgress(double tokensPerSecond);
    std::filesystem::path replicaFile() const { return m_options.stateDir / "replica.safetensors"; }

    WorkerOptions m_options;
    std::shared_ptr<WorkGate> m_gate;
    std::unique_ptr<Identity> m_identity;
    std::unique_ptr<CoordinatorClient> m_client;
    std::unique_ptr<CoordinatorSession> m_session;
    std::unique_ptr<DataPlane> m_dataPlane;
    std::unique_ptr<StatsStore> m_stats;
    std::unique_ptr<ReplicaTrainer> m_trainer;
    QString m_endpoint;
    quint16 m_listenPort = 0;
    std::chrono::steady_clock::time_point m_lastHeartbeat;
    bool m_catchUpNeeded = false;
    qint64 m_releasedRound = 0; // the replica's round while it is released
    // The state the coordinator serves and its current round, as the last heartbeat said (unset:
    // as the join answer said).
    std::optional<std::pair<qint64, qint64>> m_swarmRounds;
    qint64 m_budgetMs = 0; // the round's compute budget, as the last heartbeat said (0: H steps)
    bool m_straggler = false; // too slow for the budget, as the last heartbeat said
    std::optional<qint64> m_resyncAtRound; // a rejected contribution: resync once this state is served
    // The last heartbeat's word on our latest contribution, and the round of our latest
    // contribution the coordinator took.
    std::optional<ContributionVerdictInfo> m_lastVerdict;
    std::optional<qint64> m_contributedRound;
    std::optional<qint64> m_uploadRound;   // the coordinator asked us for this state
    std::optional<qint64> m_unsendableRound; // a state asked of us whose averages are gone (said once)
    std::optional<SpotCheckTask> m_spotCheck;  // the coordinator asked us to check this work
    std::optional<std::pair<qint64, QString>> m_checkDone; // the last check done: not again
    std::map<qint64, QByteArray> m_sentUpdates; // the encoded pieces of the last rounds, by round
    std::map<qint64, std::vector<RangeAverage>> m_appliedAverages; // what the last rounds applied, by round
    std::optional<qint64> m_updateUploaded;     // the last round whose update went up
    bool m_rangeRulings = false;                // the coordinator rules on disputed ranges (this round's commitments say)
    bool m_rangeAudits = false;                 // ...and audits ranges
    std::optional<WorkStatus> m_statusBeforeOutage; // while the coordinator cannot be reached
    std::vector<std::int32_t> m_tokens; // the data shards' tokens, until the replica takes them
    qint64 m_tokensPerStep = 0;
    WorkStatus m_status;
    std::chrono::steady_clock::time_point m_lastProgress;
    RoundWork m_work;
};

} // namespace swarmtrain
