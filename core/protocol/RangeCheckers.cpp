#include "RangeCheckers.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// SplitMix64: a small generator that gives the same numbers on every platform and standard
// library, so that clients and the coordinator draw the same pairs from one seed.
quint64 nextRandom(quint64 &state)
{
    quint64 z = (state += 0x9e37'79b9'7f4a'7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebULL;
    return z ^ (z >> 31);
}

// Uniform in [0, bound), without the modulo's bias.
quint64 randomBelow(quint64 &state, quint64 bound)
{
    const quint64 limit = ~quint64(0) - (~quint64(0) % bound);
    for (;;) {
        if (const quint64 r = nextRandom(state); r < limit)
            return r % bound;
    }
}

// The owners in the order partners are counted in: range order, shuffled by `seed` where there is
// one. And the step from an owner to its checker: 1 after a shuffle, or the round's turn.
std::pair<std::vector<RangeOwner>, qint64> partnerOrder(std::vector<RangeOwner> owners, qint64 round, quint64 seed)
{
    std::sort(owners.begin(), owners.end(), [](const RangeOwner &a, const RangeOwner &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.keyId < b.keyId;
    });
    const qint64 n = qint64(owners.size());
    if (seed == 0 || n < 2)
        return {std::move(owners), n < 2 ? 1 : 1 + (round < 0 ? 0 : round % (n - 1))}; // 1..n-1: never the owner itself
    quint64 state = seed;
    for (qint64 i = n - 1; i > 0; --i) // Fisher-Yates
        std::swap(owners[std::size_t(i)], owners[std::size_t(randomBelow(state, quint64(i) + 1))]);
    return {std::move(owners), 1};
}

// Each owner's partner, owner i's being the owner at partnerIndex(i, n, step) in partnerOrder().
template <typename PartnerIndex>
std::map<QString, QString> partners(std::vector<RangeOwner> owners, qint64 round, quint64 seed, qint64 fewest,
                                    PartnerIndex partnerIndex)
{
    std::map<QString, QString> partnerOf;
    const qint64 n = qint64(owners.size());
    if (n < fewest)
        return partnerOf;
    const auto [ordered, step] = partnerOrder(std::move(owners), round, seed);
    for (qint64 i = 0; i < n; ++i)
        partnerOf.emplace(ordered[std::size_t(i)].keyId, ordered[std::size_t(partnerIndex(i, n, step))].keyId);
    return partnerOf;
}

} // namespace

std::map<QString, QString> rangeCheckers(std::vector<RangeOwner> owners, qint64 round, quint64 seed)
{
    return partners(std::move(owners), round, seed, 2, [](qint64 i, qint64 n, qint64 step) { return (i + step) % n; });
}

std::map<QString, QString> rangeReferees(std::vector<RangeOwner> owners, qint64 round, quint64 seed)
{
    return partners(std::move(owners), round, seed, 3, [](qint64 i, qint64 n, qint64 step) {
        const qint64 next = (i + step + 1) % n; // the checker's successor...
        return next == i ? (i + 1) % n : next;  // ...unless that is the owner (then not the checker either, n >= 3)
    });
}

} // namespace swarmtrain
