#include "RangeAggregation.h"

#include "OuterOptimizer.h"
#include "StalenessWeight.h"

#include <cmath>

namespace swarmtrain {

double rangeRelativeDifference(std::span<const float> mine, std::span<const float> theirs)
{
    if (mine.size() != theirs.size())
        return 1.0;
    double difference = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const double d = double(mine[i]) - double(theirs[i]);
        difference += d * d;
        norm += double(mine[i]) * double(mine[i]);
    }
    return norm > 0.0 ? std::sqrt(difference / norm) : (difference > 0.0 ? 1.0 : 0.0);
}

Result<std::vector<float>> aggregateRange(std::span<const RangePiece> pieces, std::size_t count,
                                          const RangeAggregationOptions &options, CenteredClipReport *report)
{
    // An asynchronous round weighs each piece by its steps times its staleness weight, and scales
    // the result by their share of the steps alone: sum(w f(s) piece) / sum(w), and by the
    // round's share of the swarm's work. Fresh pieces of a whole swarm average as they always
    // did; a round of stale ones, or of a few of the swarm's peers, moves the state less.
    std::vector<std::span<const float>> spans;
    std::vector<double> weights;
    std::vector<std::size_t> index; // into `pieces`
    double steps = 0.0, stalenessWeighted = 0.0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const RangePiece &piece = pieces[i];
        if (piece.probation)
            continue;
        if (piece.values.size() != count)
            return makeError("a piece holds " + std::to_string(piece.values.size()) + " values, not the range's "
                             + std::to_string(count));
        const double weight = piece.weight > 0.0 && std::isfinite(piece.weight) ? piece.weight : 1.0;
        const double fresh = stalenessWeight(piece.staleness);
        spans.push_back(piece.values);
        weights.push_back(weight * fresh);
        index.push_back(i);
        steps += weight;
        stalenessWeighted += weight * fresh;
    }
    if (spans.empty())
        return makeError("no piece of a member past probation arrived");
    std::vector<float> average(count, 0.0f);
    if (options.aggregation == Aggregation::Mean) {
        std::vector<WeightedPiece> weighted;
        for (std::size_t i = 0; i < spans.size(); ++i)
            weighted.push_back({spans[i], weights[i]});
        if (Result<void> r = weightedAverage(weighted, average); !r)
            return r.error();
    } else {
        Result<CenteredClipReport> clipped = centeredClip(spans, average, options.clip, weights);
        if (!clipped)
            return clipped.error();
        if (report) {
            *report = *clipped;
            for (std::size_t &i : report->clipped)
                i = index[i];
            for (std::size_t &i : report->leftOut)
                i = index[i];
            for (std::size_t &i : report->ignored)
                i = index[i];
        }
    }
    const double scale = options.share * stalenessWeighted / steps;
    if (scale != 1.0) {
        for (float &value : average)
            value = float(double(value) * scale);
    }
    return average;
}

} // namespace swarmtrain
