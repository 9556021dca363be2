#include "Crossover.h"

#include <algorithm>
#include <numeric>

namespace swarmtrain::scheduler {

namespace {

// For each bucket of `first`, the bucket of `second` sharing the most devices with it (each used
// once; spares always map to spares).
std::vector<int> alignBuckets(const Partition &first, const Partition &second)
{
    const int groups = first.stages();
    std::vector<std::vector<int>> overlap(std::size_t(groups), std::vector<int>(std::size_t(groups), 0));
    for (int g = 0; g < groups; ++g) {
        for (const int d : first.group(g)) {
            const int h = second.bucketOf(d);
            if (h < groups)
                ++overlap[std::size_t(g)][std::size_t(h)];
        }
    }
    std::vector<int> match(std::size_t(first.bucketCount()), -1);
    std::vector<char> taken(std::size_t(groups), 0);
    // Greedy by largest overlap first.
    for (int round = 0; round < groups; ++round) {
        int bestG = -1, bestH = -1, best = -1;
        for (int g = 0; g < groups; ++g) {
            if (match[std::size_t(g)] >= 0)
                continue;
            for (int h = 0; h < groups; ++h) {
                if (!taken[std::size_t(h)] && overlap[std::size_t(g)][std::size_t(h)] > best) {
                    best = overlap[std::size_t(g)][std::size_t(h)];
                    bestG = g;
                    bestH = h;
                }
            }
        }
        match[std::size_t(bestG)] = bestH;
        taken[std::size_t(bestH)] = 1;
    }
    if (first.spareCount() > 0)
        match[std::size_t(groups)] = groups;
    return match;
}

} // namespace

Partition crossover(const Partition &first, const Partition &second, int points, std::mt19937_64 &rng)
{
    const int buckets = first.bucketCount();
    const int n = first.deviceCount();
    const std::vector<int> aligned = alignBuckets(first, second);

    // Which parent each bucket comes from: cut points split the bucket list into alternating runs.
    std::vector<int> cuts(std::size_t(std::max(buckets - 1, 0)));
    std::iota(cuts.begin(), cuts.end(), 1);
    std::shuffle(cuts.begin(), cuts.end(), rng);
    cuts.resize(std::min<std::size_t>(cuts.size(), std::size_t(std::max(points, 1))));
    std::sort(cuts.begin(), cuts.end());
    std::vector<char> fromSecond(std::size_t(buckets), 0);
    bool second_ = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    std::size_t nextCut = 0;
    for (int b = 0; b < buckets; ++b) {
        if (nextCut < cuts.size() && cuts[nextCut] == b) {
            second_ = !second_;
            ++nextCut;
        }
        fromSecond[std::size_t(b)] = second_ ? 1 : 0;
    }

    std::vector<std::vector<int>> inherited(static_cast<std::size_t>(buckets));
    for (int b = 0; b < buckets; ++b) {
        const auto source = fromSecond[std::size_t(b)] ? second.bucket(aligned[std::size_t(b)]) : first.bucket(b);
        inherited[std::size_t(b)].assign(source.begin(), source.end());
    }

    // Repair: a device inherited twice keeps the place it reaches first, buckets in random order.
    std::vector<int> visit(static_cast<std::size_t>(buckets));
    std::iota(visit.begin(), visit.end(), 0);
    std::shuffle(visit.begin(), visit.end(), rng);
    std::vector<char> placed(std::size_t(n), 0);
    std::vector<std::vector<int>> child(static_cast<std::size_t>(buckets));
    for (const int b : visit) {
        for (const int d : inherited[std::size_t(b)]) {
            if (!placed[std::size_t(d)]) {
                placed[std::size_t(d)] = 1;
                child[std::size_t(b)].push_back(d);
            }
        }
    }
    std::vector<int> missing;
    for (int d = 0; d < n; ++d) {
        if (!placed[std::size_t(d)])
            missing.push_back(d);
    }
    std::shuffle(missing.begin(), missing.end(), rng);
    std::size_t next = 0;
    for (int b = 0; b < buckets; ++b) {
        const std::size_t size = first.bucket(b).size();
        while (child[std::size_t(b)].size() < size)
            child[std::size_t(b)].push_back(missing[next++]);
    }

    std::vector<int> devices;
    devices.reserve(std::size_t(n));
    for (const std::vector<int> &bucket : child)
        devices.insert(devices.end(), bucket.begin(), bucket.end());
    return Partition(first.stages(), first.dataParallel(), std::move(devices));
}

} // namespace swarmtrain::scheduler
