#include "CoordinatorServer.h"

#include "CoordinatorLog.h"
#include "FileIo.h"
#include "ReachabilityProbe.h"
#include "Sha256.h"
#include "SwarmState.h"

#include <QDateTime>
#include <QFile>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QTcpSocket>
#include <QUrlQuery>

#include <cmath>
#include <memory>

namespace swarmtrain {

namespace {

constexpr int kLeaderboardSize = 20;

qint64 wallClockMs() { return QDateTime::currentMSecsSinceEpoch(); }

std::optional<qint64> integerField(const QJsonObject &object, QLatin1StringView name)
{
    const QJsonValue value = object.value(name);
    if (!value.isDouble())
        return std::nullopt;
    const double number = value.toDouble();
    if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) > 9.0e15)
        return std::nullopt;
    return qint64(number);
}

std::optional<double> numberField(const QJsonObject &object, QLatin1StringView name)
{
    const QJsonValue value = object.value(name);
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return std::nullopt;
    return value.toDouble();
}

bool isHexHash(const QString &text)
{
    if (text.size() != 64)
        return false;
    return std::all_of(text.begin(), text.end(), [](QChar c) {
        return (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
    });
}

QString vocabularyString(const Tokenizer &tokenizer)
{
    std::string utf8;
    for (char32_t codePoint : tokenizer.vocabulary())
        appendUtf8(utf8, codePoint);
    return QString::fromStdString(utf8);
}


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

// "bytes=N-" or "bytes=N-M" of a file of `size` bytes; false when unsatisfiable or malformed.
bool parseRange(const QByteArray &header, qint64 size, qint64 &begin, qint64 &end)
{
    if (!header.startsWith("bytes=") || header.contains(','))
        return false;
    const QByteArray spec = header.mid(6).trimmed();
    const qsizetype dash = spec.indexOf('-');
    if (dash <= 0)
        return false;
    bool ok = false;
    begin = spec.left(dash).toLongLong(&ok);
    if (!ok || begin < 0 || begin >= size)
        return false;
    const QByteArray last = spec.mid(dash + 1);
    end = size;
    if (!last.isEmpty()) {
        const qint64 lastByte = last.toLongLong(&ok);
        if (!ok || lastByte < begin)
            return false;
        end = std::min(size, lastByte + 1);
    }
    return true;
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
    options.evalIters = config.evalIters;
    return options;
}

CoordinatorServer::CoordinatorServer(CoordinatorSetup &setup, CoordinatorServerOptions options, Clock clock,
                                     QObject *parent)
    : QAbstractHttpServer(parent)
    , m_setup(setup)
    , m_store(*setup.store)
    , m_options(options)
    , m_clock(clock ? std::move(clock) : Clock(wallClockMs))
    , m_rounds(m_store, options.rounds, m_clock)
    , m_verifier(options.maxClockSkewMs)
{
    m_workers.setMaxThreadCount(1);
    connect(&m_ticker, &QTimer::timeout, this, &CoordinatorServer::tick);
}

CoordinatorServer::~CoordinatorServer() { m_workers.waitForDone(); }

Result<quint16> CoordinatorServer::start(const QHostAddress &address, quint16 port,
                                         const std::optional<TlsIdentity> &tls)
{
    Result<RoundRecord> round = m_rounds.initialize(m_setup.checkpoint.round);
    if (!round)
        return round.error();
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
        computeValidationLoss(m_setup.checkpoint);
    return bound;
}

void CoordinatorServer::tick()
{
    if (Result<void> advanced = m_rounds.advance(); !advanced)
        qCWarning(lcCoordinator) << "cannot advance the round:" << advanced.error().message.c_str();
}

CoordinatorServer::Reply CoordinatorServer::json(const QJsonObject &object, int status)
{
    Reply reply;
    reply.status = status;
    reply.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return reply;
}

CoordinatorServer::Reply CoordinatorServer::error(int status, const QString &message)
{
    return json(QJsonObject{{QStringLiteral("error"), message}}, status);
}

void CoordinatorServer::send(QHttpServerResponder &responder, const Reply &reply)
{
    responder.writeStatusLine(QHttpServerResponder::StatusCode(reply.status));
    responder.writeHeader("Content-Type", reply.contentType);
    responder.writeHeader("Content-Length", QByteArray::number(reply.body.size()));
    for (const auto &[name, value] : reply.headers)
        responder.writeHeader(name, value);
    responder.writeBody(reply.body);
}

void CoordinatorServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    QHttpServerResponder responder = makeResponder(request, socket);
    send(responder, error(404, QStringLiteral("no such endpoint")));
}

