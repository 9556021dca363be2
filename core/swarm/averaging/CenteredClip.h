#pragma once

#include "Result.h"

#include <cstddef>
#include <span>
#include <vector>

namespace swarmtrain {

// How a range owner combines the pieces it was sent (DESIGN.md, "Robust aggregation").
enum class Aggregation {
    CenteredClip, // BTARD's robust mean: a few peers cannot drag it far
    Mean,         // the plain mean, for comparison (bench/SwarmSimulation.cpp)
};

struct CenteredClipOptions {
    int iterations = 5;
    // tau = tauScale x the median distance of the pieces from their coordinate-wise median.
    // Honest pieces of one round lie at about the same distance from the center (many
    // coordinates, independent noise), so a scale of 2 leaves them unclipped and the result is
    // their mean; a piece far from the others is cut down to length tau.
    double tauScale = 2.0;
    // After the iterations, pieces still farther than tau from v are left out and v becomes the
    // mean of the others (when those are a majority). A clipped outlier still moves v by up to
    // tau/m each round, which over rounds of a small swarm costs loss; left out, it moves nothing.
    bool leaveOutOutliers = true;
};

struct CenteredClipReport {
    double tau = 0.0;
    std::vector<std::size_t> clipped; // pieces (indices) cut down in the last iteration
    std::vector<std::size_t> leftOut; // pieces (indices) beyond tau at the end, left out
    std::vector<std::size_t> ignored; // pieces with NaN or Inf, left out
};

// CenteredClip (Karimireddy et al. 2021; Gorbunov et al., BTARD, arXiv 2106.11257):
// v starts at the coordinate-wise median and is moved `iterations` times by
//   v <- v + (1 / sum w) sum_i w_i clip(x_i - v, tau),  clip(z, tau) = z * min(1, tau / ||z||).
// Then, with leaveOutOutliers, the result is the mean of the pieces within tau of v, when they
// hold most of the weight. `weights` (one a piece, each positive; empty: all 1) count a piece as
// that many copies of it in the coordinate-wise median, the steps, the mean and the majority: a
// peer that trained twice the tokens weighs twice (issue 18). tau comes from the plain median of
// the distances, so that a heavy honest piece does not make every lighter one an outlier.
// A pure function of its inputs. `out` must be as long as every piece; pieces that hold NaN or
// Inf are ignored (and listed); an error when no piece is usable, the sizes differ or a weight is
// not a positive number. `out` never holds NaN or Inf when it succeeds.
Result<CenteredClipReport> centeredClip(std::span<const std::span<const float>> pieces, std::span<float> out,
                                        CenteredClipOptions options = {}, std::span<const double> weights = {});

} // namespace swarmtrain
