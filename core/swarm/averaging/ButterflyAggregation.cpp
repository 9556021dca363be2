// ButterflyAllReduce's numbers: what a piece or an average must be to be taken, and how an
// owner (and its checker and referee, recomputing it) combines the pieces of a range.
#include "ButterflyAllReduce.h"

#include "OuterOptimizer.h"
#include "Quantization.h"
#include "RangeAggregation.h"

#include <QLoggingCategory>

#include <algorithm>
#include <cmath>
#include <span>

Q_DECLARE_LOGGING_CATEGORY(lcAllReduce)

namespace swarmtrain {

Result<std::vector<float>> ButterflyAllReduce::decodeValues(const FrameHeader &header, const QByteArray &payload,
                                                            std::int64_t count) const
{
    if (header.dtype() != "U8")
        return makeError("dtype " + header.dtype() + " is not an 8-bit encoding");
    Result<Quantized> quantized = decodeQuantized(
        std::span(reinterpret_cast<const std::byte *>(payload.constData()), std::size_t(payload.size())), std::size_t(count));
    if (!quantized)
        return quantized.error();
    std::vector<float> values = dequantize(*quantized);
    if (Result<void> r = validateUpdate(values, m_options.maxUpdateRms * std::sqrt(double(count))); !r)
        return r.error();
    // No honest training leaves a whole range where it was: all zeros is a freeloader's piece.
    if (m_options.refuseZeroPieces && std::all_of(values.begin(), values.end(), [](float x) { return x == 0.0f; }))
        return makeError("all zeros: no work");
    return values;
}

std::optional<std::vector<float>> ButterflyAllReduce::decodePiece(const QString &sender, const FrameHeader &header,
                                                                   const QByteArray &payload, std::int64_t count)
{
    Result<std::vector<float>> values = decodeValues(header, payload, count);
    if (!values)
        rejectPiece(sender, values.error().message);
    return values ? std::optional(std::move(values).value()) : std::nullopt;
}

Result<std::vector<float>> ButterflyAllReduce::aggregatePieces(const std::map<QString, Piece> &pieces, std::int64_t count,
                                                               bool log)
{
    // Pieces in key-id order (std::map), so the result is the same whatever order they came in.
    // A member on probation has its piece checked like anyone's, but not averaged in.
    std::vector<RangePiece> inputs;
    QStringList senders;
    for (const auto &[sender, piece] : pieces) {
        const AllReduceMember *m = member(sender);
        inputs.push_back({piece.values, m && m->probation, m ? m->weight : 1.0, m ? m->staleness : 0});
        senders.append(sender);
    }
    CenteredClipReport clipped;
    Result<std::vector<float>> average =
        aggregateRange(inputs, std::size_t(count), {m_options.aggregation, m_options.clip, m_options.share}, &clipped);
    if (!average || !log)
        return average;
    if (m_options.aggregation == Aggregation::CenteredClip) {
        // Left out are the ones still beyond tau at the end, so those are logged as left out.
        for (std::size_t i : clipped.leftOut) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": left out the piece of" << senders[qsizetype(i)]
                                             << "(farther than tau" << clipped.tau << "from the others' center)";
            m_outcome.clippedSenders.append(senders[qsizetype(i)]);
            m_outcome.leftOutSenders.append(senders[qsizetype(i)]);
        }
        for (std::size_t i : clipped.clipped) {
            if (m_outcome.clippedSenders.contains(senders[qsizetype(i)]))
                continue;
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": clipped the piece of" << senders[qsizetype(i)]
                                             << "(far from the others; tau" << clipped.tau << ")";
            m_outcome.clippedSenders.append(senders[qsizetype(i)]);
        }
    }
    // A coalition's member lies about its own range only (`log`: this peer's own average).
    const Misbehaviour &hostile = m_options.misbehaviour;
    const bool alliedChecker = hostile.allies.contains(m_checkerOf.value(m_self));
    const bool alliedReferee = hostile.allies.contains(m_refereeOf.value(m_self));
    if (hostile.ownerAverage
        && (hostile.allies.isEmpty()
            || (log && m_round >= hostile.fromRound && alliedChecker && !(hostile.liesUnderHonestReferee && alliedReferee))))
        hostile.ownerAverage(*average);
    return average;
}

} // namespace swarmtrain
