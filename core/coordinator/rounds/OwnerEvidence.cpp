#include "OwnerEvidence.h"

#include "OuterOptimizer.h"
#include "Quantization.h"
#include "RangeAggregation.h"

#include <QCryptographicHash>

#include <algorithm>
#include <cmath>
#include <span>

namespace swarmtrain {

namespace {

Result<std::vector<float>> decoded(const QByteArray &payload, std::size_t count)
{
    Result<Quantized> quantized =
        decodeQuantized(std::span(reinterpret_cast<const std::byte *>(payload.constData()), std::size_t(payload.size())), count);
    if (!quantized)
        return quantized.error();
    return dequantize(*quantized);
}

const RoundMember *memberOf(const RoundRecord &round, const QString &keyId)
{
    const auto found = std::find_if(round.members.begin(), round.members.end(), [&](const RoundMember &m) { return m.keyId == keyId; });
    return found != round.members.end() ? &*found : nullptr;
}

} // namespace

EvidenceFinding weighEvidence(const RangeEvidence &evidence, const EvidenceCase &owned)
{
    const std::size_t count = std::size_t(owned.owner.end - owned.owner.begin);
    const auto refused = [](const QString &why) { return EvidenceFinding{why, {}, {}}; };
    if (evidence.begin != owned.owner.begin || evidence.end != owned.owner.end)
        return refused(QStringLiteral("it is not the owner's range"));
    const QString averageSha256 = QString::fromLatin1(QCryptographicHash::hash(evidence.average, QCryptographicHash::Sha256).toHex());
    QStringList senders;
    for (const auto &[sender, payload] : evidence.pieces)
        senders.append(sender);
    const QString claim = claimDetail(averageSha256, senders);
    if (!owned.claimed.isEmpty() && owned.claimed.section(QLatin1Char(':'), 0, 0) != averageSha256)
        return refused(QStringLiteral("it is not the average the owner named for the round's audit"));
    if (!owned.claimed.isEmpty() && owned.claimed != claim)
        return refused(QStringLiteral("they are not the pieces the owner named for the round's audit"));
    Result<std::vector<float>> average = decoded(evidence.average, count);
    if (!average)
        return refused(QStringLiteral("the average does not decode: %1").arg(QString::fromStdString(average.error().message)));
    std::vector<std::vector<float>> values;
    std::vector<RangePiece> pieces;
    values.reserve(evidence.pieces.size());
    for (const auto &[sender, payload] : evidence.pieces) {
        const RoundMember *m = memberOf(owned.round, sender);
        if (!m)
            return refused(QStringLiteral("%1 is not a member of the round").arg(sender));
        const auto committed = owned.commitments.find(sender);
        if (committed == owned.commitments.end()
            || QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex() != committed->second.toLatin1())
            return refused(QStringLiteral("the piece of %1 is not the one it committed to").arg(sender));
        Result<std::vector<float>> piece = decoded(payload, count);
        if (!piece)
            return refused(QStringLiteral("the piece of %1 does not decode: %2").arg(sender, QString::fromStdString(piece.error().message)));
        // What every owner refuses (ButterflyAllReduce::decodeValues, default limits): an owner that
        // averaged it in did not do an owner's work.
        if (!validateUpdate(*piece, std::sqrt(double(count))))
            return refused(QStringLiteral("it averaged the piece of %1, which an owner refuses").arg(sender));
        if (std::all_of(piece->begin(), piece->end(), [](float x) { return x == 0.0f; }))
            return refused(QStringLiteral("it averaged the all-zero piece of %1").arg(sender));
        values.push_back(std::move(piece).value());
        pieces.push_back({values.back(), m->probation, m->steps > 0 ? double(m->steps) : 1.0, m->staleness});
    }
    RangeAggregationOptions options;
    options.share = owned.round.share;
    Result<std::vector<float>> recomputed = aggregateRange(pieces, count, options);
    Result<Quantized> quantized = recomputed ? quantize(*recomputed) : Result<Quantized>(recomputed.error());
    if (!quantized)
        return refused(QStringLiteral("the pieces make no average: %1").arg(QString::fromStdString(quantized.error().message)));
    const double difference = rangeRelativeDifference(dequantize(*quantized), *average);
    if (difference <= kRangeTolerance)
        return {};
    EvidenceFinding finding{QStringLiteral("recomputed from its %1 pieces, its average differs by %2 (relative L2)")
                                .arg(evidence.pieces.size())
                                .arg(difference, 0, 'g', 3),
                            {}, {}};
    const std::vector<std::byte> encoded = encodeQuantized(*quantized);
    finding.redone = QByteArray(reinterpret_cast<const char *>(encoded.data()), qsizetype(encoded.size()));
    if (difference > 2.0 * kRangeTolerance)
        finding.farOffClaim = claim;
    return finding;
}

QString claimDetail(const QString &sha256, QStringList contributors)
{
    contributors.sort();
    const QByteArray keys = contributors.join(QLatin1Char(',')).toUtf8();
    return sha256 + QLatin1Char(':') + QString::fromLatin1(QCryptographicHash::hash(keys, QCryptographicHash::Sha256).toHex());
}

QString redoneSha256Of(const std::vector<UpdateReportRecord> &reports, const QString &owner)
{
    const auto redone = std::find_if(reports.begin(), reports.end(), [&](const UpdateReportRecord &r) {
        return r.kind == QLatin1StringView(kEvidenceRedone) && r.reporterKeyId == owner && r.senderKeyId == owner;
    });
    return redone != reports.end() ? redone->detail : QString();
}

std::map<qint64, UpdateReportRecord> rulingsByRange(const RoundRecord &round, const std::vector<UpdateReportRecord> &rulings)
{
    std::map<qint64, UpdateReportRecord> byRange;
    for (const UpdateReportRecord &ruling : rulings) {
        const auto owner = std::find_if(round.members.begin(), round.members.end(), [&](const RoundMember &m) {
            return m.keyId == ruling.senderKeyId && m.end > m.begin;
        });
        if (ruling.attempt == round.attempt && owner != round.members.end())
            byRange.emplace(owner->begin, ruling);
    }
    return byRange;
}

} // namespace swarmtrain
