#include "StateEndpoints.h"

#include "AverageEndpoints.h"
#include "CoordinatorLog.h"
#include "FileDownload.h"
#include "QtText.h"
#include "SwarmState.h"
#include "ControlMessages.h"
#include "FileIo.h"
#include "ModelExports.h"
#include "RangeAverageBlob.h"
#include "StateRecompute.h"

#include <QFile>
#include <QUrlQuery>

#include <unistd.h>

namespace swarmtrain {

StateEndpoints::StateEndpoints(CoordinatorContext context) : EndpointGroup(context)
{
    m_checks.setMaxThreadCount(1); // one state at a time: each check reads a whole file
}

StateEndpoints::~StateEndpoints() { m_checks.waitForDone(); }

void StateEndpoints::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/checkpoint", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(checkpoint(exchange.request)); }));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/shards/", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(shard(exchange.request, exchange.pathTail)); }));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/tokenizer", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(tokenizer(exchange.request)); }));
    Route uploadRoute = route(QHttpServerRequest::Method::Post, "/v1/checkpoint", RouteAccess::Peer, RouteBody::Bytes,
                              [this](HttpExchange &exchange) { upload(exchange); });
    uploadRoute.maxBodyBytes = [this] { return maxStateBytes(); };
    routes.add(std::move(uploadRoute));
}

HttpReply StateEndpoints::checkpoint(const HttpRequest &request)
{
    // ?round=R: an earlier state the coordinator still holds (what a spot check starts from).
    if (!m_context.setup.hasState()) {
        // A pipeline swarm: the model put together from its stages for the latest export.
        const auto published = publishedState(exportsDir(m_context.setup));
        if (!published || request.query().hasQueryItem(QStringLiteral("round")))
            return HttpReply::error(404, QStringLiteral("this swarm's peers hold pipeline stages: its whole model is "
                                                        "put together when it is published (--export-every)"));
        const QJsonObject &manifest = published->second;
        return fileDownload(published->first, manifest.value(QStringLiteral("state_sha256")).toString(), request,
                            {{"X-Swarm-Round", QByteArray::number(manifest.value(QStringLiteral("round")).toInteger())}});
    }
    CheckpointRecord checkpoint = m_context.setup.checkpoint;
    if (const QString round = request.query().queryItemValue(QStringLiteral("round")); !round.isEmpty()) {
        bool ok = false;
        Result<std::optional<CheckpointRecord>> held = m_context.store.checkpoint(round.toLongLong(&ok));
        if (!ok || !held || !*held)
            return HttpReply::error(404, QStringLiteral("the coordinator holds no state %1").arg(round.left(20)));
        checkpoint = **held;
    }
    return fileDownload(m_context.setup.checkpointsDir() / checkpoint.fileName.toStdString(), checkpoint.sha256,
                        request, {{"X-Swarm-Round", QByteArray::number(checkpoint.round)}});
}

HttpReply StateEndpoints::shard(const HttpRequest &request, const QString &id)
{
    const ShardInfo *shard = m_context.setup.manifest->find(id.toStdString());
    if (!shard)
        return HttpReply::error(404, QStringLiteral("no such shard"));
    return fileDownload(m_context.setup.manifest->shardPath(*shard), QString::fromStdString(shard->sha256),
                        request, {});
}

HttpReply StateEndpoints::tokenizer(const HttpRequest &request)
{
    const CoordinatorSetup &setup = m_context.setup;
    if (setup.tokenizerModelFile.empty()) {
        return HttpReply::error(404, QStringLiteral("this swarm's %1 tokenizer travels in the join answer")
                                         .arg(QString::fromLatin1(tokenizerKindName(setup.tokenizer->kind()))));
    }
    return fileDownload(setup.tokenizerModelFile, QString::fromStdString(setup.tokenizer->sha256()),
                        request, {});
}

