#include "PeerEndpoints.h"

#include "CoordinatorLog.h"
#include "QtText.h"
#include "Admission.h"
#include "ReachabilityProbe.h"

#include <QHostAddress>
#include <QJsonDocument>

#include <algorithm>

namespace swarmtrain {

namespace {

TokenizerInfo tokenizerInfo(const Tokenizer &tokenizer)
{
    std::string utf8;
    for (char32_t codePoint : tokenizer.vocabulary())
        appendUtf8(utf8, codePoint);
    return {QString::fromLatin1(tokenizerKindName(tokenizer.kind())), QString::fromStdString(utf8),
            QString::fromStdString(tokenizer.sha256()), tokenizer.vocabSize()};
}

// "*:PORT" from a peer that does not know its public address: the address its request came from.
QString resolveEndpoint(const QString &endpoint, const HttpRequest &request)
{
    if (!endpoint.startsWith(QLatin1StringView("*:")))
        return endpoint;
    QHostAddress from = request.remoteAddress();
    bool mapped = false;
    const QHostAddress v4(from.toIPv4Address(&mapped));
    if (mapped)
        from = v4;
    const QString shown = from.protocol() == QAbstractSocket::IPv6Protocol ? QStringLiteral("[%1]").arg(from.toString())
                                                                           : from.toString();
    return shown + endpoint.mid(1);
}

} // namespace

void PeerEndpoints::addRoutes(RouteTable &routes)
{
    Route joinRoute = route(QHttpServerRequest::Method::Post, "/v1/join", RouteAccess::Joining, RouteBody::Json,
                            decoding<JoinRequest>([this](HttpExchange &exchange, const JoinRequest &request) {
                                join(exchange, request);
                            }));
    joinRoute.joiningKey = &JoinRequest::publicKeyOf;
    routes.add(std::move(joinRoute));
    routes.add(route(QHttpServerRequest::Method::Post, "/v1/heartbeat", RouteAccess::Peer, RouteBody::Json,
                     decoding<HeartbeatRequest>([this](HttpExchange &exchange, const HeartbeatRequest &request) {
                         exchange.respond(heartbeat(exchange.peer, request));
                     })));
}

Result<void> PeerEndpoints::admit(const PeerRecord &peer, const JoinRequest &request, const QString &endpointHost,
                                  const QHostAddress &from, int &status)
{
    status = 403;
    if (Result<void> admitted = admission::checkAdmission(m_context.options.trust, peer.keyId, request.invite); !admitted)
        return admitted;
    status = 400;
    if (!endpointHost.isEmpty()) {
        if (Result<void> own = admission::checkEndpointHost(endpointHost, from); !own)
            return own;
    }
    const TrustSettings &trust = m_context.options.trust;
    const qint64 limit = std::max(trust.maxPeersPerAddress, trust.maxPeersPerSubnet);
    if (limit <= 0)
        return {}; // no limits: nothing to count
    status = 500;
    Result<NearbyPeers> nearby =
        m_context.store.onlinePeersNear(from.toString(), m_context.rounds.onlineSinceMs(), peer.keyId, limit);
    if (!nearby)
        return nearby.error();
    status = 429;
    return admission::checkAddressLimits(trust, from, *nearby);
}

void PeerEndpoints::join(HttpExchange &exchange, const JoinRequest &request)
{
    PeerRecord peer = exchange.peer;
    const QString endpoint = resolveEndpoint(request.endpoint, exchange.request);
    QString host;
    quint16 port = 0;
    if (!endpoint.isEmpty() && !splitEndpoint(endpoint, host, port))
        return exchange.respond(HttpReply::error(400, QStringLiteral("endpoint must be \"host:port\", \"*:port\" or \"\"")));
    const QHostAddress from = normalizedAddress(exchange.request.remoteAddress());
    int status = 0;
    if (Result<void> admitted = admit(peer, request, host, from, status); !admitted) {
        qCWarning(lcCoordinator) << "refused the join of" << peer.keyId << "from" << from.toString() << ":"
                                 << admitted.error().message.c_str();
        return exchange.respond(HttpReply::error(status, toQString(admitted.error())));
    }
    peer.address = from.toString();
    if (peer.joinedMs == 0) {
        Result<qint64> ordinal = m_context.store.nextOrdinal();
        if (!ordinal)
            return exchange.respond(HttpReply::error(500, toQString(ordinal.error())));
        peer.ordinal = *ordinal;
        for (const std::string &id : dealShards(peer.ordinal, m_context.setup.manifest->shards()))
            peer.assignedShards.append(QString::fromStdString(id));
        peer.joinedMs = m_context.clock();
    }
    peer.deviceJson = QJsonDocument(request.device.toJson()).toJson(QJsonDocument::Compact);
    peer.endpoint = endpoint;
    peer.clientVersion = request.clientVersion;
    peer.displayName = request.displayName; // decoding validated it; a later join may change it
    peer.lastSeenMs = m_context.clock();

    // The answer waits for the reachability probe; the peer is stored only then.
    auto finish = [this, peer, reply = exchange.replier()](bool reachable) mutable {
        peer.reachable = reachable;
        if (Result<void> saved = m_context.store.savePeer(peer); !saved)
            return reply(HttpReply::error(500, toQString(saved.error())));
        qCInfo(lcCoordinator) << "peer" << peer.keyId << "joined, endpoint" << peer.endpoint
                              << (reachable ? "reachable" : "not reachable");
        reply(joinAnswer(peer));
    };
    if (endpoint.isEmpty())
        return finish(false);
    probeTcpEndpoint(host, port, m_context.options.probeTimeoutMs, m_context.server, std::move(finish));
}

HttpReply PeerEndpoints::joinAnswer(const PeerRecord &peer)
{
    Result<RoundRecord> round = m_context.rounds.current();
    if (!round)
        return HttpReply::error(500, toQString(round.error()));
    const CoordinatorSetup &setup = m_context.setup;
    JoinAnswer answer;
    answer.peerId = peer.keyId;
    answer.model = setup.model;
    answer.tokenizer = tokenizerInfo(*setup.tokenizer);
    answer.training = m_context.options.training;
    answer.shards = setup.manifest->shards();
    answer.assignedShards = peer.assignedShards;
    answer.round = round->number;
    answer.heartbeatIntervalMs = m_context.options.rounds.heartbeatIntervalMs;
    answer.reachable = peer.reachable;
    answer.checkpoint = {setup.checkpoint.round, setup.checkpoint.sha256, setup.checkpoint.bytes};
    if (m_context.pipeline.enabled())
        answer.pipeline = m_context.pipeline.settings();
    return HttpReply::json(answer.toJson());
}

HttpReply PeerEndpoints::heartbeat(const PeerRecord &peer, const HeartbeatRequest &request)
{
    const bool left = request.state == QLatin1StringView("left");
    const qint64 seenMs = left ? 0 : m_context.clock();
    // No client trains past a round's cap; what is below it is weighed when the round starts.
    if (const int cap = m_context.options.training.stepCap(); request.steps > cap) {
        (void)m_context.store.countRejectedRequest(peer.keyId);
        return HttpReply::error(400, QStringLiteral("the heartbeat claims %1 inner steps; a round holds at most %2")
                                         .arg(request.steps)
                                         .arg(cap));
    }
    if (Result<void> recorded = m_context.links.record(peer.keyId, request.links, m_context.clock()); !recorded)
        return HttpReply::error(500, toQString(recorded.error()));
    if (Result<void> saved = m_context.store.recordHeartbeat(peer.keyId, request.state, request.reason,
                                                             request.tokensPerSecond, request.baseRound, request.steps,
                                                             seenMs);
        !saved)
        return HttpReply::error(500, toQString(saved.error()));
    // Only a peer becoming ready or leaving can start a round now; timeouts are the ticker's.
    // (Advancing reads every peer: doing it on each heartbeat made it the swarm's bottleneck.)
    if ((request.state == QLatin1StringView("ready") || left) && !m_context.pipeline.enabled()) {
        if (Result<void> advanced = m_context.rounds.advance(); !advanced)
            return HttpReply::error(500, toQString(advanced.error()));
    }
    Result<RoundRecord> round = m_context.rounds.current();
    if (!round)
        return HttpReply::error(500, toQString(round.error()));
    const bool member = std::any_of(round->members.begin(), round->members.end(),
                                    [&](const RoundMember &m) { return m.keyId == peer.keyId; });
    HeartbeatAnswer answer;
    answer.round = round->number;
    answer.roundState = roundStateName(round->state);
    answer.deadlineMs = round->deadlineMs;
    answer.member = round->state == RoundState::Running && member;
    answer.checkpointRound = m_context.setup.checkpoint.round;
    answer.budgetMs = m_context.rounds.budgetMs();
    answer.straggler = m_context.rounds.isStraggler(request.tokensPerSecond);
    Result<std::optional<std::pair<ContributionRecord, ContributionVerdict>>> last =
        m_context.rounds.lastVerdict(peer.keyId);
    if (last && *last) {
        const auto &[contribution, verdict] = **last;
        answer.lastContribution =
            ContributionVerdictInfo{contribution.round, verdict.accepted, verdict.credit, verdict.uploadCheckpoint};
    }
    if (!left)
        answer.probe = m_context.links.probePeers(peer, m_context.clock());
    if (Result<void> tasks = m_context.verification.tasksFor(peer.keyId, answer.uploadUpdateRound, answer.spotCheck);
        !tasks)
        return HttpReply::error(500, toQString(tasks.error()));
    return HttpReply::json(answer.toJson());
}

} // namespace swarmtrain
