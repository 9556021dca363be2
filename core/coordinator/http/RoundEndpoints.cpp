#include "RoundEndpoints.h"

#include "QtText.h"

namespace swarmtrain {

void RoundEndpoints::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/round", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(round()); }));
    routes.add(route(QHttpServerRequest::Method::Post, "/v1/contribution", RouteAccess::Peer, RouteBody::Json,
                     decoding<ContributionRequest>([this](HttpExchange &exchange, const ContributionRequest &request) {
                         exchange.respond(contribution(exchange.peer, request));
                     })));
}

HttpReply RoundEndpoints::round()
{
    Result<RoundRecord> round = m_context.rounds.current();
    if (!round)
        return HttpReply::error(500, toQString(round.error()));
    RoundAnswer answer;
    answer.round = round->number;
    answer.attempt = round->attempt;
    answer.state = roundStateName(round->state);
    answer.deadlineMs = round->deadlineMs;
    answer.parameterCount = m_context.setup.parameterCount;
    answer.share = round->share;
    answer.scheduleAdvance = round->scheduleAdvance;
    for (const RoundMember &member : round->members) {
        Result<std::optional<PeerRecord>> peer = m_context.store.peer(member.keyId);
        const bool found = peer && *peer;
        answer.members.push_back({member.keyId, found ? (*peer)->publicKey : QByteArray(),
                                  found ? (*peer)->endpoint : QString(), member.reachable, member.begin, member.end,
                                  member.probation, member.steps, member.staleness});
    }
    return HttpReply::json(answer.toJson());
}

HttpReply RoundEndpoints::contribution(const PeerRecord &peer, const ContributionRequest &request)
{
    ContributionRecord c;
    c.keyId = peer.keyId;
    c.round = request.round;
    c.tokens = request.tokens;
    c.flops = request.flops;
    c.seconds = request.seconds;
    c.loss = request.loss;
    c.paramsHash = request.paramsHash;
    c.bytesUp = request.bytesUp;
    c.bytesDown = request.bytesDown;
    // A claim no honest client makes counts against its signer, and repeats ban it.
    if (Result<void> honest = m_context.rounds.settings().work.checkClaim(c); !honest) {
        Result<bool> banned = m_context.reputation.offend(peer.keyId, QStringLiteral("claim"), toQString(honest.error()));
        if (!banned)
            return HttpReply::error(500, toQString(banned.error()));
        return HttpReply::error(400, QStringLiteral("refused: %1").arg(toQString(honest.error())));
    }
    // What it says of others' pieces counts when the round closes, which this report may do.
    if (Result<void> noted =
            m_context.verification.recordReports(peer, c.round, request.refused, request.leftOut, request.disputed);
        !noted)
        return HttpReply::error(500, toQString(noted.error()));
    Result<ContributionVerdict> verdict = m_context.rounds.contribute(c);
    if (!verdict)
        return HttpReply::error(409, toQString(verdict.error()));
    if (Result<void> kept = keepAverages(peer, request); !kept)
        return HttpReply::error(500, toQString(kept.error()));
    const ContributionAnswer answer{verdict->accepted, verdict->credit, verdict->uploadCheckpoint, c.round + 1};
    return HttpReply::json(answer.toJson());
}

Result<void> RoundEndpoints::keepAverages(const PeerRecord &peer, const ContributionRequest &request)
{
    if (request.averages.empty())
        return {};
    // The attempt the contribution was counted in.
    Result<std::optional<ContributionRecord>> counted = m_context.store.lastContribution(peer.keyId);
    if (!counted)
        return counted.error();
    if (!*counted || (*counted)->round != request.round)
        return makeError("cannot find the contribution just recorded");
    std::vector<AverageReportRecord> reports;
    for (const AppliedAverage &average : request.averages)
        reports.push_back({request.round, (*counted)->attempt, peer.keyId, average.begin, average.sha256});
    return m_context.store.addAverageReports(reports);
}

} // namespace swarmtrain
