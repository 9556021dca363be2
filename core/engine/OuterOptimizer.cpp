#include "OuterOptimizer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace swarmtrain {

namespace {

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kInfinityBits = 0x7f800000u;

// Integer test on the bits: vectorizes, and stays correct under any float flags.
bool allFinite(std::span<const float> values)
{
    std::uint32_t maxBits = 0;
    for (const float value : values) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(value) & kAbsMask;
        maxBits = bits > maxBits ? bits : maxBits;
    }
    return maxBits < kInfinityBits;
}

std::size_t firstNonFinite(std::span<const float> values)
{
    return std::size_t(std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }) -
                       values.begin());
}

std::string formatNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace

Result<void> OuterOptimizer::step(std::span<float> params, std::span<float> momentum,
                                  std::span<const float> pseudoGradient) const
{
    if (params.size() != momentum.size() || params.size() != pseudoGradient.size())
        return makeError("outer step: " + std::to_string(params.size()) + " parameters, " +
                         std::to_string(momentum.size()) + " momentum values and " +
                         std::to_string(pseudoGradient.size()) + " pseudo-gradient values do not match");
    if (!(m_options.learningRate > 0.0) || !std::isfinite(m_options.learningRate) || !(m_options.momentum >= 0.0) ||
        !(m_options.momentum < 1.0))
        return makeError("outer step: learning rate " + formatNumber(m_options.learningRate) + " and momentum " +
                         formatNumber(m_options.momentum) + " must satisfy lr > 0 and 0 <= momentum < 1");
    if (!allFinite(pseudoGradient))
        return makeError("outer step: pseudo-gradient value " + std::to_string(firstNonFinite(pseudoGradient)) +
                         " is not finite; the parameters were left as they were");
    const float lr = static_cast<float>(m_options.learningRate);
    const float mu = static_cast<float>(m_options.momentum);
    float *p = params.data();
    float *m = momentum.data();
    const float *g = pseudoGradient.data();
    for (std::size_t i = 0; i < params.size(); ++i) {
        const float buffer = mu * m[i] + g[i];
        m[i] = buffer;
        p[i] = p[i] - lr * (g[i] + mu * buffer);
    }
    return {};
}

Result<void> validateUpdate(std::span<const float> update, double maxNorm)
{
    if (!(maxNorm > 0.0) || !std::isfinite(maxNorm))
        return makeError("update check: the norm limit " + formatNumber(maxNorm) + " must be positive and finite");
    if (!allFinite(update))
        return makeError("update rejected: value " + std::to_string(firstNonFinite(update)) + " of " +
                         std::to_string(update.size()) + " is not finite");
    // Double accumulation: a float sum of millions of squares loses the small ones.
    double sumOfSquares = 0.0;
    for (const float value : update)
        sumOfSquares += double(value) * double(value);
    const double norm = std::sqrt(sumOfSquares);
    if (norm > maxNorm)
        return makeError("update rejected: L2 norm " + formatNumber(norm) + " exceeds the limit " +
                         formatNumber(maxNorm));
    return {};
}

Result<void> weightedAverage(std::span<const WeightedPiece> pieces, std::span<float> out)
{
    if (pieces.empty())
        return makeError("weighted average of no pieces");
    double totalWeight = 0.0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const WeightedPiece &piece = pieces[i];
        if (!(piece.weight > 0.0) || !std::isfinite(piece.weight))
            return makeError("weighted average: piece " + std::to_string(i) + " has weight " +
                             formatNumber(piece.weight) + "; weights must be positive and finite");
        if (piece.values.size() != out.size())
            return makeError("weighted average: piece " + std::to_string(i) + " has " +
                             std::to_string(piece.values.size()) + " values, expected " + std::to_string(out.size()));
        totalWeight += piece.weight;
    }
    if (!std::isfinite(totalWeight))
        return makeError("weighted average: the weights' sum overflows");
    std::fill(out.begin(), out.end(), 0.0f);
    for (const WeightedPiece &piece : pieces) {
        const float share = static_cast<float>(piece.weight / totalWeight);
        const float *values = piece.values.data();
        float *dst = out.data();
        for (std::size_t i = 0; i < out.size(); ++i)
            dst[i] += share * values[i];
    }
    return {};
}

} // namespace swarmtrain
