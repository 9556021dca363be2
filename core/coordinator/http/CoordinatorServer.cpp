#include "CoordinatorServer.h"

#include "CoordinatorLog.h"
#include "HealthEndpoint.h"
#include "ModelEndpoints.h"
#include "PeerEndpoints.h"
#include "PipelineEndpoint.h"
#include "StagePartition.h"
#include "QtText.h"
#include "RoundEndpoints.h"
#include "ScheduleEndpoint.h"
#include "AverageEndpoints.h"
#include "StateEndpoints.h"
#include "StatusEndpoint.h"
#include "StatusPage.h"
#include "VerificationEndpoints.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>

#include <openssl/rand.h>

#include <chrono>
#include <memory>

namespace swarmtrain {

namespace {

constexpr qint64 kPeersRefreshMs = 2000;
const QString kTimedWorkLease = QStringLiteral("timed-work");

qint64 wallClockMs() { return QDateTime::currentMSecsSinceEpoch(); }

// Rate limits count per IPv4 address and per IPv6 /64, the block one subscriber usually holds.
QString addressKey(const QHostAddress &address)
{
    bool mapped = false;
    const quint32 v4 = address.toIPv4Address(&mapped);
    if (mapped)
        return QHostAddress(v4).toString();
    const Q_IPV6ADDR v6 = address.toIPv6Address();
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(v6.c), 8).toHex()) + QStringLiteral("::/64");
}

HttpReply tooManyRequests(qint64 waitMs, const QString &who)
{
    HttpReply reply = HttpReply::error(429, QStringLiteral("too many requests from this %1; slow down").arg(who));
    reply.headers.append(qMakePair(QByteArray("Retry-After"), QByteArray::number((waitMs + 999) / 1000)));
    return reply;
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
    options.rounds.commitTimeoutMs = qint64(config.commitTimeoutSeconds * 1000);
    options.rounds.minPeers = config.minPeers;
    const ModelConfig &m = config.model;
    options.rounds.work.tokensPerMember = qint64(config.training.innerSteps) * config.training.batchSize * m.blockSize;
    options.rounds.work.flopsPerToken = m.flopsPerToken();
    // A budgeted round's member may claim up to the cap's tokens; what it is credited is what
    // the coordinator admitted when the round started.
    const qint64 tokensPerStep = qint64(config.training.batchSize) * m.blockSize;
    options.rounds.work.maxTokensPerMember = qint64(config.training.stepCap()) * tokensPerStep;
    RoundBudget &budget = options.rounds.budget;
    budget.enabled = config.training.timeBudgeted;
    budget.async = config.training.asyncRounds;
    budget.maxStaleness = config.training.maxStaleness;
    budget.pinnedMs = qint64(config.roundSeconds * 1000);
    budget.nominalSteps = config.training.innerSteps;
    budget.minSteps = config.training.minInnerSteps;
    budget.maxSteps = config.training.stepCap();
    budget.tokensPerStep = tokensPerStep;
    budget.flopsPerToken = options.rounds.work.flopsPerToken;
    options.trust = config.trust;
    options.evalIters = config.evalIters;
    options.exports = config.exports;
    options.schedule.stages = config.stages;
    options.schedule.seconds = config.scheduleSeconds;
    options.bandwidthRanges = config.bandwidthRanges;
    options.mode = config.mode;
    options.typicalPeerMemoryBytes = config.typicalPeerMemoryBytes;
    options.pipeline = config.pipeline;
    options.rebalanceEveryMs = qint64(config.rebalanceSeconds * 1000);
    options.placeHints = config.placeHints;
    options.ratePerAddress = {config.rateLimitPerAddress, 4 * config.rateLimitPerAddress};
    options.ratePerKey = {config.rateLimitPerKey, 4 * config.rateLimitPerKey};
    options.sharedStore = config.store != "sqlite";
    for (const std::string &proxy : config.trustedProxies)
        options.http.trustedProxies.append(QHostAddress(QString::fromStdString(proxy)));
    // A pair of peers stays partnered for a few heartbeats, so both sides hear of each other.
    options.links.pairTtlMs = std::max<qint64>(options.links.pairTtlMs, 5 * options.rounds.heartbeatIntervalMs);
    return options;
}

