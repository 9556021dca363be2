#include "AverageEndpoints.h"

#include "CoordinatorLog.h"
#include "FileIo.h"
#include "OwnerDisputes.h"
#include "OwnerEvidence.h"
#include "QtText.h"
#include "Quantization.h"
#include "RangeAverageBlob.h"
#include "Sha256.h"

#include <QFile>
#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>

namespace swarmtrain {

namespace {

constexpr qint64 kRangeOverheadBytes = qint64(kRangeAverageHeaderBytes + kQuantizedHeaderBytes) + 4;

// What an accepted contribution of the round reported for the range at `begin`, if anything.
std::optional<QString> reportedHash(const std::vector<AverageReportRecord> &reports, const QString &keyId,
                                    qint64 begin)
{
    for (const AverageReportRecord &report : reports) {
        if (report.keyId == keyId && report.begin == begin)
            return report.sha256;
    }
    return std::nullopt;
}

} // namespace

AverageEndpoints::AverageEndpoints(CoordinatorContext context) : EndpointGroup(context)
{
    m_checks.setMaxThreadCount(1);
}

AverageEndpoints::~AverageEndpoints() { m_checks.waitForDone(); }

void AverageEndpoints::addRoutes(RouteTable &routes)
{
    Route uploadRoute = route(QHttpServerRequest::Method::Post, "/v1/round/averages", RouteAccess::Peer,
                              RouteBody::Bytes, [this](HttpExchange &exchange) { upload(exchange); });
    uploadRoute.maxBodyBytes = [this] { return maxAveragesBytes(m_context.setup.parameterCount); };
    routes.add(std::move(uploadRoute));
}

qint64 AverageEndpoints::maxAveragesBytes(std::int64_t parameterCount)
{
    const auto count = std::size_t(std::max<std::int64_t>(parameterCount, 1));
    return qint64(encodedQuantizedSize(count)) + qint64(kMaxBlobRanges) * kRangeOverheadBytes;
}

std::filesystem::path AverageEndpoints::averagesFile(const CoordinatorSetup &setup, qint64 round, qint64 attempt,
                                                     const QString &keyId)
{
    // A key id is 32 hex digits (Identity::keyIdOf): safe in a file name.
    return setup.checkpointsDir()
           / QStringLiteral("averages-%1.%2-%3.bin").arg(round).arg(attempt).arg(keyId).toStdString();
}

void AverageEndpoints::forgetAveragesBefore(const CoordinatorSetup &setup, qint64 round)
{
    static const QRegularExpression name(QStringLiteral("^averages-(\\d+)\\.\\d+-[0-9a-f]+\\.bin$"));
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(setup.checkpointsDir(), ec)) {
        const QRegularExpressionMatch match = name.match(QString::fromStdString(entry.path().filename().string()));
        if (match.hasMatch() && match.captured(1).toLongLong() < round)
            std::filesystem::remove(entry.path(), ec);
    }
}

Result<AverageEndpoints::Expected> AverageEndpoints::expectationFor(const PeerRecord &peer, qint64 number, int &status)
{
    status = 500;
    Result<std::optional<RoundRecord>> found = m_context.store.round(number);
    Result<std::optional<CheckpointRecord>> held = m_context.store.checkpoint(number + 1);
    if (!found || !held)
        return makeError("cannot read the rounds");
    status = 409;
    if (!*found || (*found)->state != RoundState::Done)
        return makeError("round " + std::to_string(number) + " has not produced an agreed state");
    if (*held)
        return makeError("the coordinator already holds state " + std::to_string(number + 1));
    const RoundRecord &round = **found;
    Expected expected{round.attempt, {}};
    status = 500;
    Result<std::vector<ContributionRecord>> contributions = m_context.store.contributions(round.number, round.attempt);
    Result<std::vector<AverageReportRecord>> reports = m_context.store.averageReports(round.number, round.attempt);
    if (!contributions || !reports)
        return makeError("cannot read the round's contributions");
    // What an owner or checker applied counts also when its own replica was outvoted (it started
    // from other parameters, say): the state must still hash to the agreed one.
    status = 403;
    if (std::none_of(contributions->begin(), contributions->end(), [&](const ContributionRecord &c) {
            return c.keyId == peer.keyId && c.accepted.value_or(false);
        }))
        return makeError("only a peer whose contribution to round " + std::to_string(number)
                         + " was accepted may post its range averages");
    const std::map<QString, QString> checkers = rangeCheckersOf(round), referees = rangeRefereesOf(round);
    for (const RoundMember &member : round.members) {
        if (member.end <= member.begin)
            continue;
        ExpectedRange range{member.end, {}};
        const auto add = [&](const QString &role, const QString &keyId) {
            range.partners.push_back({role, keyId, reportedHash(*reports, keyId, member.begin)});
        };
        add(QStringLiteral("owner"), member.keyId);
        if (const auto checker = checkers.find(member.keyId); checker != checkers.end())
            add(QStringLiteral("checker"), checker->second);
        if (const auto referee = referees.find(member.keyId); referee != referees.end())
            add(QStringLiteral("referee"), referee->second);
        expected.ranges.emplace(member.begin, std::move(range));
    }
    if (!m_context.options.trust.rangeRulings)
        return expected;
    status = 500;
    Result<std::vector<UpdateReportRecord>> rulings = m_context.store.evidenceRulings(round.number, round.number);
    if (!rulings)
        return rulings.error();
    Result<std::vector<UpdateReportRecord>> records = m_context.store.updateReports(round.number, round.attempt);
    if (!records)
        return records.error();
    for (const auto &[begin, ruling] : rulingsByRange(round, *rulings)) {
        const bool upheld = ruling.kind == QLatin1StringView(kEvidenceUpheld);
        expected.ranges[begin].ruling = Ruling{upheld, ruling.detail, upheld ? QString() : redoneSha256Of(*records, ruling.senderKeyId)};
    }
    return expected;
}

