#include "RoundEndpoints.h"

#include "QtText.h"

#include <algorithm>

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
    // Before the contribution, which may close the round: the averages it applied count then.
    if (Result<void> kept = keepAverages(peer, request); !kept)
        return HttpReply::error(500, toQString(kept.error()));
    Result<ContributionVerdict> verdict = m_context.rounds.contribute(c);
    if (!verdict)
        return HttpReply::error(409, toQString(verdict.error()));
    const ContributionAnswer answer{verdict->accepted, verdict->credit, verdict->uploadCheckpoint, c.round + 1};
    return HttpReply::json(answer.toJson());
}

Result<void> RoundEndpoints::keepAverages(const PeerRecord &peer, const ContributionRequest &request)
{
    if (request.averages.empty())
        return {};
    // Under the attempt the contribution is about to be counted in; of another round, none.
    Result<RoundRecord> round = m_context.rounds.current();
    if (!round)
        return round.error();
    const bool member = std::any_of(round->members.begin(), round->members.end(),
                                    [&](const RoundMember &m) { return m.keyId == peer.keyId; });
    if (round->number != request.round || round->state != RoundState::Running || !member)
        return {};
    // A repeated contribution (its answer lost) is refused as such; its averages are kept already.
    Result<std::vector<AverageReportRecord>> kept = m_context.store.averageReports(request.round, round->attempt);
    if (!kept)
        return kept.error();
    if (std::any_of(kept->begin(), kept->end(), [&](const AverageReportRecord &r) { return r.keyId == peer.keyId; }))
        return {};
    std::vector<AverageReportRecord> reports;
    for (const AppliedAverage &average : request.averages)
        reports.push_back({request.round, round->attempt, peer.keyId, average.begin, average.sha256});
    return m_context.store.addAverageReports(reports);
}

} // namespace swarmtrain