CoordinatorServer::CoordinatorServer(CoordinatorSetup &setup, CoordinatorServerOptions options, Clock clock,
                                     QObject *parent)
    : QObject(parent)
    , m_setup(setup)
    , m_options(options)
    , m_clock(clock ? std::move(clock) : Clock(wallClockMs))
    , m_rounds(*setup.store, options.rounds, m_clock)
    , m_verifier(options.maxClockSkewMs)
    , m_validation(setup, options.training.batchSize, options.evalIters, options.training.seed, options.exports)
    , m_links(*setup.store, options.links)
    , m_schedule(setup.model, options.training, options.schedule)
    , m_reputation(*setup.store, m_options.trust, m_clock)
    , m_verification(*setup.store, m_rounds, m_reputation, m_options.trust, setup.stateDir / "updates", m_clock)
    , m_pipeline(*setup.store, [this](const PeerRecord &peer) { return m_rounds.isOnline(peer); }, m_clock)
    , m_context{this,           setup,   *setup.store, m_rounds,       m_options,     m_clock,
                m_validation,   m_links, m_schedule,   m_reputation,   m_verification, m_pipeline}
    , m_addressLimits(m_options.ratePerAddress)
    , m_keyLimits(m_options.ratePerKey)
    , m_http(
          m_options.http, [this](const HttpRequest &request) { return admit(request); },
          [this](const HttpRequest &request, HttpConnection::Replier replier) { handle(request, std::move(replier)); })
{
    m_endpoints.push_back(std::make_unique<PeerEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<RoundEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<StateEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<AverageEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<StatusEndpoint>(m_context));
    m_endpoints.push_back(std::make_unique<HealthEndpoint>(m_context, [this] { return m_lastTickMs; },
                                                           [this] { return m_leader; }));
    m_endpoints.push_back(std::make_unique<StatusPage>(m_context));
    m_endpoints.push_back(std::make_unique<ScheduleEndpoint>(m_context));
    m_endpoints.push_back(std::make_unique<VerificationEndpoints>(m_context));
    m_endpoints.push_back(std::make_unique<PipelineEndpoint>(m_context));
    m_endpoints.push_back(std::make_unique<ModelEndpoints>(m_context));
    for (const std::unique_ptr<EndpointGroup> &group : m_endpoints)
        group->addRoutes(m_routes);
    unsigned char id[8];
    RAND_bytes(id, sizeof id);
    m_instanceId = QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(id), sizeof id).toHex());
    m_rounds.setEstablished([this](const PeerRecord &peer) { return m_reputation.established(peer); });
    m_rounds.setOverruled([this](const RoundRecord &round) -> Result<std::set<QString>> {
        Result<Verification::RulingBreaches> breaches = m_verification.rulingBreaches(round);
        if (!breaches)
            return breaches.error();
        return std::move(breaches->unsettled);
    });
    m_rounds.setOnClosed([this](const RoundRecord &round, const std::vector<ContributionRecord> &verdicts) {
        return m_verification.roundClosed(round, verdicts);
    });
    m_rounds.setOnStalled([this](const QString &keyId, qint64 round) {
        const QString detail = QStringLiteral("round %1: committed to nothing in time").arg(round);
        if (Result<bool> offended = m_reputation.offend(keyId, QStringLiteral("stalled round"), detail, true); !offended)
            qCWarning(lcCoordinator) << "cannot record a stalled round:" << offended.error().message.c_str();
    });
    if (m_options.bandwidthRanges)
        m_rounds.setOwnerWeights([this](const std::vector<RoundMember> &members) { return ownerWeights(members); });
    connect(&m_validation, &StateValidation::recorded, this, &CoordinatorServer::validationLossRecorded);
    connect(&m_ticker, &QTimer::timeout, this, &CoordinatorServer::tick);
    m_pipeline.setOnLyingOwner([this](const QString &keyId, const QString &detail) {
        if (Result<bool> offended = m_reputation.offend(keyId, QStringLiteral("lying owner"), detail, true); !offended)
            qCWarning(lcCoordinator) << "cannot record a lying owner:" << offended.error().message.c_str();
    });
    m_pipeline.setOnWrongAnswers([this](const QString &keyId, const QString &detail) {
        qCWarning(lcCoordinator).noquote() << "pipeline:" << keyId << "answered trainers wrong:" << detail;
        if (Result<bool> offended = m_reputation.offend(keyId, QStringLiteral("wrong stage answers"), detail, true); !offended)
            qCWarning(lcCoordinator) << "cannot record wrong stage answers:" << offended.error().message.c_str();
    });
}