QString AverageEndpoints::refusal(const QByteArray &blob, const Expected &expected, qint64 parameterCount)
{
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(blob.constData()), std::size_t(blob.size()));
    Result<std::vector<RangeAverage>> ranges = decodeRangeAverages(bytes, parameterCount);
    if (!ranges)
        return QStringLiteral("the averages do not decode: %1").arg(toQString(ranges.error()));
    for (const RangeAverage &range : *ranges) {
        const QString name = QStringLiteral("range [%1, %2)").arg(range.begin).arg(range.end);
        const auto it = expected.ranges.find(range.begin);
        if (it == expected.ranges.end() || it->second.end != range.end)
            return QStringLiteral("%1 is not a range of the round").arg(name);
        const QString hash = QString::fromStdString(Sha256::hexOf(range.payload));
        if (const std::optional<Ruling> &ruling = it->second.ruling; ruling && ruling->upheld) {
            if (hash == ruling->sha256)
                continue;
            return QStringLiteral("%1 is not the average the coordinator upheld").arg(name);
        } else if (ruling && hash == ruling->sha256) {
            return QStringLiteral("%1 is the average the coordinator refuted").arg(name);
        } else if (ruling && !ruling->redoneSha256.isEmpty() && hash == ruling->redoneSha256) {
            continue; // the range as the coordinator recomputed it from the owner's pieces
        }
        const std::vector<Partner> &partners = it->second.partners;
        const auto vouching = std::count_if(partners.begin(), partners.end(), [&](const Partner &p) { return p.hash == hash; });
        // Owner and checker both; with a referee, any two of the three.
        if (vouching >= std::min<std::ptrdiff_t>(2, std::ssize(partners)))
            continue;
        const auto dissent = std::find_if(partners.begin(), partners.end(), [&](const Partner &p) { return p.hash != hash; });
        return QStringLiteral("%1 is not the average its %2 %3 reported").arg(name, dissent->role, dissent->keyId);
    }
    // The payloads decode as members decode them, to finite values.
    if (Result<std::vector<float>> average = assembleAverage(*ranges, parameterCount); !average)
        return QStringLiteral("the averages do not decode: %1").arg(toQString(average.error()));
    return {};
}

void AverageEndpoints::upload(const HttpExchange &exchange)
{
    bool ok = false;
    const qint64 round = exchange.request.query().queryItemValue(QStringLiteral("round")).toLongLong(&ok);
    if (!ok || round < 0)
        return exchange.respond(HttpReply::error(400, QStringLiteral("POST /v1/round/averages needs ?round=R")));
    int status = 0;
    Result<Expected> expected = expectationFor(exchange.peer, round, status);
    if (!expected)
        return exchange.respond(HttpReply::error(status, toQString(expected.error())));
    const std::shared_ptr<QFile> file = exchange.request.bodyFile();
    const QByteArray inMemory = exchange.request.body();
    const std::filesystem::path target = averagesFile(m_context.setup, round, expected->attempt, exchange.peer.keyId);
    const qint64 parameterCount = m_context.setup.parameterCount, maxBytes = maxAveragesBytes(parameterCount);
    m_checks.start([this, file, inMemory, target, expected = *expected, parameterCount, maxBytes, round,
                    keyId = exchange.peer.keyId, reply = exchange.replier()] {
        QByteArray blob = inMemory;
        QString why;
        if (file) {
            Result<std::vector<std::byte>> read = readFileBytes(file->fileName().toStdString(), std::uint64_t(maxBytes));
            if (read)
                blob = QByteArray(reinterpret_cast<const char *>(read->data()), qsizetype(read->size()));
            else
                why = QStringLiteral("cannot read the averages: %1").arg(toQString(read.error()));
        }
        if (why.isEmpty())
            why = refusal(blob, expected, parameterCount);
        int status = 400;
        if (why.isEmpty()) {
            const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(blob.constData()),
                                                   std::size_t(blob.size()));
            if (Result<void> written = writeFileAtomically(target, bytes); !written) {
                why = QStringLiteral("cannot keep the averages: %1").arg(toQString(written.error()));
                status = 500;
            }
        }
        // The server outlives this job: ~AverageEndpoints waits for it.
        QMetaObject::invokeMethod(
            m_context.server,
            [why, status, round, keyId, reply] {
                if (!why.isEmpty()) {
                    qCWarning(lcCoordinator) << "refused the averages of round" << round << "from" << keyId << ":" << why;
                    return reply(HttpReply::error(status, why));
                }
                qCInfo(lcCoordinator) << "kept the averages of round" << round << "from" << keyId;
                reply(HttpReply::json(QJsonObject{{QStringLiteral("kept"), true}}));
            },
            Qt::QueuedConnection);
    });
}

} // namespace swarmtrain
