#include "CenteredClip.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace swarmtrain {

namespace {

bool allFinite(std::span<const float> values)
{
    return std::all_of(values.begin(), values.end(), [](float x) { return std::isfinite(x); });
}

// The median of values each counted its weight's times: the value where the running weight
// passes half the total, or the mean of the two around it where it lands on half exactly (for
// whole weights, the median of the list with each value repeated that often).
double weightedMedian(std::vector<std::pair<double, double>> valueAndWeight)
{
    std::sort(valueAndWeight.begin(), valueAndWeight.end());
    double total = 0.0;
    for (const auto &[value, weight] : valueAndWeight)
        total += weight;
    const double half = 0.5 * total, slack = 1e-12 * total;
    double running = 0.0;
    for (std::size_t i = 0; i < valueAndWeight.size(); ++i) {
        running += valueAndWeight[i].second;
        if (std::abs(running - half) <= slack && i + 1 < valueAndWeight.size())
            return 0.5 * (valueAndWeight[i].first + valueAndWeight[i + 1].first);
        if (running > half)
            return valueAndWeight[i].first;
    }
    return valueAndWeight.back().first;
}

// The coordinate-wise median (the mean of the two middle values for an even count), weighted.
std::vector<double> coordinateMedian(const std::vector<std::span<const float>> &pieces, const std::vector<double> &weights,
                                     std::size_t n)
{
    std::vector<double> median(n), column(pieces.size());
    const std::size_t m = pieces.size(), mid = m / 2;
    if (std::any_of(weights.begin(), weights.end(), [&](double w) { return w != weights.front(); })) {
        std::vector<std::pair<double, double>> weighted(m);
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t i = 0; i < m; ++i)
                weighted[i] = {pieces[i][j], weights[i]};
            median[j] = weightedMedian(weighted);
        }
        return median;
    }
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < m; ++i)
            column[i] = pieces[i][j];
        std::nth_element(column.begin(), column.begin() + std::ptrdiff_t(mid), column.end());
        double value = column[mid];
        if (m % 2 == 0)
            value = 0.5 * (value + *std::max_element(column.begin(), column.begin() + std::ptrdiff_t(mid)));
        median[j] = value;
    }
    return median;
}

double distance(std::span<const float> x, const std::vector<double> &v)
{
    double sum = 0.0;
    for (std::size_t j = 0; j < v.size(); ++j) {
        const double d = double(x[j]) - v[j];
        sum += d * d;
    }
    return std::sqrt(sum);
}

// The clipping iterations: v <- v + (1 / sum w) sum w_i clip(x_i - v, tau).
void iterate(const std::vector<std::span<const float>> &usable, const std::vector<double> &weights,
             const std::vector<std::size_t> &index, std::vector<double> &v, int iterations, CenteredClipReport &report)
{
    const std::size_t n = v.size(), m = usable.size();
    double totalWeight = 0.0;
    for (const double w : weights)
        totalWeight += w;
    std::vector<double> step(n);
    bool converged = false, unclippedBefore = false;
    for (int iteration = 0; iteration < iterations && !converged; ++iteration) {
        std::fill(step.begin(), step.end(), 0.0);
        report.clipped.clear();
        for (std::size_t i = 0; i < m; ++i) {
            const double norm = distance(usable[i], v);
            // A piece exactly at the center adds nothing; one beyond tau counts as length tau.
            double scale = weights[i];
            if (norm > report.tau) {
                scale *= report.tau / norm;
                report.clipped.push_back(index[i]);
            }
            for (std::size_t j = 0; j < n; ++j)
                step[j] += scale * (double(usable[i][j]) - v[j]);
        }
        for (std::size_t j = 0; j < n; ++j)
            v[j] += step[j] / totalWeight;
        // Nothing clipped twice running: v is the mean and stays there (the usual honest round).
        converged = iteration > 0 && report.clipped.empty() && unclippedBefore;
        unclippedBefore = report.clipped.empty();
    }
}

// v becomes the (weighted) mean of the pieces within tau of it, when they hold most of the weight.
void leaveOutOutliers(const std::vector<std::span<const float>> &usable, const std::vector<double> &weights,
                      const std::vector<std::size_t> &index, std::vector<double> &v, CenteredClipReport &report)
{
    std::vector<std::size_t> inliers, outliers;
    double inlierWeight = 0.0, totalWeight = 0.0;
    for (std::size_t i = 0; i < usable.size(); ++i) {
        const bool inside = distance(usable[i], v) <= report.tau;
        (inside ? inliers : outliers).push_back(i);
        inlierWeight += inside ? weights[i] : 0.0;
        totalWeight += weights[i];
    }
    if (outliers.empty() || 2 * inlierWeight <= totalWeight)
        return;
    std::fill(v.begin(), v.end(), 0.0);
    for (std::size_t i : inliers) {
        for (std::size_t j = 0; j < v.size(); ++j)
            v[j] += weights[i] * double(usable[i][j]) / inlierWeight;
    }
    for (std::size_t i : outliers)
        report.leftOut.push_back(index[i]);
}

} // namespace

Result<CenteredClipReport> centeredClip(std::span<const std::span<const float>> pieces, std::span<float> out,
                                        CenteredClipOptions options, std::span<const double> weights)
{
    const std::size_t n = out.size();
    if (!weights.empty() && weights.size() != pieces.size())
        return makeError(std::to_string(weights.size()) + " weights for " + std::to_string(pieces.size()) + " pieces");
    if (!std::all_of(weights.begin(), weights.end(), [](double w) { return std::isfinite(w) && w > 0.0; }))
        return makeError("every weight must be a positive number");
    CenteredClipReport report;
    std::vector<std::span<const float>> usable;
    std::vector<double> usableWeights;
    std::vector<std::size_t> index; // usable piece -> the caller's index
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (pieces[i].size() != n)
            return makeError("piece " + std::to_string(i) + " has " + std::to_string(pieces[i].size())
                             + " values, not " + std::to_string(n));
        if (allFinite(pieces[i])) {
            usable.push_back(pieces[i]);
            usableWeights.push_back(weights.empty() ? 1.0 : weights[i]);
            index.push_back(i);
        }
        else
            report.ignored.push_back(i);
    }
    if (usable.empty())
        return makeError("no piece without NaN or Inf to aggregate");
    const std::size_t m = usable.size();

    std::vector<double> v = coordinateMedian(usable, usableWeights, n);
    // tau from the plain median of the distances, each piece one count: a piece holding half the
    // weight sits at the weighted center, and weighing the distances too would put tau at zero
    // and leave every lighter honest piece out (two members, one of them faster).
    std::vector<std::pair<double, double>> distances(m);
    for (std::size_t i = 0; i < m; ++i)
        distances[i] = {distance(usable[i], v), 1.0};
    const double tau = options.tauScale * weightedMedian(std::move(distances));
    report.tau = std::isfinite(tau) ? tau : 0.0;

    iterate(usable, usableWeights, index, v, options.iterations, report);
    if (options.leaveOutOutliers)
        leaveOutOutliers(usable, usableWeights, index, v, report);
    for (std::size_t j = 0; j < n; ++j) {
        const float value = float(v[j]);
        if (!std::isfinite(value))
            return makeError("the clipped mean is not finite at value " + std::to_string(j));
        out[j] = value;
    }
    return report;
}

} // namespace swarmtrain
