#include "RoundBudget.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace swarmtrain {

namespace {

// A step started just before the round began gathering (a peer applies its outer step and
// starts training before the coordinator has heard from the round's last member) and a device
// that trains faster than it measured (a warm cache, a newer driver) are both honest.
constexpr double kSpeedSlack = 2.0;
constexpr qint64 kHeadStartMs = 5'000;

} // namespace

qint64 RoundBudget::budgetMs(const std::vector<double> &tokensPerSecond) const
{
    if (!enabled)
        return 0;
    if (pinnedMs > 0)
        return pinnedMs;
    std::vector<double> measured;
    for (double speed : tokensPerSecond) {
        if (speed > 0.0 && std::isfinite(speed))
            measured.push_back(speed);
    }
    if (measured.empty() || tokensPerStep <= 0)
        return 0;
    // The median: a few peers claiming absurd speeds cannot move it far.
    const std::size_t middle = measured.size() / 2;
    std::nth_element(measured.begin(), measured.begin() + std::ptrdiff_t(middle), measured.end());
    double median = measured[middle];
    if (measured.size() % 2 == 0) {
        const double below = *std::max_element(measured.begin(), measured.begin() + std::ptrdiff_t(middle));
        median = (median + below) / 2.0;
    }
    const double seconds = double(nominalSteps) * double(tokensPerStep) / median;
    return std::clamp<qint64>(qint64(std::llround(seconds * 1000.0)), smallestMs, largestMs);
}

qint64 RoundBudget::stepsAllowed(double deviceFlopsPerSecond, qint64 elapsedMs) const
{
    const double flopsPerStep = flopsPerToken * double(tokensPerStep);
    if (!(deviceFlopsPerSecond > 0.0) || !std::isfinite(deviceFlopsPerSecond) || !(flopsPerStep > 0.0))
        return std::min(nominalSteps, maxSteps);
    const double seconds = double(std::max<qint64>(elapsedMs, 0) + kHeadStartMs) / 1000.0;
    const double steps = kSpeedSlack * deviceFlopsPerSecond * seconds / flopsPerStep;
    return qint64(std::min(steps, double(maxSteps)));
}

Result<void> RoundBudget::checkSteps(qint64 steps, double deviceFlopsPerSecond, qint64 elapsedMs) const
{
    if (steps < minSteps)
        return makeError(std::to_string(steps) + " inner steps, fewer than the round's minimum of "
                         + std::to_string(minSteps));
    if (steps > maxSteps)
        return makeError(std::to_string(steps) + " inner steps, more than the round's cap of " + std::to_string(maxSteps));
    if (const qint64 allowed = stepsAllowed(deviceFlopsPerSecond, elapsedMs); steps > allowed)
        return makeError(std::to_string(steps) + " inner steps in " + std::to_string(elapsedMs / 1000)
                         + " s, more than its measured speed allows (" + std::to_string(allowed) + ")");
    return {};
}

bool RoundBudget::straggler(double tokensPerSecond, qint64 budgetMs) const
{
    if (!enabled || budgetMs <= 0 || !(tokensPerSecond > 0.0) || !std::isfinite(tokensPerSecond))
        return false;
    return tokensPerSecond * double(budgetMs) / 1000.0 < double(minSteps) * double(tokensPerStep);
}

qint64 RoundBudget::asyncWindowMs(qint64 budgetMs) const
{
    return budgetMs > 0 ? std::clamp<qint64>(budgetMs / 40, 100, 1'000) : 1'000;
}

qint64 RoundBudget::expectedSteps(double tokensPerSecond, qint64 budgetMs) const
{
    if (!(tokensPerSecond > 0.0) || !std::isfinite(tokensPerSecond) || budgetMs <= 0 || tokensPerStep <= 0)
        return nominalSteps;
    const double steps = tokensPerSecond * double(budgetMs) / 1000.0 / double(tokensPerStep);
    return std::clamp<qint64>(qint64(std::llround(std::min(steps, 1e15))), minSteps, maxSteps);
}

} // namespace swarmtrain
