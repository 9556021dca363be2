#include "StatusEndpoint.h"

#include "ControlMessages.h"

namespace swarmtrain {

namespace {
// Beyond the client's top 20, so a PC ranked lower still finds its own row and rank.
constexpr int kLeaderboardSize = 100;
}

void StatusEndpoint::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/status", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(status()); }));
}

HttpReply StatusEndpoint::status()
{
    Result<RoundRecord> round = m_context.rounds.current();
    // The peers online and how many there are: no read of every peer.
    Result<std::vector<PeerRecord>> online = m_context.store.peersSeenSince(m_context.rounds.onlineSinceMs());
    Result<qint64> joined = m_context.store.peerCount();
    Result<std::vector<PeerRecord>> leaders = m_context.store.leaderboard(kLeaderboardSize);
    Result<std::vector<CheckpointRecord>> checkpoints = m_context.store.checkpoints();
    if (!round || !online || !joined || !leaders || !checkpoints)
        return HttpReply::error(500, QStringLiteral("cannot read the swarm's state"));
    StatusAnswer answer;
    answer.round = round->number;
    answer.roundState = roundStateName(round->state);
    for (const PeerRecord &peer : *online) {
        ++answer.peers;
        answer.tokensPerSecond += peer.tokensPerSecond;
    }
    answer.peersTotal = *joined;
    answer.checkpointRound = m_context.setup.checkpoint.round;
    answer.model = m_context.setup.model;
    answer.parameterCount = m_context.setup.parameterCount;
    if (m_context.setup.manifest)
        answer.validationTokensPerByte = m_context.setup.manifest->validationTokensPerByte();
    for (const CheckpointRecord &checkpoint : *checkpoints) {
        if (checkpoint.validationLoss)
            answer.validationLossHistory.push_back({checkpoint.round, *checkpoint.validationLoss});
    }
    for (const PeerRecord &peer : *leaders)
        answer.leaderboard.push_back({peer.keyId, peer.credit, peer.tokens, peer.displayName});
    if (m_context.pipeline.enabled())
        answer.pipeline = m_context.pipeline.status();
    return HttpReply::json(answer.toJson());
}

} // namespace swarmtrain
