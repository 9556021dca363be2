#include "PipelineDisputes.h"

#include "OwnerDisputes.h"
#include "RangeCheckers.h"

#include <algorithm>
#include <set>

namespace swarmtrain {

void PipelineDisputes::record(qint64 step, const QStringList &owners, const QString &reporter,
                              const QStringList &disputed)
{
    std::vector<RangeOwner> ranges;
    for (qsizetype i = 0; i < owners.size(); ++i)
        ranges.push_back({owners[i], qint64(i)});
    const std::map<QString, QString> checkers = rangeCheckers(std::move(ranges), step + 1);
    std::set<QString> named;
    for (const QString &partner : disputed) {
        if (rangePartners(checkers, reporter, partner) && named.insert(partner).second)
            m_disputes.push_back({step, 0, reporter, partner, QStringLiteral("disputed")});
    }
}

std::map<QString, std::size_t> PipelineDisputes::judge(qint64 step)
{
    std::erase_if(m_disputes, [&](const UpdateReportRecord &d) { return d.round <= step - kDisputeWindowRounds; });
    std::set<QString> disputedNow;
    for (const UpdateReportRecord &dispute : m_disputes) {
        if (dispute.round == step)
            disputedNow.insert({dispute.reporterKeyId, dispute.senderKeyId});
    }
    std::map<QString, std::size_t> liars = lyingOwners(m_disputes);
    std::erase_if(liars, [&](const auto &liar) { return !disputedNow.contains(liar.first); });
    return liars;
}

} // namespace swarmtrain