bool CoordinatorServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    const QString path = request.url().path();
    const QByteArray target = requestTarget(request);
    const QHttpServerRequest::Method method = request.method();
    const bool get = method == QHttpServerRequest::Method::Get;
    const bool post = method == QHttpServerRequest::Method::Post;

    auto answer = [&](const Reply &reply) {
        QHttpServerResponder responder = makeResponder(request, socket);
        send(responder, reply);
        return true;
    };

    // The public endpoints: anyone may watch the swarm and download its state and data.
    if (get && path == QLatin1StringView("/v1/status"))
        return answer(handleStatus());
    if (get && path == QLatin1StringView("/v1/checkpoint")) {
        const CheckpointRecord &checkpoint = m_setup.checkpoint;
        return answer(handleDownload(m_setup.checkpointsDir() / checkpoint.fileName.toStdString(), checkpoint.sha256,
                                     request.value("Range"),
                                     {{"X-Swarm-Round", QByteArray::number(checkpoint.round)}}));
    }
    if (get && path.startsWith(QLatin1StringView("/v1/shards/"))) {
        const ShardInfo *shard = m_setup.manifest->find(path.mid(11).toStdString());
        if (!shard)
            return answer(error(404, QStringLiteral("no such shard")));
        return answer(handleDownload(m_setup.manifest->shardPath(*shard), QString::fromStdString(shard->sha256),
                                     request.value("Range"), {}));
    }

    const bool known = path == QLatin1StringView("/v1/join") || path == QLatin1StringView("/v1/heartbeat")
                       || path == QLatin1StringView("/v1/contribution") || path == QLatin1StringView("/v1/round")
                       || path == QLatin1StringView("/v1/checkpoint") || path == QLatin1StringView("/v1/status");
    if (!known)
        return answer(error(404, QStringLiteral("no such endpoint")));
    const bool checkpointUpload = post && path == QLatin1StringView("/v1/checkpoint");
    const bool getRound = get && path == QLatin1StringView("/v1/round");
    if (!getRound && !(post && path != QLatin1StringView("/v1/round") && path != QLatin1StringView("/v1/status")))
        return answer(error(405, QStringLiteral("method not allowed")));

    const qint64 limit = checkpointUpload ? maxCheckpointBytes() : m_options.maxJsonBytes;
    if (request.body().size() > limit) {
        qCWarning(lcCoordinator) << "refused" << target << "with a body of" << request.body().size() << "bytes from"
                                 << request.value(kKeyIdHeader);
        return answer(error(413, QStringLiteral("the request body is larger than %1 bytes").arg(limit)));
    }
    if (path == QLatin1StringView("/v1/join")) {
        handleJoin(request, socket, target);
        return true;
    }

    Reply failure;
    Result<PeerRecord> peer = authenticate(request, target, std::nullopt, failure);
    if (!peer)
        return answer(failure);
    if (getRound)
        return answer(handleRound());
    if (checkpointUpload)
        return answer(handleCheckpointUpload(*peer, request));

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return answer(error(400, QStringLiteral("the body is not a JSON object")));
    if (path == QLatin1StringView("/v1/heartbeat"))
        return answer(handleHeartbeat(*peer, document.object()));
    return answer(handleContribution(*peer, document.object()));
}

