// ButterflyAllReduce's numbers: what a piece or an average must be to be taken, and how an
// owner (and its checker and referee, recomputing it) combines the pieces of a range.
#include "ButterflyAllReduce.h"

#include "OuterOptimizer.h"
#include "Quantization.h"

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

namespace {

void scaleAverage(std::vector<float> &average, double scale)
{
    if (scale == 1.0)
        return;
    for (float &value : average)
        value = float(double(value) * scale);
}

} // namespace

Result<std::vector<float>> ButterflyAllReduce::aggregatePieces(const std::map<QString, Piece> &pieces, std::int64_t count,
                                                               bool log)
{
    // Pieces in key-id order (std::map), so the result is the same whatever order they came in.
    // A member on probation has its piece checked like anyone's, but not averaged in.
    // An asynchronous round weighs each piece by its steps times its staleness weight, and scales
    // the result by their share of the steps alone: sum(w f(s) piece) / sum(w), and by the
    // round's share of the swarm's work. Fresh pieces of a whole swarm average as they always
    // did; a round of stale ones, or of a few of the swarm's peers, moves the state less.
    std::vector<std::span<const float>> spans;
    std::vector<double> weights;
    double steps = 0.0, stalenessWeighted = 0.0;
    QStringList senders;
    for (const auto &[sender, piece] : pieces) {
        const AllReduceMember *m = member(sender);
        if (m && m->probation)
            continue;
        const double weight = m && m->weight > 0.0 && std::isfinite(m->weight) ? m->weight : 1.0;
        const double fresh = stalenessWeight(m ? m->staleness : 0);
        spans.emplace_back(piece.values);
        weights.push_back(weight * fresh);
        steps += weight;
        stalenessWeighted += weight * fresh;
        senders.append(sender);
    }
    if (spans.empty())
        return makeError("no piece of a member past probation arrived");
    std::vector<float> average(std::size_t(count), 0.0f);
    if (m_options.aggregation == Aggregation::Mean) {
        std::vector<WeightedPiece> weighted;
        for (std::size_t i = 0; i < spans.size(); ++i)
            weighted.push_back({spans[i], weights[i]});
        if (Result<void> r = weightedAverage(weighted, average); !r)
            return r.error();
        scaleAverage(average, m_options.share * stalenessWeighted / steps);
    } else {
        Result<CenteredClipReport> clipped = centeredClip(spans, average, m_options.clip, weights);
        if (!clipped)
            return clipped.error();
        scaleAverage(average, m_options.share * stalenessWeighted / steps);
        if (!log)
            return average;
        // Left out are the ones still beyond tau at the end, so those are logged as left out.
        for (std::size_t i : clipped->leftOut) {
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": left out the piece of" << senders[qsizetype(i)]
                                             << "(farther than tau" << clipped->tau << "from the others' center)";
            m_outcome.clippedSenders.append(senders[qsizetype(i)]);
            m_outcome.leftOutSenders.append(senders[qsizetype(i)]);
        }
        for (std::size_t i : clipped->clipped) {
            if (m_outcome.clippedSenders.contains(senders[qsizetype(i)]))
                continue;
            qCWarning(lcAllReduce).noquote() << "round" << m_round << ": clipped the piece of" << senders[qsizetype(i)]
                                             << "(far from the others; tau" << clipped->tau << ")";
            m_outcome.clippedSenders.append(senders[qsizetype(i)]);
        }
    }
    if (log && m_options.misbehaviour.ownerAverage)
        m_options.misbehaviour.ownerAverage(average);
    return average;
}


} // namespace swarmtrain
