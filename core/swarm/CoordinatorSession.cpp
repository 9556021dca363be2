#include "CoordinatorSession.h"

#include "QtText.h"
#include "SwarmLog.h"
#include "WorkGate.h"

#include <algorithm>
#include <cstring>

namespace swarmtrain {

namespace {

constexpr int kMaxRetryPauseMs = 30'000;

// The answer as a `Message`, or an error naming the call and the field out of bounds.
template <typename Message>
Result<Message> decoded(const char *what, Result<QJsonObject> answer)
{
    if (!answer)
        return answer.error();
    Result<Message> message = Message::fromJson(*answer);
    if (!message)
        return makeError(std::string("the coordinator's answer to ") + what + " is malformed: " + message.error().message);
    return message;
}

} // namespace

CoordinatorSession::CoordinatorSession(CoordinatorClient &client, WorkGate &gate, Reachability reachability)
    : m_client(client), m_gate(gate), m_reachability(std::move(reachability))
{
}

Result<QJsonObject> CoordinatorSession::ask(const char *what, const std::function<Result<QJsonObject>()> &call)
{
    int pauseMs = 1000;
    for (int failures = 0;; ++failures) {
        Result<QJsonObject> answer = call();
        if (answer) {
            if (failures > 0)
                m_reachability(std::nullopt);
            return answer;
        }
        const int status = CoordinatorClient::httpStatus(answer.error());
        const bool unknownPeer = status == 401 && answer.error().message.find("join first") != std::string::npos;
        if (m_gate.stopRequested() || CoordinatorClient::isCancelled(answer.error()))
            return makeError("stopped");
        if ((status >= 400 && status < 500 && !unknownPeer) || CoordinatorClient::isWrongScheme(answer.error()))
            return answer.error();
        qCWarning(lcWorker).noquote() << what << "failed:" << toQString(answer.error());
        m_reachability(pauseMs);
        m_gate.sleepFor(pauseMs);
        if (m_gate.stopRequested())
            return makeError("stopped");
        pauseMs = std::min(2 * pauseMs, kMaxRetryPauseMs);
        // A coordinator that lost its peers (a new state directory) asks us to join first.
        if (unknownPeer && std::strcmp(what, "join") != 0 && m_joinRequest)
            (void)join(*m_joinRequest);
    }
}

Result<JoinAnswer> CoordinatorSession::join(const JoinRequest &request)
{
    m_joinRequest = request;
    Result<JoinAnswer> answer = decoded<JoinAnswer>(
        "join", ask("join", [&] { return m_client.postJson(QStringLiteral("/v1/join"), request.toJson()); }));
    if (answer)
        m_joined = *answer;
    return answer;
}

Result<HeartbeatAnswer> CoordinatorSession::heartbeat(const HeartbeatRequest &request, bool persist)
{
    const auto send = [&] { return m_client.postJson(QStringLiteral("/v1/heartbeat"), request.toJson()); };
    return decoded<HeartbeatAnswer>("heartbeat", persist ? ask("heartbeat", send) : send());
}

Result<RoundAnswer> CoordinatorSession::round()
{
    return decoded<RoundAnswer>("round", ask("round", [&] { return m_client.getJson(QStringLiteral("/v1/round")); }));
}

Result<ContributionAnswer> CoordinatorSession::contribute(const ContributionRequest &request)
{
    return decoded<ContributionAnswer>("contribution", ask("contribution", [&] {
        return m_client.postJson(QStringLiteral("/v1/contribution"), request.toJson());
    }));
}

Result<void> CoordinatorSession::download(const QString &path, const std::filesystem::path &file, const QString &sha256)
{
    std::optional<Error> mismatch;
    Result<QJsonObject> done = ask("download", [&]() -> Result<QJsonObject> {
        if (Result<void> got = m_client.download(path, file, sha256); !got) {
            // Bytes other than the ones the coordinator vouched for: not a hiccup to wait out.
            if (CoordinatorClient::isHashMismatch(got.error()))
                mismatch = got.error();
            else
                return got.error();
        }
        return QJsonObject();
    });
    if (mismatch)
        return *mismatch;
    if (!done)
        return done.error();
    return {};
}

Result<CheckpointInfo> CoordinatorSession::uploadState(qint64 stateRound, const QByteArray &state)
{
    return decoded<CheckpointInfo>("the state upload",
                                   m_client.postBytes(QStringLiteral("/v1/checkpoint?round=%1").arg(stateRound), state));
}

Result<void> CoordinatorSession::uploadStageState(int stage, const QString &hash, const QByteArray &state)
{
    Result<QJsonObject> done =
        m_client.postBytes(QStringLiteral("/v1/pipeline/state?stage=%1&hash=%2").arg(stage).arg(hash), state);
    return done ? Result<void>() : Result<void>(done.error());
}

Result<void> CoordinatorSession::postAverages(qint64 round, const QByteArray &averages)
{
    Result<QJsonObject> done = m_client.postBytes(QStringLiteral("/v1/round/averages?round=%1").arg(round), averages);
    return done ? Result<void>() : Result<void>(done.error());
}

Result<void> CoordinatorSession::leave(qint64 baseRound)
{
    m_client.resetCancel(); // a stop cancelled what was in flight; this one call is wanted
    Result<QJsonObject> told =
        m_client.postJson(QStringLiteral("/v1/heartbeat"), HeartbeatRequest{QStringLiteral("left"), baseRound, 0.0, {}}.toJson());
    if (!told)
        return told.error();
    return {};
}

Result<PipelineAnswer> CoordinatorSession::pipeline(const PipelineRequest &request)
{
    return decoded<PipelineAnswer>("pipeline", ask("pipeline", [&] {
        return m_client.postJson(QStringLiteral("/v1/pipeline"), request.toJson());
    }));
}

Result<ValidationSample> CoordinatorSession::validationSample()
{
    Result<QJsonObject> answer = ask("validation sample", [&] { return m_client.getJson(QStringLiteral("/v1/validation-sample")); });
    if (!answer)
        return answer.error();
    return ValidationSample::fromJson(*answer, joined().tokenizer.vocabSize);
}

Result<void> CoordinatorSession::commit(const CommitRequest &request)
{
    Result<QJsonObject> done =
        ask("commitment", [&] { return m_client.postJson(QStringLiteral("/v1/round/commit"), request.toJson()); });
    return done ? Result<void>() : Result<void>(done.error());
}

Result<EvidenceRuling> CoordinatorSession::sendEvidence(const RangeEvidence &evidence)
{
    return decoded<EvidenceRuling>("evidence", ask("evidence", [&] {
        return m_client.postJson(QStringLiteral("/v1/round/evidence"), evidence.toJson());
    }));
}

Result<RangeRuling> CoordinatorSession::rangeRuling(qint64 round, const QString &owner)
{
    Result<QJsonObject> answer = m_client.getJson(QStringLiteral("/v1/round/ruling?round=%1&owner=%2").arg(round).arg(owner));
    if (!answer)
        return answer.error();
    return RangeRuling::fromJson(*answer);
}

Result<void> CoordinatorSession::claimAverage(const AverageClaim &claim)
{
    Result<QJsonObject> done = m_client.postJson(QStringLiteral("/v1/round/average"), claim.toJson());
    return done ? Result<void>() : Result<void>(done.error());
}

Result<RangeAudit> CoordinatorSession::rangeAudit(qint64 round)
{
    Result<QJsonObject> answer = m_client.getJson(QStringLiteral("/v1/round/audit?round=%1").arg(round));
    if (!answer)
        return answer.error();
    return RangeAudit::fromJson(*answer);
}

Result<CommitmentsAnswer> CoordinatorSession::commitments(qint64 round)
{
    return decoded<CommitmentsAnswer>("commitments", ask("commitments", [&] {
        return m_client.getJson(QStringLiteral("/v1/round/commitments?round=%1").arg(round));
    }));
}

Result<void> CoordinatorSession::uploadUpdate(qint64 round, const QByteArray &update)
{
    Result<QJsonObject> done = m_client.postBytes(QStringLiteral("/v1/round/update?round=%1").arg(round), update);
    return done ? Result<void>() : Result<void>(done.error());
}

Result<void> CoordinatorSession::reportCheck(const SpotCheckReport &report)
{
    Result<QJsonObject> done = m_client.postJson(QStringLiteral("/v1/round/check"), report.toJson());
    return done ? Result<void>() : Result<void>(done.error());
}

} // namespace swarmtrain