CoordinatorServer::~CoordinatorServer()
{
    m_validation.waitForDone();
    m_schedule.waitForDone();
    // Handed back at once, not when it runs out: an instance started next need not wait for it.
    if (m_leader) {
        if (Result<bool> released = m_setup.store->takeLease(kTimedWorkLease, m_instanceId, m_clock(), 0); !released)
            qCWarning(lcCoordinator) << "cannot hand back the timed-work lease:" << released.error().message.c_str();
    }
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
    updateLeadership();
    if (Result<void> pipeline = startPipeline(); !pipeline)
        return pipeline.error();
    if (!m_pipeline.enabled()) {
        if (Result<void> initial = m_setup.writeInitialState(); !initial)
            return initial.error();
    }
    if (Result<void> loaded = m_links.load(m_clock()); !loaded)
        return loaded.error();
    refreshPeers();
    std::optional<QSslConfiguration> ssl;
    if (tls) {
        const QSslCertificate certificate(tls->certificatePem, QSsl::Pem);
        QSslKey key(tls->privateKeyPem, QSsl::Ec, QSsl::Pem);
        if (key.isNull())
            key = QSslKey(tls->privateKeyPem, QSsl::Rsa, QSsl::Pem);
        if (certificate.isNull() || key.isNull())
            return makeError("the TLS certificate or key cannot be read (PEM, EC or RSA)");
        ssl = QSslConfiguration::defaultConfiguration();
        ssl->setLocalCertificate(certificate);
        ssl->setPrivateKey(key);
        ssl->setPeerVerifyMode(QSslSocket::VerifyNone); // peers prove who they are by signatures
    }
    Result<quint16> bound = m_http.listen(address, port, std::move(ssl));
    if (!bound)
        return bound.error();
    if (m_options.tickMs > 0) {
        m_lastTickMs = m_clock();
        m_ticker.start(m_options.tickMs);
    }
    // Several instances: the leader validates it, on its tick (followSharedState).
    if (m_setup.hasState() && !m_setup.checkpoint.validationLoss && !m_options.sharedStore)
        m_validation.validate(m_setup.checkpoint);
    return *bound;
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

Result<void> CoordinatorServer::startPipeline()
{
    using Mode = CoordinatorConfig::Mode;
    if (m_options.mode == Mode::Full)
        return {};
    std::vector<std::int64_t> memories;
    Result<std::vector<PeerRecord>> peers = m_setup.store->peers();
    if (!peers)
        return peers.error();
    for (const PeerRecord &peer : *peers) {
        Result<DeviceReport> device = DeviceReport::fromJson(QJsonDocument::fromJson(peer.deviceJson).object());
        if (device && device->trainingMemoryBytes > 0)
            memories.push_back(device->trainingMemoryBytes);
    }
    const bool reported = !memories.empty();
    if (!reported)
        memories.push_back(m_options.typicalPeerMemoryBytes);
    Result<SwarmModePlan> plan = chooseSwarmMode(m_setup.model, memories);
    if (m_options.mode == Mode::Auto) {
        if (!plan)
            return makeError("--mode auto: " + plan.error().message);
        qCInfo(lcCoordinator).noquote()
            << QStringLiteral("--mode auto: a whole model's training state is %1 MiB, the typical peer (%2) has %3 MiB: %4")
                   .arg(plan->largestStateBytes >> 20)
                   .arg(reported ? QStringLiteral("the median of %1 reports").arg(memories.size()) : QStringLiteral("--typical-peer-memory"))
                   .arg(plan->typicalMemoryBytes >> 20)
                   .arg(plan->mode == SwarmMode::Full ? QStringLiteral("full-model mode") : QStringLiteral("%1 pipeline stages").arg(plan->stages));
        if (plan->mode == SwarmMode::Full)
            return {};
    }
    int stages = m_options.schedule.stages;
    if (stages < 2)
        stages = plan && plan->mode == SwarmMode::Pipeline ? plan->stages : 2;
    Result<std::vector<StageSpan>> spans = partitionStages(m_setup.model, stages);
    if (!spans)
        return makeError("pipeline mode: " + spans.error().message);
    PipelineStepsOptions options;
    options.settings = m_options.pipeline;
    options.settings.stages = stages;
    for (const StageSpan &span : *spans)
        options.stageCosts.push_back(span.flopsPerToken);
    options.minPeers = m_options.rounds.minPeers;
    options.rebalanceEveryMs = m_options.rebalanceEveryMs;
    options.placeHints = m_options.placeHints;
    options.exportEvery = m_options.exports.every;
    options.tokensPerMicrobatch = qint64(options.settings.microbatchSize) * m_setup.model.blockSize;
    options.creditPerToken = m_options.rounds.creditPerToken;
    options.restartGraceMs = m_options.rounds.missedHeartbeats * m_options.rounds.heartbeatIntervalMs;
    qCInfo(lcCoordinator).noquote() << QStringLiteral("pipeline-stage mode: %1 stages, %2 microbatches of %3 sequences a step, %4 on the wire")
                                           .arg(stages).arg(options.settings.microbatchesPerStep)
                                           .arg(options.settings.microbatchSize).arg(options.settings.precision);
    return m_pipeline.start(std::move(options));
}

void CoordinatorServer::updateLeadership()
{
    // Renewed every tick; a leader that dies is replaced once its lease runs out.
    const qint64 leaseMs = std::max<qint64>(kLeaseMs, 3 * qint64(m_options.tickMs));
    const qint64 now = m_clock();
    Result<bool> held = m_setup.store->takeLease(kTimedWorkLease, m_instanceId, now, now + leaseMs);
    if (!held)
        qCWarning(lcCoordinator) << "cannot renew the timed-work lease:" << held.error().message.c_str();
    const bool leader = held && *held;
    if (leader != m_leader) {
        qCInfo(lcCoordinator).noquote() << "instance" << m_instanceId
                                        << (leader ? "runs the swarm's timed work now (leader)" : "is a follower now");
    }
    m_leader = leader;
    m_rounds.setLeader(leader);
    // Only the leader writes rounds, so it need not read the round back at every request. It
    // trusts that for half its lease: another instance takes over only once the lease ran out
    // by that one's clock.
    using namespace std::chrono;
    m_setup.store->setSoleRoundWriterUntil(leader ? steady_clock::now() + milliseconds(leaseMs / 2)
                                                  : steady_clock::time_point());
}

void CoordinatorServer::followSharedState()
{
    if (!m_options.sharedStore || !m_setup.hasState())
        return;
    // A state another instance received is current here too: served, and told in heartbeats.
    Result<std::optional<CheckpointRecord>> latest = m_setup.store->latestCheckpoint();
    if (!latest) {
        qCWarning(lcCoordinator) << "cannot read the latest state:" << latest.error().message.c_str();
        return;
    }
    if (*latest && (*latest)->round >= m_setup.checkpoint.round)
        m_setup.checkpoint = **latest;
    // The leader validates each new state once, whichever instance received it.
    const CheckpointRecord &current = m_setup.checkpoint;
    if (m_leader && !current.validationLoss && current.round != m_validationAskedFor) {
        m_validationAskedFor = current.round;
        m_validation.validate(current);
    }
}

void CoordinatorServer::tick()
{
    m_lastTickMs = m_clock();
    updateLeadership();
    followSharedState();
    if (!m_leader) {
        // Another instance moves the rounds; this one serves requests from the store.
        if (m_clock() - m_peersRefreshedMs >= kPeersRefreshMs)
            refreshPeers();
        return;
    }
    if (m_pipeline.enabled()) {
        if (Result<void> advanced = m_pipeline.advance(); !advanced)
            qCWarning(lcCoordinator) << "cannot advance the pipeline:" << advanced.error().message.c_str();
    } else if (Result<void> advanced = m_rounds.advance(); !advanced) {
        qCWarning(lcCoordinator) << "cannot advance the round:" << advanced.error().message.c_str();
    }
    if (Result<void> expired = m_verification.expire(); !expired)
        qCWarning(lcCoordinator) << "cannot end late spot checks:" << expired.error().message.c_str();
    if (m_clock() - m_peersRefreshedMs >= kPeersRefreshMs)
        refreshPeers();
}

void CoordinatorServer::refreshPeers()
{
    const qint64 now = m_clock();
    m_peersRefreshedMs = now;
    Result<std::vector<PeerRecord>> peers = m_setup.store->peersSeenSince(m_rounds.onlineSinceMs());
    if (!peers) {
        qCWarning(lcCoordinator) << "cannot read the peers:" << peers.error().message.c_str();
        return;
    }
    std::vector<PeerRecord> online = std::move(peers).value();
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

HttpAdmission CoordinatorServer::admit(const HttpRequest &request)
{
    HttpAdmission admission;
    const RouteTable::Match match = m_routes.match(request.method(), request.url().path());
    if (!match.route) {
        admission.refusal = match.status == 405 ? HttpReply::error(405, QStringLiteral("method not allowed"))
                                                : HttpReply::error(404, QStringLiteral("no such endpoint"));
        return admission;
    }
    if (const qint64 waitMs = m_addressLimits.take(addressKey(request.remoteAddress())); waitMs > 0) {
        admission.refusal = tooManyRequests(waitMs, QStringLiteral("address"));
        return admission;
    }
    admission.maxBodyBytes = match.route->maxBodyBytes();
    if (request.contentLength() > admission.maxBodyBytes) {
        qCWarning(lcCoordinator) << "refused" << request.target() << "with a body of" << request.contentLength()
                                 << "bytes from" << request.value(kKeyIdHeader) << "at"
                                 << request.remoteAddress().toString();
        return admission; // the connection answers 413
    }
    if (match.route->body == RouteBody::Bytes) {
        if (const QString why = unknownSigner(request); !why.isEmpty()) {
            admission.refusal = HttpReply::error(401, why);
            return admission;
        }
        admission.spoolDir = toQString(m_setup.checkpointsDir());
    }
    return admission;
}

QString CoordinatorServer::unknownSigner(const HttpRequest &request)
{
    bool timestampOk = false;
    const qint64 timestampMs = request.value(kTimestampHeader).toLongLong(&timestampOk);
    const QString keyId = QString::fromLatin1(request.value(kKeyIdHeader));
    if (keyId.isEmpty() || !timestampOk || request.value(kSignatureHeader).isEmpty())
        return QStringLiteral("the request is not signed (X-Swarm-Key, X-Swarm-Timestamp, X-Swarm-Signature)");
    if (std::llabs(m_clock() - timestampMs) > m_options.maxClockSkewMs)
        return QStringLiteral("stale timestamp; check the clock");
    Result<std::optional<PeerRecord>> stored = m_setup.store->peer(keyId);
    if (!stored || !*stored)
        return QStringLiteral("unknown peer: join first");
    return {};
}

void CoordinatorServer::handle(const HttpRequest &request, HttpConnection::Replier replier)
{
    HttpExchange exchange(request, request.target(), std::move(replier));
    const RouteTable::Match match = m_routes.match(request.method(), request.url().path());
    if (!match.route) // admit() let it through, so the table has not changed; kept for safety
        return exchange.respond(HttpReply::error(404, QStringLiteral("no such endpoint")));
    exchange.pathTail = match.pathTail;
    dispatch(*match.route, exchange);
}

void CoordinatorServer::dispatch(const Route &route, HttpExchange &exchange)
{
    const HttpRequest &request = exchange.request;
    const qint64 limit = route.maxBodyBytes();
    if (request.contentLength() > limit) // admit() refused it already; the route's limit may have shrunk since
        return exchange.respond(
            HttpReply::error(413, QStringLiteral("the request body is larger than %1 bytes").arg(limit)));
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
        Result<qint64> waitMs = takeKeyToken(exchange.peer.keyId);
        if (!waitMs)
            return exchange.respond(HttpReply::error(503, toQString(waitMs.error())));
        if (*waitMs > 0)
            return exchange.respond(tooManyRequests(*waitMs, QStringLiteral("key")));
    }
    if (route.body == RouteBody::Json && route.access != RouteAccess::Joining && !parseJson())
        return exchange.respond(notAnObject);
    route.handler(exchange);
}

Result<qint64> CoordinatorServer::takeKeyToken(const QString &keyId)
{
    // Several instances: the limit holds across them, counted in the database.
    const RateLimit &limit = m_options.ratePerKey;
    if (m_options.sharedStore && limit.perSecond > 0)
        return m_setup.store->takeToken(QStringLiteral("key:") + keyId, limit.perSecond, limit.burst, m_clock());
    return m_keyLimits.take(keyId);
}

Result<void> CoordinatorServer::authenticate(HttpExchange &exchange, const std::optional<QByteArray> &joiningKey,
                                             HttpReply &failure)
{
    const HttpRequest &request = exchange.request;
    const QString keyId = QString::fromLatin1(request.value(kKeyIdHeader));
    auto reject = [&](const QString &reason, bool known) -> Error {
        qCWarning(lcCoordinator).noquote() << "rejected" << request.methodName() << exchange.target
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
    // The body's hash was computed as it arrived (a spooled upload is never read back for it).
    Result<void> verified = m_verifier.verifyBodyHash(peer.publicKey, request.methodName(), exchange.target,
                                                      request.bodySha256Hex(), signature, m_clock());
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
    if (m_options.sharedStore) {
        // A request another instance accepted is a replay here too.
        Result<bool> first = m_setup.store->recordRequest(QString::fromLatin1(signature.signature.toHex()),
                                                          signature.timestampMs, m_clock() - m_options.maxClockSkewMs);
        if (!first) {
            failure = HttpReply::error(503, toQString(first.error()));
            return first.error();
        }
        if (!*first)
            return reject(QStringLiteral("this request was seen before (a replay)"), stored->has_value());
    }
    if (peer.banned()) {
        failure = HttpReply::error(403, QStringLiteral("this key is banned from the swarm: %1").arg(peer.bannedReason));
        return makeError("banned");
    }
    exchange.peer = std::move(peer);
    return {};
}

} // namespace swarmtrain