Result<PeerRecord> CoordinatorServer::authenticate(const QHttpServerRequest &request, const QByteArray &target,
                                                   const std::optional<QByteArray> &joiningKey, Reply &failure)
{
    const QString keyId = QString::fromLatin1(request.value(kKeyIdHeader));
    auto reject = [&](const QString &reason, bool known) -> Error {
        qCWarning(lcCoordinator).noquote() << "rejected" << methodName(request.method()) << target << "from key"
                                           << (keyId.isEmpty() ? QStringLiteral("(none)") : keyId) << "from"
                                           << request.remoteAddress().toString() << ":" << reason;
        if (known) {
            if (Result<void> counted = m_store.countRejectedRequest(keyId); !counted)
                qCWarning(lcCoordinator) << counted.error().message.c_str();
        }
        failure = error(401, reason);
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

    Result<std::optional<PeerRecord>> stored = m_store.peer(keyId);
    if (!stored) {
        failure = error(500, QString::fromStdString(stored.error().message));
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
    Result<void> verified = m_verifier.verify(peer.publicKey, methodName(request.method()), target, request.body(),
                                              signature, m_clock());
    if (!verified)
        return reject(QString::fromStdString(verified.error().message), stored->has_value());
    return peer;
}

void CoordinatorServer::handleJoin(const QHttpServerRequest &request, QTcpSocket *socket, const QByteArray &target)
{
    auto answerNow = [&](const Reply &reply) {
        QHttpServerResponder responder = makeResponder(request, socket);
        send(responder, reply);
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return answerNow(error(400, QStringLiteral("the body is not a JSON object")));
    const QJsonObject body = document.object();
    const QJsonValue publicKeyValue = body.value(QLatin1StringView("public_key"));
    const QJsonValue device = body.value(QLatin1StringView("device"));
    const QJsonValue endpointValue = body.value(QLatin1StringView("endpoint"));
    const QJsonValue version = body.value(QLatin1StringView("client_version"));
    if (!publicKeyValue.isString() || !device.isObject() || !endpointValue.isString() || !version.isString())
        return answerNow(error(400, QStringLiteral("join needs public_key, device, endpoint and client_version")));
    const QByteArray publicKey = QByteArray::fromBase64(publicKeyValue.toString().toLatin1(),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    if (publicKey.size() != Identity::kPublicKeyBytes)
        return answerNow(error(400, QStringLiteral("public_key must be a base64 Ed25519 public key")));

    Reply failure;
    Result<PeerRecord> signedBy = authenticate(request, target, publicKey, failure);
    if (!signedBy)
        return answerNow(failure);
    PeerRecord peer = *signedBy;

    QString endpoint = endpointValue.toString();
    // "*:PORT" from a peer that does not know its public address: the address its request came from.
    if (endpoint.startsWith(QLatin1StringView("*:"))) {
        QHostAddress from = request.remoteAddress();
        bool mapped = false;
        const QHostAddress v4(from.toIPv4Address(&mapped));
        if (mapped)
            from = v4;
        const QString shown = from.protocol() == QAbstractSocket::IPv6Protocol
                                  ? QStringLiteral("[%1]").arg(from.toString())
                                  : from.toString();
        endpoint = shown + endpoint.mid(1);
    }
    QString host;
    quint16 port = 0;
    if (!endpoint.isEmpty() && !splitEndpoint(endpoint, host, port))
        return answerNow(error(400, QStringLiteral("endpoint must be \"host:port\", \"*:port\" or \"\"")));
    if (peer.joinedMs == 0) {
        Result<std::vector<PeerRecord>> all = m_store.peers();
        if (!all)
            return answerNow(error(500, QString::fromStdString(all.error().message)));
        peer.ordinal = all->empty() ? 0 : all->back().ordinal + 1;
        for (const std::string &id : dealShards(peer.ordinal, m_setup.manifest->shards()))
            peer.assignedShards.append(QString::fromStdString(id));
        peer.joinedMs = m_clock();
    }
    peer.deviceJson = QJsonDocument(device.toObject()).toJson(QJsonDocument::Compact);
    peer.endpoint = endpoint;
    peer.clientVersion = version.toString().left(100);
    peer.lastSeenMs = m_clock();

    // The answer waits for the reachability probe; the peer is stored only then.
    auto responder = std::make_shared<QHttpServerResponder>(makeResponder(request, socket));
    QPointer<QTcpSocket> alive(socket);
    auto finish = [this, peer, responder, alive](bool reachable) mutable {
        peer.reachable = reachable;
        Reply reply;
        if (Result<void> saved = m_store.savePeer(peer); !saved)
            reply = error(500, QString::fromStdString(saved.error().message));
        else
            reply = joinAnswer(peer);
        qCInfo(lcCoordinator) << "peer" << peer.keyId << "joined, endpoint" << peer.endpoint
                              << (reachable ? "reachable" : "not reachable");
        if (alive)
            send(*responder, reply);
    };
    if (endpoint.isEmpty())
        return finish(false);
    probeTcpEndpoint(host, port, m_options.probeTimeoutMs, this, std::move(finish));
}

CoordinatorServer::Reply CoordinatorServer::joinAnswer(const PeerRecord &peer)
{
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return error(500, QString::fromStdString(round.error().message));
    const TrainingSettings &t = m_options.training;
    QJsonArray shards;
    for (const ShardInfo &shard : m_setup.manifest->shards()) {
        shards.append(QJsonObject{{QStringLiteral("id"), QString::fromStdString(shard.id)},
                                  {QStringLiteral("bytes"), double(shard.bytes)},
                                  {QStringLiteral("sha256"), QString::fromStdString(shard.sha256)}});
    }
    const CheckpointRecord &checkpoint = m_setup.checkpoint;
    return json(QJsonObject{
        {QStringLiteral("peer_id"), peer.keyId},
        {QStringLiteral("model"), QJsonDocument::fromJson(QByteArray::fromStdString(m_setup.model.toJson())).object()},
        {QStringLiteral("tokenizer"),
         QJsonObject{{QStringLiteral("kind"), QString::fromLatin1(tokenizerKindName(m_setup.tokenizer->kind()))},
                     {QStringLiteral("vocabulary"), vocabularyString(*m_setup.tokenizer)}}},
        {QStringLiteral("training"),
         QJsonObject{{QStringLiteral("inner_steps"), t.innerSteps}, {QStringLiteral("batch_size"), t.batchSize},
                     {QStringLiteral("lr"), t.lr}, {QStringLiteral("min_lr"), t.minLr},
                     {QStringLiteral("warmup_iters"), t.warmupIters},
                     {QStringLiteral("lr_decay_iters"), double(t.lrDecayIters)},
                     {QStringLiteral("weight_decay"), t.weightDecay},
                     {QStringLiteral("grad_clip"), t.gradClip}, {QStringLiteral("outer_lr"), t.outerLr},
                     {QStringLiteral("outer_momentum"), t.outerMomentum},
                     {QStringLiteral("seed"), double(t.seed)}}},
        {QStringLiteral("shards"), shards},
        {QStringLiteral("assigned_shards"), QJsonArray::fromStringList(peer.assignedShards)},
        {QStringLiteral("round"), double(round->number)},
        {QStringLiteral("heartbeat_interval_ms"), double(m_options.rounds.heartbeatIntervalMs)},
        {QStringLiteral("reachable"), peer.reachable},
        {QStringLiteral("checkpoint"),
         QJsonObject{{QStringLiteral("round"), double(checkpoint.round)}, {QStringLiteral("sha256"), checkpoint.sha256},
                     {QStringLiteral("bytes"), double(checkpoint.bytes)}}},
    });
}

CoordinatorServer::Reply CoordinatorServer::handleHeartbeat(const PeerRecord &peer, const QJsonObject &body)
{
    const QString state = body.value(QLatin1StringView("state")).toString();
    const std::optional<qint64> baseRound = integerField(body, QLatin1StringView("base_round"));
    const QJsonValue reason = body.value(QLatin1StringView("reason"));
    const QJsonValue rateValue = body.value(QLatin1StringView("tokens_per_s"));
    const std::optional<double> rate = rateValue.isUndefined() ? std::optional<double>(0.0)
                                                               : numberField(body, QLatin1StringView("tokens_per_s"));
    // "left": the peer says goodbye, so no round waits for it.
    static const QStringList states = {QStringLiteral("training"), QStringLiteral("paused"), QStringLiteral("ready"),
                                       QStringLiteral("idle"), QStringLiteral("left")};
    if (!states.contains(state))
        return error(400, QStringLiteral("state must be training, paused, ready, idle or left"));
    if (!baseRound || !rate || *rate < 0 || !(reason.isUndefined() || reason.isString()))
        return error(400, QStringLiteral("heartbeat needs base_round (integer); tokens_per_s and reason are optional"));
    const qint64 seenMs = state == QLatin1StringView("left") ? 0 : m_clock();
    if (Result<void> saved = m_store.recordHeartbeat(peer.keyId, state, reason.toString().left(200), *rate, *baseRound,
                                                     seenMs);
        !saved)
        return error(500, QString::fromStdString(saved.error().message));
    // Only a peer becoming ready or leaving can start a round now; timeouts are the ticker's.
    // (Advancing reads every peer: doing it on each heartbeat made it the swarm's bottleneck.)
    if (state == QLatin1StringView("ready") || state == QLatin1StringView("left")) {
        if (Result<void> advanced = m_rounds.advance(); !advanced)
            return error(500, QString::fromStdString(advanced.error().message));
    }
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return error(500, QString::fromStdString(round.error().message));
    const bool member = std::any_of(round->members.begin(), round->members.end(),
                                    [&](const RoundMember &m) { return m.keyId == peer.keyId; });
    QJsonObject answer{{QStringLiteral("round"), double(round->number)},
                       {QStringLiteral("round_state"), roundStateName(round->state)},
                       {QStringLiteral("deadline_ms"), double(round->deadlineMs)},
                       {QStringLiteral("member"), round->state == RoundState::Running && member},
                       {QStringLiteral("checkpoint_round"), double(m_setup.checkpoint.round)}};
    Result<std::optional<std::pair<ContributionRecord, ContributionVerdict>>> last = m_rounds.lastVerdict(peer.keyId);
    if (last && *last) {
        const auto &[contribution, verdict] = **last;
        answer.insert(QStringLiteral("last_contribution"),
                      QJsonObject{{QStringLiteral("round"), double(contribution.round)},
                                  {QStringLiteral("accepted"), verdict.accepted ? QJsonValue(*verdict.accepted)
                                                                                : QJsonValue(QJsonValue::Null)},
                                  {QStringLiteral("credit"), verdict.credit},
                                  {QStringLiteral("upload_checkpoint"), verdict.uploadCheckpoint}});
    }
    return json(answer);
}

CoordinatorServer::Reply CoordinatorServer::handleContribution(const PeerRecord &peer, const QJsonObject &body)
{
    ContributionRecord c;
    c.keyId = peer.keyId;
    const std::optional<qint64> round = integerField(body, QLatin1StringView("round"));
    const std::optional<qint64> tokens = integerField(body, QLatin1StringView("tokens"));
    const std::optional<double> flops = numberField(body, QLatin1StringView("flops"));
    const std::optional<double> seconds = numberField(body, QLatin1StringView("seconds"));
    const std::optional<double> loss = numberField(body, QLatin1StringView("loss"));
    const QString hash = body.value(QLatin1StringView("params_hash")).toString();
    const std::optional<qint64> up = body.contains(QLatin1StringView("bytes_up"))
                                         ? integerField(body, QLatin1StringView("bytes_up"))
                                         : std::optional<qint64>(0);
    const std::optional<qint64> down = body.contains(QLatin1StringView("bytes_down"))
                                           ? integerField(body, QLatin1StringView("bytes_down"))
                                           : std::optional<qint64>(0);
    if (!round || !tokens || !flops || !seconds || !loss || !up || !down) {
        return error(400, QStringLiteral("contribution needs round, tokens, flops, seconds, loss (finite numbers),"
                                         " params_hash; bytes_up and bytes_down are optional"));
    }
    if (*tokens < 0 || *flops < 0 || *seconds < 0 || *loss < 0 || *up < 0 || *down < 0)
        return error(400, QStringLiteral("contribution figures must not be negative"));
    if (!isHexHash(hash))
        return error(400, QStringLiteral("params_hash must be 64 lowercase hex digits"));
    c.round = *round;
    c.tokens = *tokens;
    c.flops = *flops;
    c.seconds = *seconds;
    c.loss = *loss;
    c.paramsHash = hash;
    c.bytesUp = *up;
    c.bytesDown = *down;
    Result<ContributionVerdict> verdict = m_rounds.contribute(c);
    if (!verdict)
        return error(409, QString::fromStdString(verdict.error().message));
    return json(QJsonObject{
        {QStringLiteral("accepted"), verdict->accepted ? QJsonValue(*verdict->accepted) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("credit"), verdict->credit},
        {QStringLiteral("upload_checkpoint"), verdict->uploadCheckpoint},
        {QStringLiteral("upload_round"), double(c.round + 1)}});
}

qint64 CoordinatorServer::maxCheckpointBytes() const
{
    // Parameters and the outer momentum in float32, plus room for the header and tokenizer.
    return m_setup.parameterCount * 8 + (16 << 20);
}

CoordinatorServer::Reply CoordinatorServer::handleCheckpointUpload(const PeerRecord &peer,
                                                                    const QHttpServerRequest &request)
{
    bool ok = false;
    const qint64 stateRound = request.query().queryItemValue(QStringLiteral("round")).toLongLong(&ok);
    if (!ok || stateRound <= 0)
        return error(400, QStringLiteral("POST /v1/checkpoint needs ?round=R (the round of the state, at least 1)"));
    Result<std::optional<CheckpointRecord>> held = m_store.checkpoint(stateRound);
    Result<std::optional<RoundRecord>> producer = m_store.round(stateRound - 1);
    if (!held || !producer)
        return error(500, QStringLiteral("cannot read the rounds"));
    if (*held)
        return error(409, QStringLiteral("the coordinator already holds state %1").arg(stateRound));
    if (!*producer || (*producer)->state != RoundState::Done)
        return error(409, QStringLiteral("round %1 has not produced an agreed state").arg(stateRound - 1));
    const RoundRecord &round = **producer;
    Result<std::vector<ContributionRecord>> reports = m_store.contributions(round.number, round.attempt);
    if (!reports)
        return error(500, QString::fromStdString(reports.error().message));
    const bool accepted = std::any_of(reports->begin(), reports->end(), [&](const ContributionRecord &c) {
        return c.keyId == peer.keyId && c.accepted.value_or(false);
    });
    if (!accepted)
        return error(403, QStringLiteral("only a peer whose contribution to round %1 was accepted may upload state %2")
                              .arg(round.number)
                              .arg(stateRound));

    const QByteArray body = request.body();
    const std::filesystem::path incoming = m_setup.checkpointsDir() / ("incoming-" + peer.keyId.toStdString());
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(body.constData()),
                                           std::size_t(body.size()));
    if (Result<void> written = writeFileAtomically(incoming, bytes); !written)
        return error(507, QStringLiteral("cannot store the upload: %1").arg(QString::fromStdString(written.error().message)));
    auto discard = [&](int status, const QString &why) {
        std::error_code ec;
        std::filesystem::remove(incoming, ec);
        qCWarning(lcCoordinator) << "refused state" << stateRound << "from" << peer.keyId << ":" << why;
        return error(status, why);
    };
    Result<SwarmStateInfo> info = inspectSwarmState(incoming);
    if (!info)
        return discard(400, QStringLiteral("the state file does not check out: %1")
                                .arg(QString::fromStdString(info.error().message)));
    if (info->round != stateRound)
        return discard(400, QStringLiteral("the state file holds round %1, not %2").arg(info->round).arg(stateRound));
    if (info->config.toJson() != m_setup.model.toJson())
        return discard(400, QStringLiteral("the state file's model config differs from the swarm's"));
    if (QString::fromStdString(info->parametersHash) != round.agreedHash)
        return discard(400, QStringLiteral("the state file's parameters hash differs from round %1's agreed hash")
                                .arg(round.number));

    const QString name = QStringLiteral("round-%1.safetensors").arg(stateRound);
    const std::filesystem::path file = m_setup.checkpointsDir() / name.toStdString();
    std::error_code ec;
    std::filesystem::rename(incoming, file, ec);
    if (ec)
        return discard(500, QStringLiteral("cannot keep the state file: %1").arg(QString::fromStdString(ec.message())));
    const CheckpointRecord checkpoint{stateRound, name, QString::fromStdString(Sha256::hexOf(bytes)), body.size(),
                                      round.agreedHash, std::nullopt};
    if (Result<void> added = m_store.addCheckpoint(checkpoint); !added)
        return error(500, QString::fromStdString(added.error().message));
    if (checkpoint.round > m_setup.checkpoint.round)
        m_setup.checkpoint = checkpoint;
    qCInfo(lcCoordinator) << "state" << stateRound << "uploaded by" << peer.keyId << "is now current";
    computeValidationLoss(checkpoint);
    return json(QJsonObject{{QStringLiteral("round"), double(stateRound)},
                            {QStringLiteral("sha256"), checkpoint.sha256},
                            {QStringLiteral("bytes"), double(checkpoint.bytes)}});
}

void CoordinatorServer::computeValidationLoss(const CheckpointRecord &checkpoint)
{
    const std::filesystem::path file = m_setup.checkpointsDir() / checkpoint.fileName.toStdString();
    const qint64 round = checkpoint.round;
    const int batch = m_options.training.batchSize;
    const int iters = m_options.evalIters;
    const std::uint64_t seed = m_options.training.seed;
    const std::vector<std::int32_t> *tokens = &m_setup.validationTokens;
    m_workers.start([this, file, round, batch, iters, seed, tokens]() {
        // The server waits for this task in its destructor, so `this` outlives it.
        Result<double> loss = swarmStateLoss(file, *tokens, batch, iters, seed);
        QMetaObject::invokeMethod(
            this,
            [this, round, loss]() {
                if (!loss) {
                    qCWarning(lcCoordinator) << "no validation loss for state" << round << ":"
                                             << loss.error().message.c_str();
                    return;
                }
                if (Result<void> saved = m_store.setValidationLoss(round, *loss); !saved) {
                    qCWarning(lcCoordinator) << saved.error().message.c_str();
                    return;
                }
                if (m_setup.checkpoint.round == round)
                    m_setup.checkpoint.validationLoss = *loss;
                qCInfo(lcCoordinator) << "state" << round << "validation loss" << *loss;
                Q_EMIT validationLossRecorded(round, *loss);
            },
            Qt::QueuedConnection);
    });
}

CoordinatorServer::Reply CoordinatorServer::handleRound()
{
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return error(500, QString::fromStdString(round.error().message));
    QJsonArray members;
    for (const RoundMember &member : round->members) {
        Result<std::optional<PeerRecord>> peer = m_store.peer(member.keyId);
        const bool found = peer && *peer;
        members.append(QJsonObject{
            {QStringLiteral("peer_id"), member.keyId},
            {QStringLiteral("public_key"), found ? QString::fromLatin1((*peer)->publicKey.toBase64()) : QString()},
            {QStringLiteral("endpoint"), found ? (*peer)->endpoint : QString()},
            {QStringLiteral("reachable"), member.reachable},
            {QStringLiteral("range"), QJsonArray{double(member.begin), double(member.end)}}});
    }
    return json(QJsonObject{{QStringLiteral("round"), double(round->number)},
                            {QStringLiteral("attempt"), round->attempt},
                            {QStringLiteral("state"), roundStateName(round->state)},
                            {QStringLiteral("deadline_ms"), double(round->deadlineMs)},
                            {QStringLiteral("parameter_count"), double(m_setup.parameterCount)},
                            {QStringLiteral("members"), members}});
}

CoordinatorServer::Reply CoordinatorServer::handleStatus()
{
    Result<RoundRecord> round = m_rounds.current();
    Result<std::vector<PeerRecord>> peers = m_store.peers();
    Result<std::vector<PeerRecord>> leaders = m_store.leaderboard(kLeaderboardSize);
    Result<std::vector<CheckpointRecord>> checkpoints = m_store.checkpoints();
    if (!round || !peers || !leaders || !checkpoints)
        return error(500, QStringLiteral("cannot read the swarm's state"));
    const auto online = std::count_if(peers->begin(), peers->end(),
                                      [&](const PeerRecord &peer) { return m_rounds.isOnline(peer); });
    QJsonArray history;
    for (const CheckpointRecord &checkpoint : *checkpoints) {
        if (checkpoint.validationLoss) {
            history.append(QJsonObject{{QStringLiteral("round"), double(checkpoint.round)},
                                       {QStringLiteral("val_loss"), *checkpoint.validationLoss}});
        }
    }
    QJsonArray leaderboard;
    for (const PeerRecord &peer : *leaders) {
        leaderboard.append(QJsonObject{{QStringLiteral("peer_id"), peer.keyId},
                                       {QStringLiteral("credit"), peer.credit},
                                       {QStringLiteral("tokens"), double(peer.tokens)}});
    }
    return json(QJsonObject{
        {QStringLiteral("round"), double(round->number)},
        {QStringLiteral("round_state"), roundStateName(round->state)},
        {QStringLiteral("peers"), double(online)},
        {QStringLiteral("peers_total"), double(peers->size())},
        {QStringLiteral("checkpoint_round"), double(m_setup.checkpoint.round)},
        {QStringLiteral("model"), QJsonDocument::fromJson(QByteArray::fromStdString(m_setup.model.toJson())).object()},
        {QStringLiteral("val_loss_history"), history},
        {QStringLiteral("leaderboard"), leaderboard}});
}

CoordinatorServer::Reply CoordinatorServer::handleDownload(const std::filesystem::path &file, const QString &sha256,
                                                           const QByteArray &rangeHeader,
                                                           const QList<QPair<QByteArray, QByteArray>> &extraHeaders)
{
    QFile input(QString::fromStdString(file.string()));
    if (!input.open(QIODevice::ReadOnly))
        return error(500, QStringLiteral("cannot read the file"));
    const qint64 size = input.size();
    qint64 begin = 0;
    qint64 end = size;
    Reply reply;
    reply.contentType = "application/octet-stream";
    reply.headers = extraHeaders;
    reply.headers.append(qMakePair(QByteArray("X-Content-SHA256"), sha256.toLatin1()));
    reply.headers.append(qMakePair(QByteArray("Accept-Ranges"), QByteArray("bytes")));
    if (!rangeHeader.isEmpty()) {
        if (!parseRange(rangeHeader, size, begin, end)) {
            Reply refused = error(416, QStringLiteral("unsatisfiable range %1 of a %2-byte file")
                                           .arg(QString::fromLatin1(rangeHeader))
                                           .arg(size));
            refused.headers.append(qMakePair(QByteArray("Content-Range"), "bytes */" + QByteArray::number(size)));
            return refused;
        }
        reply.status = 206;
        reply.headers.append(qMakePair(QByteArray("Content-Range"), "bytes " + QByteArray::number(begin) + "-"
                                                                         + QByteArray::number(end - 1) + "/"
                                                                         + QByteArray::number(size)));
    }
    if (!input.seek(begin))
        return error(500, QStringLiteral("cannot read the file"));
    reply.body = input.read(end - begin);
    if (reply.body.size() != end - begin)
        return error(500, QStringLiteral("cannot read the file"));
    return reply;
}

} // namespace swarmtrain