Result<RoundRecord> StateEndpoints::uploadAllowed(const PeerRecord &peer, qint64 stateRound, int &status)
{
    status = 500;
    Result<std::optional<CheckpointRecord>> held = m_context.store.checkpoint(stateRound);
    Result<std::optional<RoundRecord>> producer = m_context.store.round(stateRound - 1);
    if (!held || !producer)
        return makeError("cannot read the rounds");
    status = 409;
    if (*held)
        return makeError("the coordinator already holds state " + std::to_string(stateRound));
    if (!*producer || (*producer)->state != RoundState::Done)
        return makeError("round " + std::to_string(stateRound - 1) + " has not produced an agreed state");
    const RoundRecord &round = **producer;
    status = 500;
    Result<std::vector<ContributionRecord>> reports = m_context.store.contributions(round.number, round.attempt);
    if (!reports)
        return reports.error();
    const bool accepted = std::any_of(reports->begin(), reports->end(), [&](const ContributionRecord &c) {
        return c.keyId == peer.keyId && c.accepted.value_or(false);
    });
    status = 403;
    if (!accepted) {
        return makeError("only a peer whose contribution to round " + std::to_string(round.number)
                         + " was accepted may upload state " + std::to_string(stateRound));
    }
    return round;
}

QString StateEndpoints::refusal(const std::filesystem::path &file, qint64 stateRound, const RoundRecord &round,
                                const ModelConfig &model)
{
    // The config is compared before anything of the file's model is built.
    Result<SwarmStateInfo> info = inspectSwarmState(file, &model);
    if (!info)
        return QStringLiteral("the state file does not check out: %1").arg(toQString(info.error()));
    if (info->round != stateRound)
        return QStringLiteral("the state file holds round %1, not %2").arg(info->round).arg(stateRound);
    if (QString::fromStdString(info->parametersHash) != round.agreedHash)
        return QStringLiteral("the state file's parameters hash differs from round %1's agreed hash").arg(round.number);
    return {};
}

StateEndpoints::Verdict StateEndpoints::recomputed(const Upload &upload, std::int64_t parameterCount,
                                                   const OuterOptimizerOptions &outer, std::int64_t scheduleAdvance)
{
    // The averages were checked when they came; they are the coordinator's own file now.
    Result<std::vector<std::byte>> blob =
        readFileBytes(upload.averages, std::uint64_t(AverageEndpoints::maxAveragesBytes(parameterCount)));
    Result<std::vector<RangeAverage>> ranges =
        blob ? decodeRangeAverages(*blob, parameterCount) : Result<std::vector<RangeAverage>>(blob.error());
    Result<std::vector<float>> average =
        ranges ? assembleAverage(*ranges, parameterCount) : Result<std::vector<float>>(ranges.error());
    if (!average)
        return {QStringLiteral("cannot read round %1's averages: %2").arg(upload.round.number).arg(toQString(average.error()))};
    Result<std::optional<std::string>> difference =
        checkReproducedState(upload.previousState, *average, outer, upload.file->fileName().toStdString(),
                             scheduleAdvance);
    if (!difference) // the coordinator's own inputs: not the uploader's fault
        return {toQString(difference.error())};
    if (!*difference)
        return {};
    return {QStringLiteral("the state file is not the state recomputed from state %1 and its round's averages: %2")
                .arg(upload.round.number)
                .arg(QString::fromStdString(**difference)),
            true};
}

Result<void> StateEndpoints::findInputs(Upload &upload, int &status)
{
    status = 500;
    Result<std::optional<CheckpointRecord>> previous = m_context.store.checkpoint(upload.round.number);
    if (!previous)
        return previous.error();
    status = 409;
    if (!*previous) {
        // Nothing to recompute it from: an agreed hash alone would let the voters of one round
        // put any momentum or schedule beside the true parameters, or any parameters at all.
        // Rounds wait for their starting state (CoordinatorRounds), so this is a state of a round
        // that ran before that rule, or a forgery: either way not taken.
        return makeError("the coordinator does not hold state " + std::to_string(upload.round.number) + ", which state "
                         + std::to_string(upload.stateRound) + " is recomputed from");
    }
    upload.previousState = m_context.setup.checkpointsDir() / (*previous)->fileName.toStdString();
    upload.averages =
        AverageEndpoints::averagesFile(m_context.setup, upload.round.number, upload.round.attempt, upload.keyId);
    std::error_code ec;
    if (!std::filesystem::exists(upload.averages, ec))
        return makeError("post the round's range averages (POST /v1/round/averages) before its state");
    return {};
}

