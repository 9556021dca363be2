#include "CenteredClip.h"

#include <algorithm>
#include <cmath>

namespace swarmtrain {

namespace {

bool allFinite(std::span<const float> values)
{
    return std::all_of(values.begin(), values.end(), [](float x) { return std::isfinite(x); });
}

// The coordinate-wise median (the mean of the two middle values for an even count).
std::vector<double> coordinateMedian(const std::vector<std::span<const float>> &pieces, std::size_t n)
{
    std::vector<double> median(n), column(pieces.size());
    const std::size_t m = pieces.size(), mid = m / 2;
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

double medianOf(std::vector<double> values)
{
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
    double value = values[mid];
    if (values.size() % 2 == 0)
        value = 0.5 * (value + *std::max_element(values.begin(), values.begin() + std::ptrdiff_t(mid)));
    return value;
}

// The clipping iterations: v <- v + (1/m) sum clip(x_i - v, tau).
void iterate(const std::vector<std::span<const float>> &usable, const std::vector<std::size_t> &index,
             std::vector<double> &v, int iterations, CenteredClipReport &report)
{
    const std::size_t n = v.size(), m = usable.size();
    std::vector<double> step(n);
    bool converged = false, unclippedBefore = false;
    for (int iteration = 0; iteration < iterations && !converged; ++iteration) {
        std::fill(step.begin(), step.end(), 0.0);
        report.clipped.clear();
        for (std::size_t i = 0; i < m; ++i) {
            const double norm = distance(usable[i], v);
            // A piece exactly at the center adds nothing; one beyond tau counts as length tau.
            double scale = 1.0;
            if (norm > report.tau) {
                scale = report.tau / norm;
                report.clipped.push_back(index[i]);
            }
            for (std::size_t j = 0; j < n; ++j)
                step[j] += scale * (double(usable[i][j]) - v[j]);
        }
        for (std::size_t j = 0; j < n; ++j)
            v[j] += step[j] / double(m);
        // Nothing clipped twice running: v is the mean and stays there (the usual honest round).
        converged = iteration > 0 && report.clipped.empty() && unclippedBefore;
        unclippedBefore = report.clipped.empty();
    }
}

// v becomes the mean of the pieces within tau of it, when they are a majority.
void leaveOutOutliers(const std::vector<std::span<const float>> &usable, const std::vector<std::size_t> &index,
                      std::vector<double> &v, CenteredClipReport &report)
{
    std::vector<std::size_t> inliers, outliers;
    for (std::size_t i = 0; i < usable.size(); ++i)
        (distance(usable[i], v) <= report.tau ? inliers : outliers).push_back(i);
    if (outliers.empty() || 2 * inliers.size() <= usable.size())
        return;
    std::fill(v.begin(), v.end(), 0.0);
    for (std::size_t i : inliers) {
        for (std::size_t j = 0; j < v.size(); ++j)
            v[j] += double(usable[i][j]) / double(inliers.size());
    }
    for (std::size_t i : outliers)
        report.leftOut.push_back(index[i]);
}

} // namespace

Result<CenteredClipReport> centeredClip(std::span<const std::span<const float>> pieces, std::span<float> out,
                                        CenteredClipOptions options)
{
    const std::size_t n = out.size();
    CenteredClipReport report;
    std::vector<std::span<const float>> usable;
    std::vector<std::size_t> index; // usable piece -> the caller's index
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (pieces[i].size() != n)
            return makeError("piece " + std::to_string(i) + " has " + std::to_string(pieces[i].size())
                             + " values, not " + std::to_string(n));
        if (allFinite(pieces[i])) {
            usable.push_back(pieces[i]);
            index.push_back(i);
        }
        else
            report.ignored.push_back(i);
    }
    if (usable.empty())
        return makeError("no piece without NaN or Inf to aggregate");
    const std::size_t m = usable.size();

    std::vector<double> v = coordinateMedian(usable, n);
    std::vector<double> distances(m);
    for (std::size_t i = 0; i < m; ++i)
        distances[i] = distance(usable[i], v);
    const double tau = options.tauScale * medianOf(distances);
    report.tau = std::isfinite(tau) ? tau : 0.0;

    iterate(usable, index, v, options.iterations, report);
    if (options.leaveOutOutliers)
        leaveOutOutliers(usable, index, v, report);
    for (std::size_t j = 0; j < n; ++j) {
        const float value = float(v[j]);
        if (!std::isfinite(value))
            return makeError("the clipped mean is not finite at value " + std::to_string(j));
        out[j] = value;
    }
    return report;
}

} // namespace swarmtrain
