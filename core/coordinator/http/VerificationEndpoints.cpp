#include "VerificationEndpoints.h"

#include "FileDownload.h"
#include "QtText.h"
#include "VerificationMessages.h"

#include <QCryptographicHash>
#include <QFile>
#include <QUrlQuery>

#include <memory>

namespace swarmtrain {

namespace {

// ?name=N with N ≥ 0, or -1.
qint64 roundParameter(const HttpRequest &request)
{
    bool ok = false;
    const qint64 round = request.query().queryItemValue(QStringLiteral("round")).toLongLong(&ok);
    return ok && round >= 0 ? round : -1;
}

HttpReply failure(int status, const Error &error) { return HttpReply::error(status, toQString(error)); }

} // namespace

VerificationEndpoints::VerificationEndpoints(CoordinatorContext context) : EndpointGroup(context)
{
    m_checks.setMaxThreadCount(1);
}

VerificationEndpoints::~VerificationEndpoints() { m_checks.waitForDone(); }

void VerificationEndpoints::addRoutes(RouteTable &routes)
{
    using Method = QHttpServerRequest::Method;
    routes.add(route(Method::Post, "/v1/round/commit", RouteAccess::Peer, RouteBody::Json,
                     decoding<CommitRequest>([this](HttpExchange &exchange, const CommitRequest &request) {
                         int status = 0;
                         Result<void> done = m_context.verification.commit(exchange.peer, request, status);
                         exchange.respond(done ? HttpReply::json(QJsonObject{{QStringLiteral("committed"), true}})
                                               : failure(status, done.error()));
                     })));
    routes.add(route(Method::Get, "/v1/round/commitments", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(commitments(exchange)); }));
    Route uploadRoute = route(Method::Post, "/v1/round/update", RouteAccess::Peer, RouteBody::Bytes,
                              [this](HttpExchange &exchange) { upload(exchange); });
    uploadRoute.maxBodyBytes = [this] { return m_context.verification.maxUpdateBytes(); };
    routes.add(std::move(uploadRoute));
    Route evidenceRoute = route(Method::Post, "/v1/round/evidence", RouteAccess::Peer, RouteBody::Json,
                                [this](HttpExchange &exchange) { evidence(exchange); });
    evidenceRoute.maxBodyBytes = [this] { return m_context.verification.maxEvidenceBytes(); };
    routes.add(std::move(evidenceRoute));
    routes.add(route(Method::Get, "/v1/round/ruling", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(ruling(exchange)); }));
    routes.add(route(Method::Post, "/v1/round/average", RouteAccess::Peer, RouteBody::Json,
                     decoding<AverageClaim>([this](HttpExchange &exchange, const AverageClaim &claim) {
                         int status = 0;
                         Result<void> done = m_context.verification.claimAverage(exchange.peer, claim, status);
                         exchange.respond(done ? HttpReply::json(QJsonObject{{QStringLiteral("named"), true}})
                                               : failure(status, done.error()));
                     })));
    routes.add(route(Method::Get, "/v1/round/redone", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(redone(exchange)); }));
    routes.add(route(Method::Get, "/v1/round/audit", RouteAccess::Peer, RouteBody::None, [this](HttpExchange &exchange) {
        const qint64 round = roundParameter(exchange.request);
        if (round < 0)
            return exchange.respond(HttpReply::error(400, QStringLiteral("GET /v1/round/audit needs ?round=R")));
        int status = 0;
        Result<RangeAudit> audit = m_context.verification.rangeAudit(exchange.peer, round, status);
        exchange.respond(audit ? HttpReply::json(audit->toJson()) : failure(status, audit.error()));
    }));
    routes.add(route(Method::Get, "/v1/round/update", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(download(exchange)); }));
    routes.add(route(Method::Post, "/v1/round/check", RouteAccess::Peer, RouteBody::Json,
                     decoding<SpotCheckReport>([this](HttpExchange &exchange, const SpotCheckReport &report) {
                         int status = 0;
                         Result<void> done = m_context.verification.report(exchange.peer, report, status);
                         exchange.respond(done ? HttpReply::json(QJsonObject{{QStringLiteral("recorded"), true}})
                                               : failure(status, done.error()));
                     })));
}

HttpReply VerificationEndpoints::commitments(const HttpExchange &exchange)
{
    const qint64 round = roundParameter(exchange.request);
    if (round < 0)
        return HttpReply::error(400, QStringLiteral("GET /v1/round/commitments needs ?round=R"));
    int status = 0;
    Result<CommitmentsAnswer> answer = m_context.verification.commitmentsTo(exchange.peer, round, status);
    return answer ? HttpReply::json(answer->toJson()) : failure(status, answer.error());
}