void StateEndpoints::upload(const HttpExchange &exchange)
{
    const HttpRequest &request = exchange.request;
    bool ok = false;
    const qint64 stateRound = request.query().queryItemValue(QStringLiteral("round")).toLongLong(&ok);
    if (!ok || stateRound <= 0)
        return exchange.respond(HttpReply::error(
            400, QStringLiteral("POST /v1/checkpoint needs ?round=R (the round of the state, at least 1)")));
    int status = 0;
    Result<RoundRecord> round = uploadAllowed(exchange.peer, stateRound, status);
    if (!round)
        return exchange.respond(HttpReply::error(status, toQString(round.error())));
    if (!request.bodyFile())
        return exchange.respond(HttpReply::error(400, QStringLiteral("the state file is empty")));

    Upload upload{exchange.peer.keyId, stateRound, *round, request.bodyFile(),
                  QString::fromLatin1(request.bodySha256Hex()), request.contentLength(), {}, {}};
    if (Result<void> found = findInputs(upload, status); !found)
        return exchange.respond(HttpReply::error(status, toQString(found.error())));
    const ModelConfig model = m_context.setup.model;
    const std::int64_t parameterCount = m_context.setup.parameterCount;
    const OuterOptimizerOptions outer{m_context.options.training.outerLr, m_context.options.training.outerMomentum};
    const std::int64_t advance =
        upload.round.scheduleAdvance > 0 ? upload.round.scheduleAdvance : m_context.options.training.innerSteps;
    // Parsing, hashing and recomputing a large state take seconds: off the event loop, the verdict queued back.
    m_checks.start([this, upload, model, parameterCount, outer, advance, reply = exchange.replier()] {
        Verdict verdict{refusal(upload.file->fileName().toStdString(), upload.stateRound, upload.round, model)};
        if (verdict.why.isEmpty())
            verdict = recomputed(upload, parameterCount, outer, advance);
        if (verdict.why.isEmpty() && ::fsync(upload.file->handle()) != 0)
            verdict.why = QStringLiteral("cannot store the upload");
        // The server outlives this job: ~StateEndpoints waits for it.
        QMetaObject::invokeMethod(m_context.server, [this, upload, verdict, reply] { reply(keep(upload, verdict)); },
                                  Qt::QueuedConnection);
    });
}

HttpReply StateEndpoints::keep(const Upload &upload, const Verdict &verdict)
{
    const QString &why = verdict.why;
    const std::filesystem::path incoming = upload.file->fileName().toStdString();
    auto discard = [&](int status, const QString &reason) {
        std::error_code ec;
        std::filesystem::remove(incoming, ec);
        qCWarning(lcCoordinator) << "refused state" << upload.stateRound << "from" << upload.keyId << ":" << reason;
        return HttpReply::error(status, reason);
    };
    if (verdict.forged) {
        if (Result<bool> banned = m_context.reputation.offend(upload.keyId, QStringLiteral("forged state"), why); !banned)
            qCWarning(lcCoordinator) << "cannot record the offence:" << toQString(banned.error());
    }
    if (!why.isEmpty())
        return discard(400, why);
    // Another member's upload of the same state may have been kept while this one was checked.
    Result<std::optional<CheckpointRecord>> held = m_context.store.checkpoint(upload.stateRound);
    if (!held)
        return discard(500, toQString(held.error()));
    if (*held)
        return discard(409, QStringLiteral("the coordinator already holds state %1").arg(upload.stateRound));

    const QString name = QStringLiteral("round-%1.safetensors").arg(upload.stateRound);
    std::error_code ec;
    std::filesystem::rename(incoming, m_context.setup.checkpointsDir() / name.toStdString(), ec);
    if (ec)
        return discard(500, QStringLiteral("cannot keep the state file: %1").arg(QString::fromStdString(ec.message())));
    const CheckpointRecord checkpoint{upload.stateRound, name,          upload.sha256,
                                      upload.bytes,      upload.round.agreedHash, std::nullopt};
    if (Result<void> added = m_context.store.addCheckpoint(checkpoint); !added)
        return HttpReply::error(500, toQString(added.error()));
    if (checkpoint.round > m_context.setup.checkpoint.round)
        m_context.setup.checkpoint = checkpoint;
    qCInfo(lcCoordinator) << "state" << upload.stateRound << "uploaded by" << upload.keyId << "is now current";
    AverageEndpoints::forgetAveragesBefore(m_context.setup, upload.stateRound);
    // Several instances: the leader validates it, whichever instance it came to (CoordinatorServer::tick).
    if (!m_context.options.sharedStore)
        m_context.validation.validate(checkpoint);
    return HttpReply::json(CheckpointInfo{upload.stateRound, checkpoint.sha256, checkpoint.bytes}.toJson());
}

} // namespace swarmtrain
