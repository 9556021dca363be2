#pragma once

#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Result.h"

#include <QJsonObject>

#include <filesystem>
#include <functional>
#include <optional>

namespace swarmtrain {

class WorkGate;

// The worker's conversation with its coordinator, in the protocol's typed messages. A call
// that must get through waits however long the coordinator is away, with growing pauses, and
// joins again when a coordinator that lost its peers asks for it; it fails only for a stop or
// for an answer that asking again will not change (a 4xx). Every answer is decoded against
// its bounds before anything trusts it.
class CoordinatorSession {
public:
    // Told, on the worker's thread, when a call cannot reach the coordinator (with the pause
    // before the next try) and when it got through again after that (nullopt).
    using Reachability = std::function<void(std::optional<int> retryInMs)>;

    CoordinatorSession(CoordinatorClient &client, WorkGate &gate, Reachability reachability);

    Result<JoinAnswer> join(const JoinRequest &request);
    // The latest join answer; valid after join() succeeded (a rejoin replaces it).
    const JoinAnswer &joined() const { return *m_joined; }
    bool hasJoined() const { return m_joined.has_value(); }
    // `persist`: wait for an answer however long the coordinator is away; otherwise one try.
    Result<HeartbeatAnswer> heartbeat(const HeartbeatRequest &request, bool persist);
    Result<RoundAnswer> round();
    Result<ContributionAnswer> contribute(const ContributionRequest &request);
    // Downloads a shard, the state or the tokenizer to `file`, verified against `sha256` (or the
    // answer's X-Content-SHA256 when empty); other bytes are an error at once, not retried.
    Result<void> download(const QString &path, const std::filesystem::path &file, const QString &sha256);
    // One try each: an upload the coordinator no longer needs is not worth waiting for, and a
    // goodbye must not hold up a quitting client.
    Result<CheckpointInfo> uploadState(qint64 stateRound, const QByteArray &state);
    // The range averages round `round` applied (RangeAverageBlob.h), before state round + 1.
    Result<void> postAverages(qint64 round, const QByteArray &averages);
    Result<void> leave(qint64 baseRound);
    // Pipeline-stage mode: this peer's stage and the open step (PipelineMessages.h), waiting
    // however long the coordinator is away; and a sample of the swarm's held-back validation text.
    Result<PipelineAnswer> pipeline(const PipelineRequest &request);
    Result<ValidationSample> validationSample();
    // The stage's state at agreed hash `hash`, when the coordinator asks for it (its export); one try.
    Result<void> uploadStageState(int stage, const QString &hash, const QByteArray &state);

    // Verifiable contributions (VerificationMessages.h). The commitment and the commitments
    // wait for the coordinator like the round's other calls; the update upload and the check's
    // report are tried once, as a state upload is.
    Result<void> commit(const CommitRequest &request);
    // POST /v1/round/evidence: this owner's pieces, when its checker did not agree (OwnerEvidence.h).
    Result<EvidenceRuling> sendEvidence(const RangeEvidence &evidence);
    Result<CommitmentsAnswer> commitments(qint64 round);
    // GET /v1/round/ruling: the coordinator's ruling on `owner`'s disputed range; one try (the
    // caller asks again while it is pending).
    Result<RangeRuling> rangeRuling(qint64 round, const QString &owner);
    // POST /v1/round/average: the hash of this owner's average, before the round's audit is
    // drawn; one try. GET /v1/round/audit: the audited owners, once drawn; one try.
    Result<void> claimAverage(const AverageClaim &claim);
    Result<RangeAudit> rangeAudit(qint64 round);
    Result<void> uploadUpdate(qint64 round, const QByteArray &update);
    Result<void> reportCheck(const SpotCheckReport &report);

private:
    Result<QJsonObject> ask(const char *what, const std::function<Result<QJsonObject>()> &call);

    CoordinatorClient &m_client;
    WorkGate &m_gate;
    Reachability m_reachability;
    std::optional<JoinRequest> m_joinRequest;
    std::optional<JoinAnswer> m_joined;
};

} // namespace swarmtrain