HttpReply VerificationEndpoints::ruling(const HttpExchange &exchange)
{
    const qint64 round = roundParameter(exchange.request);
    const QString owner = exchange.request.query().queryItemValue(QStringLiteral("owner"));
    if (round < 0 || owner.isEmpty() || owner.size() > 64)
        return HttpReply::error(400, QStringLiteral("GET /v1/round/ruling needs ?round=R&owner=KEY"));
    int status = 0;
    Result<RangeRuling> answer = m_context.verification.rangeRuling(exchange.peer, round, owner, status);
    return answer ? HttpReply::json(answer->toJson()) : failure(status, answer.error());
}

HttpReply VerificationEndpoints::redone(const HttpExchange &exchange)
{
    const qint64 round = roundParameter(exchange.request);
    const QString owner = exchange.request.query().queryItemValue(QStringLiteral("owner"));
    if (round < 0 || owner.isEmpty() || owner.size() > 64)
        return HttpReply::error(400, QStringLiteral("GET /v1/round/redone needs ?round=R&owner=KEY"));
    int status = 0;
    QString sha256;
    Result<std::filesystem::path> file = m_context.verification.redonePath(exchange.peer, round, owner, sha256, status);
    return file ? fileDownload(*file, sha256, exchange.request, {}) : failure(status, file.error());
}

void VerificationEndpoints::upload(const HttpExchange &exchange)
{
    const qint64 round = roundParameter(exchange.request);
    if (round < 0)
        return exchange.respond(HttpReply::error(400, QStringLiteral("POST /v1/round/update needs ?round=R")));
    if (!exchange.request.bodyFile())
        return exchange.respond(HttpReply::error(400, QStringLiteral("the update is empty")));
    int status = 0;
    Result<Verification::UpdateExpectation> expected =
        m_context.verification.expectUpdate(exchange.peer.keyId, round, status);
    if (!expected)
        return exchange.respond(failure(status, expected.error()));
    // Reading and hashing the pieces takes a while for a large model: off the event loop.
    const std::shared_ptr<QFile> file = exchange.request.bodyFile();
    const QString sha256 = QString::fromLatin1(exchange.request.bodySha256Hex());
    m_checks.start([this, file, sha256, expected = *expected, reply = exchange.replier()] {
        const std::filesystem::path path = file->fileName().toStdString();
        const QString mismatch = Verification::mismatchOf(path, expected);
        // The server outlives this job: ~VerificationEndpoints waits for it.
        QMetaObject::invokeMethod(
            m_context.server,
            [this, file, path, sha256, expected, mismatch, reply] {
                int status = 0;
                Result<void> kept = m_context.verification.keepUpdate(expected, path, sha256, mismatch, status);
                reply(kept ? HttpReply::json(QJsonObject{{QStringLiteral("kept"), true}}) : failure(status, kept.error()));
            },
            Qt::QueuedConnection);
    });
}

void VerificationEndpoints::evidence(const HttpExchange &exchange)
{
    Result<RangeEvidence> evidence = RangeEvidence::fromJson(exchange.json, m_context.verification.maxEvidencePayloadBytes());
    if (!evidence)
        return exchange.respond(failure(400, evidence.error()));
    int status = 0;
    Result<EvidenceCase> owned = m_context.verification.evidenceCase(exchange.peer, *evidence, status);
    if (!owned)
        return exchange.respond(failure(status, owned.error()));
    // Decoding every piece and recomputing the range takes a while for a large model: off the event loop.
    m_checks.start([this, evidence = std::move(evidence).value(), owned = std::move(owned).value(), reply = exchange.replier()] {
        const EvidenceFinding finding = weighEvidence(evidence, owned);
        const QString averageSha256 = QString::fromLatin1(QCryptographicHash::hash(evidence.average, QCryptographicHash::Sha256).toHex());
        QMetaObject::invokeMethod(
            m_context.server,
            [this, owned, averageSha256, finding, reply] {
                Result<void> kept = m_context.verification.rule(owned, averageSha256, finding);
                reply(kept ? HttpReply::json(EvidenceRuling{finding.refusal.isEmpty(), finding.refusal}.toJson())
                           : failure(500, kept.error()));
            },
            Qt::QueuedConnection);
    });
}

HttpReply VerificationEndpoints::download(const HttpExchange &exchange)
{
    const qint64 round = roundParameter(exchange.request);
    const QString member = exchange.request.query().queryItemValue(QStringLiteral("peer"));
    if (round < 0 || member.isEmpty())
        return HttpReply::error(400, QStringLiteral("GET /v1/round/update needs ?round=R&peer=ID"));
    int status = 0;
    Result<SpotCheckRecord> check = m_context.verification.updateFor(exchange.peer.keyId, round, member, status);
    if (!check)
        return failure(status, check.error());
    return fileDownload(m_context.verification.updatePath(*check), check->updateSha256,
                        exchange.request, {});
}

} // namespace swarmtrain
