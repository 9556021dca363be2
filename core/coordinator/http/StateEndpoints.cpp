#include "StateEndpoints.h"

#include "CoordinatorLog.h"
#include "FileDownload.h"
#include "FileIo.h"
#include "QtText.h"
#include "Sha256.h"
#include "SwarmState.h"
#include "ControlMessages.h"

#include <QUrlQuery>

namespace swarmtrain {

void StateEndpoints::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/checkpoint", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(checkpoint(exchange.request)); }));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/shards/", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(shard(exchange.request, exchange.pathTail)); }));
    Route uploadRoute = route(QHttpServerRequest::Method::Post, "/v1/checkpoint", RouteAccess::Peer, RouteBody::Bytes,
                              [this](HttpExchange &exchange) { exchange.respond(upload(exchange.peer, exchange.request)); });
    uploadRoute.maxBodyBytes = [this] { return maxStateBytes(); };
    routes.add(std::move(uploadRoute));
}

HttpReply StateEndpoints::checkpoint(const QHttpServerRequest &request)
{
    const CheckpointRecord &checkpoint = m_context.setup.checkpoint;
    return fileDownload(m_context.setup.checkpointsDir() / checkpoint.fileName.toStdString(), checkpoint.sha256,
                        request.value("Range"), {{"X-Swarm-Round", QByteArray::number(checkpoint.round)}});
}

HttpReply StateEndpoints::shard(const QHttpServerRequest &request, const QString &id)
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

QString StateEndpoints::refusal(const std::filesystem::path &file, qint64 stateRound, const RoundRecord &round)
{
    // The config is compared before anything of the file's model is built.
    Result<SwarmStateInfo> info = inspectSwarmState(file, &m_context.setup.model);
    if (!info)
        return QStringLiteral("the state file does not check out: %1").arg(toQString(info.error()));
    if (info->round != stateRound)
        return QStringLiteral("the state file holds round %1, not %2").arg(info->round).arg(stateRound);
    if (QString::fromStdString(info->parametersHash) != round.agreedHash)
        return QStringLiteral("the state file's parameters hash differs from round %1's agreed hash").arg(round.number);
    return {};
}

HttpReply StateEndpoints::upload(const PeerRecord &peer, const QHttpServerRequest &request)
{
    bool ok = false;
    const qint64 stateRound = request.query().queryItemValue(QStringLiteral("round")).toLongLong(&ok);
    if (!ok || stateRound <= 0)
        return HttpReply::error(400, QStringLiteral("POST /v1/checkpoint needs ?round=R (the round of the state, at least 1)"));
    int status = 0;
    Result<RoundRecord> round = uploadAllowed(peer, stateRound, status);
    if (!round)
        return HttpReply::error(status, toQString(round.error()));

    const QByteArray body = request.body();
    const std::filesystem::path incoming = m_context.setup.checkpointsDir() / ("incoming-" + peer.keyId.toStdString());
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(body.constData()), std::size_t(body.size()));
    if (Result<void> written = writeFileAtomically(incoming, bytes); !written)
        return HttpReply::error(507, QStringLiteral("cannot store the upload: %1").arg(toQString(written.error())));
    auto discard = [&](int status, const QString &why) {
        std::error_code ec;
        std::filesystem::remove(incoming, ec);
        qCWarning(lcCoordinator) << "refused state" << stateRound << "from" << peer.keyId << ":" << why;
        return HttpReply::error(status, why);
    };
    if (const QString why = refusal(incoming, stateRound, *round); !why.isEmpty())
        return discard(400, why);

    const QString name = QStringLiteral("round-%1.safetensors").arg(stateRound);
    std::error_code ec;
    std::filesystem::rename(incoming, m_context.setup.checkpointsDir() / name.toStdString(), ec);
    if (ec)
        return discard(500, QStringLiteral("cannot keep the state file: %1").arg(QString::fromStdString(ec.message())));
    const CheckpointRecord checkpoint{stateRound, name, QString::fromStdString(Sha256::hexOf(bytes)), body.size(),
                                      round->agreedHash, std::nullopt};
    if (Result<void> added = m_context.store.addCheckpoint(checkpoint); !added)
        return HttpReply::error(500, toQString(added.error()));
    if (checkpoint.round > m_context.setup.checkpoint.round)
        m_context.setup.checkpoint = checkpoint;
    qCInfo(lcCoordinator) << "state" << stateRound << "uploaded by" << peer.keyId << "is now current";
    m_context.validation.validate(checkpoint);
    return HttpReply::json(CheckpointInfo{stateRound, checkpoint.sha256, checkpoint.bytes}.toJson());
}

} // namespace swarmtrain
