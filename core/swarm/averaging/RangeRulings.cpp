#include "RangeRulings.h"

#include "Quantization.h"
#include "Sha256.h"

#include <algorithm>
#include <span>

namespace swarmtrain {

namespace {

QString sha256Hex(std::span<const std::byte> bytes) { return QString::fromStdString(Sha256::hexOf(bytes)); }

std::span<const std::byte> bytesOf(const QByteArray &payload)
{
    return {reinterpret_cast<const std::byte *>(payload.constData()), std::size_t(payload.size())};
}

// Leaves [begin, end) out of the round: zeros in the average, no applied average, skipped.
void skipRange(AllReduceOutcome &outcome, std::int64_t begin, std::int64_t end)
{
    const std::pair<std::int64_t, std::int64_t> span(begin, end);
    std::erase_if(outcome.appliedAverages, [&](const RangeAverage &a) { return a.begin == begin; });
    std::erase(outcome.redoneRanges, span);
    std::fill(outcome.average.begin() + begin, outcome.average.begin() + end, 0.0f);
    if (std::find(outcome.skippedRanges.begin(), outcome.skippedRanges.end(), span) == outcome.skippedRanges.end())
        outcome.skippedRanges.push_back(span);
}

// Applies `values` (decoded from `payload`) to [begin, end) in place of whatever stood there.
// `redone`: not as its owner averaged it.
void applyRange(AllReduceOutcome &outcome, std::int64_t begin, std::int64_t end, const std::vector<float> &values,
                const QByteArray &payload, bool redone)
{
    const std::pair<std::int64_t, std::int64_t> span(begin, end);
    std::erase_if(outcome.appliedAverages, [&](const RangeAverage &a) { return a.begin == begin; });
    std::erase(outcome.redoneRanges, span);
    std::erase(outcome.skippedRanges, span);
    if (redone)
        outcome.redoneRanges.push_back(span);
    std::copy(values.begin(), values.end(), outcome.average.begin() + begin);
    const auto *bytes = reinterpret_cast<const std::byte *>(payload.constData());
    outcome.appliedAverages.push_back({begin, end, {bytes, bytes + payload.size()}});
    std::sort(outcome.appliedAverages.begin(), outcome.appliedAverages.end(),
              [](const RangeAverage &a, const RangeAverage &b) { return a.begin < b.begin; });
}

} // namespace

Result<void> settleDisputedRanges(AllReduceOutcome &outcome, const std::map<QString, RangeRuling> &rulings)
{
    enum class Settled { OwnersAverage, AsRefereed, Skipped };
    struct Settlement {
        const DisputedRange *range;
        Settled how;
        std::vector<float> values; // the owner's average, decoded
    };
    std::vector<Settlement> settlements;
    for (const DisputedRange &range : outcome.disputedRanges) {
        const auto ruling = rulings.find(range.owner);
        const auto applied = std::find_if(outcome.appliedAverages.begin(), outcome.appliedAverages.end(),
                                          [&](const RangeAverage &a) { return a.begin == range.begin; });
        const QString ownerHash = range.ownerAverage.isEmpty() ? QString() : sha256Hex(bytesOf(range.ownerAverage));
        Settlement settlement{&range, Settled::Skipped, {}};
        if (ruling != rulings.end() && ruling->second.state == RangeRuling::State::Upheld && !ownerHash.isEmpty()
            && ruling->second.averageSha256 == ownerHash) {
            Result<Quantized> decoded = decodeQuantized(bytesOf(range.ownerAverage), std::size_t(range.end - range.begin));
            if (!decoded)
                return makeError("the average of " + range.owner.toStdString() + " does not decode: " + decoded.error().message);
            settlement = {&range, Settled::OwnersAverage, dequantize(*decoded)};
        } else if (ruling != rulings.end() && ruling->second.state == RangeRuling::State::Refuted
                   && applied != outcome.appliedAverages.end() && sha256Hex(applied->payload) != ownerHash) {
            settlement.how = Settled::AsRefereed;
        }
        settlements.push_back(std::move(settlement));
    }
    for (const Settlement &settlement : settlements) {
        const DisputedRange &range = *settlement.range;
        if (settlement.how == Settled::Skipped)
            skipRange(outcome, range.begin, range.end);
        else if (settlement.how == Settled::OwnersAverage)
            applyRange(outcome, range.begin, range.end, settlement.values, range.ownerAverage, false);
    }
    return {};
}

void skipUnauditedRanges(AllReduceOutcome &outcome, const QStringList &audited)
{
    for (const DisputedRange &range : outcome.uncheckedRanges) {
        if (!audited.contains(range.owner))
            skipRange(outcome, range.begin, range.end);
    }
}

void settleAuditedRanges(AllReduceOutcome &outcome, const std::vector<DisputedRange> &audited,
                         const std::map<QString, RangeRuling> &rulings, const std::map<QString, QByteArray> &redone)
{
    for (const DisputedRange &range : audited) {
        const auto disputed = std::find_if(outcome.disputedRanges.begin(), outcome.disputedRanges.end(),
                                           [&](const DisputedRange &d) { return d.begin == range.begin; });
        const auto applied = std::find_if(outcome.appliedAverages.begin(), outcome.appliedAverages.end(),
                                          [&](const RangeAverage &a) { return a.begin == range.begin; });
        const auto ruling = rulings.find(range.owner);
        if (disputed != outcome.disputedRanges.end()) {
            if (applied != outcome.appliedAverages.end())
                continue; // settled as disputed: the owner's average upheld, or the checker's as refereed
        } else if (applied == outcome.appliedAverages.end()) {
            continue; // skipped already
        } else if (ruling != rulings.end() && ruling->second.state == RangeRuling::State::Upheld
                   && ruling->second.averageSha256 == sha256Hex(applied->payload)) {
            continue;
        }
        skipRange(outcome, range.begin, range.end);
        const auto recomputed = redone.find(range.owner);
        if (ruling == rulings.end() || ruling->second.state != RangeRuling::State::Refuted || recomputed == redone.end()
            || ruling->second.redoneSha256.isEmpty() || sha256Hex(bytesOf(recomputed->second)) != ruling->second.redoneSha256)
            continue;
        Result<Quantized> decoded = decodeQuantized(bytesOf(recomputed->second), std::size_t(range.end - range.begin));
        if (decoded)
            applyRange(outcome, range.begin, range.end, dequantize(*decoded), recomputed->second, true);
    }
}

} // namespace swarmtrain
