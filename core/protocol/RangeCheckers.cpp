#include "RangeCheckers.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// Each owner's partner, owner i's being the owner at partnerIndex(i, n, step) in range order.
template <typename PartnerIndex>
std::map<QString, QString> partners(std::vector<RangeOwner> owners, qint64 round, qint64 fewest, PartnerIndex partnerIndex)
{
    std::map<QString, QString> partnerOf;
    const qint64 n = qint64(owners.size());
    if (n < fewest)
        return partnerOf;
    std::sort(owners.begin(), owners.end(), [](const RangeOwner &a, const RangeOwner &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.keyId < b.keyId;
    });
    const qint64 step = 1 + (round < 0 ? 0 : round % (n - 1)); // 1..n-1: never the owner itself
    for (qint64 i = 0; i < n; ++i)
        partnerOf.emplace(owners[std::size_t(i)].keyId, owners[std::size_t(partnerIndex(i, n, step))].keyId);
    return partnerOf;
}

} // namespace

std::map<QString, QString> rangeCheckers(std::vector<RangeOwner> owners, qint64 round)
{
    return partners(std::move(owners), round, 2, [](qint64 i, qint64 n, qint64 step) { return (i + step) % n; });
}

std::map<QString, QString> rangeReferees(std::vector<RangeOwner> owners, qint64 round)
{
    return partners(std::move(owners), round, 3, [](qint64 i, qint64 n, qint64 step) {
        const qint64 next = (i + step + 1) % n; // the checker's successor...
        return next == i ? (i + 1) % n : next;  // ...unless that is the owner (then not the checker either, n >= 3)
    });
}

} // namespace swarmtrain
