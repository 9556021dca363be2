#include "RangeCheckers.h"

#include <algorithm>

namespace swarmtrain {

std::map<QString, QString> rangeCheckers(std::vector<RangeOwner> owners, qint64 round)
{
    std::map<QString, QString> checkers;
    const qint64 n = qint64(owners.size());
    if (n < 2)
        return checkers;
    std::sort(owners.begin(), owners.end(), [](const RangeOwner &a, const RangeOwner &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.keyId < b.keyId;
    });
    const qint64 step = 1 + (round < 0 ? 0 : round % (n - 1)); // 1..n-1: never the owner itself
    for (qint64 i = 0; i < n; ++i)
        checkers.emplace(owners[std::size_t(i)].keyId, owners[std::size_t((i + step) % n)].keyId);
    return checkers;
}

} // namespace swarmtrain
