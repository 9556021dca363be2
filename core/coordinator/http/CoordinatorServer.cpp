#include "CoordinatorServer.h"

#include "CoordinatorLog.h"
#include "PeerEndpoints.h"
#include "QtText.h"
#include "RoundEndpoints.h"
#include "ScheduleEndpoint.h"
#include "StateEndpoints.h"
#include "StatusEndpoint.h"

#include <QDateTime>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonDocument>
#include <QPointer>
#include <QSslCertificate>
#include <QSslKey>
#include <QTcpSocket>

#include <openssl/rand.h>

#include <memory>

namespace swarmtrain {

namespace {

constexpr qint64 kPeersRefreshMs = 2000;

qint64 wallClockMs() { return QDateTime::currentMSecsSinceEpoch(); }

QByteArray requestTarget(const QHttpServerRequest &request)
{
    const QUrl url = request.url();
    QByteArray target = url.path(QUrl::FullyEncoded).toUtf8();
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toUtf8();
    return target;
}

QByteArray methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get:
        return "GET";
    case QHttpServerRequest::Method::Post:
        return "POST";
    case QHttpServerRequest::Method::Put:
        return "PUT";
    case QHttpServerRequest::Method::Delete:
        return "DELETE";
    case QHttpServerRequest::Method::Head:
        return "HEAD";
    default:
        return "OTHER";
    }
}

void send(QHttpServerResponder &responder, const HttpReply &reply)
{
    responder.writeStatusLine(QHttpServerResponder::StatusCode(reply.status));
    responder.writeHeader("Content-Type", reply.contentType);
    responder.writeHeader("Content-Length", QByteArray::number(reply.body.size()));
    for (const auto &[name, value] : reply.headers)
        responder.writeHeader(name, value);
    responder.writeBody(reply.body);
}

} // namespace

CoordinatorServerOptions CoordinatorServerOptions::from(const CoordinatorConfig &config, qint64 parameterCount)
{
    CoordinatorServerOptions options;
    options.training = config.training;
    options.rounds.parameterCount = parameterCount;
    options.rounds.heartbeatIntervalMs = qint64(config.heartbeatIntervalSeconds * 1000);
    options.rounds.gatherTimeoutMs = qint64(config.gatherTimeoutSeconds * 1000);
    options.rounds.roundDeadlineMs = qint64(config.roundDeadlineSeconds * 1000);
    options.rounds.minPeers = config.minPeers;
    const GptConfig &m = config.model;
    options.rounds.work.tokensPerMember = qint64(config.training.innerSteps) * config.training.batchSize * m.blockSize;
    options.rounds.work.flopsPerToken = 6.0 * double(parameterCount) + 12.0 * m.nLayer * m.nEmbd * m.blockSize;
    options.trust = config.trust;
    options.evalIters = config.evalIters;
    options.schedule.stages = config.stages;
    options.schedule.seconds = config.scheduleSeconds;
    options.bandwidthRanges = config.bandwidthRanges;
    // A pair of peers stays partnered for a few heartbeats, so both sides hear of each other.
    options.links.pairTtlMs = std::max<qint64>(options.links.pairTtlMs, 5 * options.rounds.heartbeatIntervalMs);
    return options;
}

CoordinatorServer::CoordinatorServer(CoordinatorSetup &setup, CoordinatorServerOptions options, Clock clock,
                                     QObject *parent)
    : QAbstractHttpServer(parent)
    , m_setup(setup)
    , m_options(options)
    , m_clock(clock ? std::move(clock) : Clock(wallClockMs))
    , m_rounds(*setup.store, options.rounds, m_clock)
    , m_verifier(options.maxClockSkewMs)
    , m_validation(setup, options.training.batchSize, options.evalIters, options.training.seed)
    , m_links(*setup.store, options.links)
    , m_schedule(setup.model, options.training, options.schedule)
    , m_reputation(*setup.store, m_options.trust, m_clock)
    , m_context{this, setup, *setup.store, m_rounds, m_options, m_clock, m_validation, m_links, m_schedule, m_reputation}
{
    m_endpoints.push_back(std::make_unique<PeerEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<RoundEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<StateEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<StatusEndpoint>(m_context));
    m_endpoints.push_back(std::make_unique<ScheduleEndpoint>(m_context));
    for (const std::unique_ptr<EndpointGroup> &group : m_endpoints)
        group->addRoutes(m_routes);
    m_rounds.setEstablished([this](const PeerRecord &peer) { return m_reputation.established(peer); });
    if (m_options.bandwidthRanges)
        m_rounds.setOwnerWeights([this](const std::vector<RoundMember> &members) { return ownerWeights(members); });
    connect(&m_validation, &StateValidation::recorded, this, &CoordinatorServer::validationLossRecorded);
    connect(&m_ticker, &QTimer::timeout, this, &CoordinatorServer::tick);
}

