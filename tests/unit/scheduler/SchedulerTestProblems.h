#pragma once

#include "SchedulerProblem.h"

#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace swarmtrain::scheduler::test {

// Devices on sites: links inside a site are fast, between sites slow. Parity mode, no grid.
inline Problem siteProblem(const std::vector<int> &siteOfDevice, double insideDelay, double insideBandwidth,
                           double outsideDelay, double outsideBandwidth)
{
    Problem problem;
    const int n = int(siteOfDevice.size());
    for (int d = 0; d < n; ++d)
        problem.devices.push_back(
            {"d" + std::to_string(d), "site" + std::to_string(siteOfDevice[std::size_t(d)]), 1e12, 0.0});
    for (int d = 0; d < n; ++d) {
        for (int e = 0; e < n; ++e) {
            const bool inside = siteOfDevice[std::size_t(d)] == siteOfDevice[std::size_t(e)];
            problem.delaySeconds.push_back(inside ? insideDelay : outsideDelay);
            problem.bandwidthBytesPerSecond.push_back(inside ? insideBandwidth : outsideBandwidth);
        }
    }
    problem.model.layers = 8;
    problem.model.parameterBytesPerLayer = 1e8;
    problem.model.activationBytesPerMicrobatch = 1e8;
    problem.terms = CostTerms::parity();
    return problem;
}

// Random symmetric links: delays 0-100 ms, bandwidths 0.1-2 GB/s.
inline Problem randomProblem(int n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> delay(0.0, 0.1), bandwidth(1e8, 2e9);
    Problem problem = siteProblem(std::vector<int>(std::size_t(n), 0), 0.0, 1.0, 0.0, 1.0);
    for (int d = 0; d < n; ++d) {
        for (int e = d + 1; e < n; ++e) {
            const double de = delay(rng), bw = bandwidth(rng);
            problem.delaySeconds[std::size_t(d * n + e)] = problem.delaySeconds[std::size_t(e * n + d)] = de;
            problem.bandwidthBytesPerSecond[std::size_t(d * n + e)]
                = problem.bandwidthBytesPerSecond[std::size_t(e * n + d)] = bw;
        }
    }
    return problem;
}

// A clock that advances `step` seconds each time it is read; copies share the time.
struct FakeClock {
    std::shared_ptr<double> now = std::make_shared<double>(0.0);
    std::shared_ptr<long long> reads = std::make_shared<long long>(0);
    double step = 0.001;

    double operator()() const
    {
        ++*reads;
        return *now += step;
    }
};

} // namespace swarmtrain::scheduler::test
