#include "StateEndpoints.h"

#include "CoordinatorLog.h"
#include "FileDownload.h"
#include "QtText.h"
#include "SwarmState.h"
#include "ControlMessages.h"

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
    Route uploadRoute = route(QHttpServerRequest::Method::Post, "/v1/checkpoint", RouteAccess::Peer, RouteBody::Bytes,
                              [this](HttpExchange &exchange) { upload(exchange); });
    uploadRoute.maxBodyBytes = [this] { return maxStateBytes(); };
    routes.add(std::move(uploadRoute));
}

HttpReply StateEndpoints::checkpoint(const HttpRequest &request)
{
    // ?round=R: an earlier state the coordinator still holds (what a spot check starts from).
    CheckpointRecord checkpoint = m_context.setup.checkpoint;
    if (const QString round = request.query().queryItemValue(QStringLiteral("round")); !round.isEmpty()) {
        bool ok = false;
        Result<std::optional<CheckpointRecord>> held = m_context.store.checkpoint(round.toLongLong(&ok));
        if (!ok || !held || !*held)
            return HttpReply::error(404, QStringLiteral("the coordinator holds no state %1").arg(round.left(20)));
        checkpoint = **held;
    }
    return fileDownload(m_context.setup.checkpointsDir() / checkpoint.fileName.toStdString(), checkpoint.sha256,
                        request.value("Range"), {{"X-Swarm-Round", QByteArray::number(checkpoint.round)}});
}

HttpReply StateEndpoints::shard(const HttpRequest &request, const QString &id)
{
    const ShardInfo *shard = m_context.setup.manifest->find(id.toStdString());
    if (!shard)
        return HttpReply::error(404, QStringLiteral("no such shard"));
    return fileDownload(m_context.setup.manifest->shardPath(*shard), QString::fromStdString(shard->sha256),
                        request.value("Range"), {});
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
                                const GptConfig &model)
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

    const Upload upload{exchange.peer.keyId, stateRound, *round, request.bodyFile(),
                        QString::fromLatin1(request.bodySha256Hex()), request.contentLength()};
    const GptConfig model = m_context.setup.model;
    // Parsing and hashing a large state takes seconds: off the event loop, the verdict queued back.
    m_checks.start([this, upload, model, reply = exchange.replier()] {
        QString why = refusal(upload.file->fileName().toStdString(), upload.stateRound, upload.round, model);
        if (why.isEmpty() && ::fsync(upload.file->handle()) != 0)
            why = QStringLiteral("cannot store the upload");
        // The server outlives this job: ~StateEndpoints waits for it.
        QMetaObject::invokeMethod(m_context.server, [this, upload, why, reply] { reply(keep(upload, why)); },
                                  Qt::QueuedConnection);
    });
}

HttpReply StateEndpoints::keep(const Upload &upload, const QString &why)
{
    const std::filesystem::path incoming = upload.file->fileName().toStdString();
    auto discard = [&](int status, const QString &reason) {
        std::error_code ec;
        std::filesystem::remove(incoming, ec);
        qCWarning(lcCoordinator) << "refused state" << upload.stateRound << "from" << upload.keyId << ":" << reason;
        return HttpReply::error(status, reason);
    };
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
    m_context.validation.validate(checkpoint);
    return HttpReply::json(CheckpointInfo{upload.stateRound, checkpoint.sha256, checkpoint.bytes}.toJson());
}

} // namespace swarmtrain