CoordinatorServer::~CoordinatorServer()
{
    m_validation.waitForDone();
    m_schedule.waitForDone();
}

Result<quint16> CoordinatorServer::start(const QHostAddress &address, quint16 port,
                                         const std::optional<TlsIdentity> &tls)
{
    Result<RoundRecord> round = m_rounds.initialize(m_setup.checkpoint.round);
    if (!round)
        return round.error();
    if (Result<void> token = loadInviteToken(); !token)
        return token.error();
    m_verifier.refuseSignedBefore(m_clock());
    if (Result<void> loaded = m_links.load(m_clock()); !loaded)
        return loaded.error();
    refreshPeers();
    if (tls) {
        const QSslCertificate certificate(tls->certificatePem, QSsl::Pem);
        QSslKey key(tls->privateKeyPem, QSsl::Ec, QSsl::Pem);
        if (key.isNull())
            key = QSslKey(tls->privateKeyPem, QSsl::Rsa, QSsl::Pem);
        if (certificate.isNull() || key.isNull())
            return makeError("the TLS certificate or key cannot be read (PEM, EC or RSA)");
        sslSetup(certificate, key);
    }
    const quint16 bound = listen(address, port);
    if (bound == 0)
        return makeError("cannot listen on " + address.toString().toStdString() + ":" + std::to_string(port));
    if (m_options.tickMs > 0)
        m_ticker.start(m_options.tickMs);
    if (!m_setup.checkpoint.validationLoss)
        m_validation.validate(m_setup.checkpoint);
    return bound;
}

Result<void> CoordinatorServer::loadInviteToken()
{
    if (m_options.trust.admission != Admission::Invite || !m_options.trust.inviteToken.isEmpty())
        return {};
    const QString key = QStringLiteral("invite_token");
    Result<std::optional<QString>> stored = m_setup.store->meta(key);
    if (!stored)
        return stored.error();
    if (!*stored) {
        // 128 random bits, kept so invite links already given out stay valid across restarts.
        QByteArray random(16, '\0');
        if (RAND_bytes(reinterpret_cast<unsigned char *>(random.data()), int(random.size())) != 1)
            return makeError("cannot make an invite token: no randomness");
        const QByteArray token = random.toHex();
        if (Result<void> saved = m_setup.store->setMeta(key, QString::fromLatin1(token)); !saved)
            return saved.error();
        *stored = QString::fromLatin1(token);
    }
    m_options.trust.inviteToken = **stored;
    return {};
}

void CoordinatorServer::tick()
{
    if (Result<void> advanced = m_rounds.advance(); !advanced)
        qCWarning(lcCoordinator) << "cannot advance the round:" << advanced.error().message.c_str();
    if (m_clock() - m_peersRefreshedMs >= kPeersRefreshMs)
        refreshPeers();
}

void CoordinatorServer::refreshPeers()
{
    const qint64 now = m_clock();
    m_peersRefreshedMs = now;
    Result<std::vector<PeerRecord>> peers = m_setup.store->peers();
    if (!peers) {
        qCWarning(lcCoordinator) << "cannot read the peers:" << peers.error().message.c_str();
        return;
    }
    std::vector<PeerRecord> online;
    for (PeerRecord &peer : *peers) {
        if (m_rounds.isOnline(peer))
            online.push_back(std::move(peer));
    }
    m_schedule.update(online, [this, now](const std::vector<QString> &ids) { return m_links.matrix(ids, now); }, now);
    m_links.setOnlinePeers(std::move(online), now);
}

std::vector<double> CoordinatorServer::ownerWeights(const std::vector<RoundMember> &members) const
{
    std::vector<QString> ids;
    for (const RoundMember &member : members)
        ids.push_back(member.keyId);
    return m_links.uploadBandwidths(ids, m_clock());
}

void CoordinatorServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    QHttpServerResponder responder = makeResponder(request, socket);
    send(responder, HttpReply::error(404, QStringLiteral("no such endpoint")));
}

bool CoordinatorServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // The answer may go out after this returns (a join waits for its probe): the responder is
    // kept until then, and dropped unsent when the connection went away meanwhile.
    auto responder = std::make_shared<QHttpServerResponder>(makeResponder(request, socket));
    auto sent = std::make_shared<bool>(false);
    const QPointer<QTcpSocket> alive(socket);
    HttpExchange exchange(request, requestTarget(request), [responder, sent, alive](const HttpReply &reply) {
        if (*sent || !alive)
            return;
        *sent = true;
        send(*responder, reply);
    });
    const RouteTable::Match match = m_routes.match(request.method(), request.url().path());
    if (!match.route) {
        exchange.respond(match.status == 405 ? HttpReply::error(405, QStringLiteral("method not allowed"))
                                             : HttpReply::error(404, QStringLiteral("no such endpoint")));
        return true;
    }
    exchange.pathTail = match.pathTail;
    dispatch(*match.route, exchange);
    return true;
}

void CoordinatorServer::dispatch(const Route &route, HttpExchange &exchange)
{
    const QHttpServerRequest &request = exchange.request;
    const qint64 limit = route.maxBodyBytes();
    if (request.body().size() > limit) {
        qCWarning(lcCoordinator) << "refused" << exchange.target << "with a body of" << request.body().size()
                                 << "bytes from" << request.value(kKeyIdHeader);
        return exchange.respond(
            HttpReply::error(413, QStringLiteral("the request body is larger than %1 bytes").arg(limit)));
    }
    const auto parseJson = [&]() {
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(request.body(), &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject())
            return false;
        exchange.json = document.object();
        return true;
    };
    const HttpReply notAnObject = HttpReply::error(400, QStringLiteral("the body is not a JSON object"));
    std::optional<QByteArray> joiningKey;
    if (route.access == RouteAccess::Joining) {
        if (!parseJson())
            return exchange.respond(notAnObject);
        Result<QByteArray> key = route.joiningKey(exchange.json);
        if (!key)
            return exchange.respond(HttpReply::error(400, toQString(key.error())));
        joiningKey = *key;
    }
    if (route.access != RouteAccess::Public) {
        HttpReply failure;
        if (Result<void> signedBy = authenticate(exchange, joiningKey, failure); !signedBy)
            return exchange.respond(failure);
    }
    if (route.body == RouteBody::Json && route.access != RouteAccess::Joining && !parseJson())
        return exchange.respond(notAnObject);
    route.handler(exchange);
}

Result<void> CoordinatorServer::authenticate(HttpExchange &exchange, const std::optional<QByteArray> &joiningKey,
                                             HttpReply &failure)
{
    const QHttpServerRequest &request = exchange.request;
    const QString keyId = QString::fromLatin1(request.value(kKeyIdHeader));
    auto reject = [&](const QString &reason, bool known) -> Error {
        qCWarning(lcCoordinator).noquote() << "rejected" << methodName(request.method()) << exchange.target
                                           << "from key" << (keyId.isEmpty() ? QStringLiteral("(none)") : keyId)
                                           << "from" << request.remoteAddress().toString() << ":" << reason;
        if (known) {
            if (Result<void> counted = m_setup.store->countRejectedRequest(keyId); !counted)
                qCWarning(lcCoordinator) << counted.error().message.c_str();
        }
        failure = HttpReply::error(401, reason);
        return makeError(reason.toStdString());
    };

    bool timestampOk = false;
    RequestSignature signature;
    signature.keyId = keyId;
    signature.timestampMs = request.value(kTimestampHeader).toLongLong(&timestampOk);
    signature.signature = QByteArray::fromBase64(request.value(kSignatureHeader));
    if (keyId.isEmpty() || !timestampOk || signature.signature.isEmpty())
        return reject(QStringLiteral("the request is not signed (X-Swarm-Key, X-Swarm-Timestamp, X-Swarm-Signature)"),
                      false);

    Result<std::optional<PeerRecord>> stored = m_setup.store->peer(keyId);
    if (!stored) {
        failure = HttpReply::error(500, toQString(stored.error()));
        return stored.error();
    }
    PeerRecord peer;
    if (*stored)
        peer = **stored;
    if (joiningKey) {
        peer.keyId = keyId;
        peer.publicKey = *joiningKey;
    } else if (!*stored) {
        return reject(QStringLiteral("unknown peer: join first"), false);
    }
    Result<void> verified = m_verifier.verify(peer.publicKey, methodName(request.method()), exchange.target,
                                              request.body(), signature, m_clock());
    const bool fresh = std::llabs(m_clock() - signature.timestampMs) <= m_options.maxClockSkewMs;
    if (!verified && fresh && m_verifier.signedBeforeStart(signature)) {
        // In flight across a restart, or replayed from before it: the client signs again.
        failure = HttpReply::error(503, toQString(verified.error()));
        failure.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("1")});
        return verified.error();
    }
    // Not an offence of the key's owner: anyone can forge a key id or replay its requests.
    if (!verified)
        return reject(toQString(verified.error()), stored->has_value());
    if (peer.banned()) {
        failure = HttpReply::error(403, QStringLiteral("this key is banned from the swarm: %1").arg(peer.bannedReason));
        return makeError("banned");
    }
    exchange.peer = std::move(peer);
    return {};
}

} // namespace swarmtrain
