#include "PipelineDisputes.h"

#include "OwnerDisputes.h"
#include "PipelineMessages.h"
#include "RangeCheckers.h"

#include <algorithm>
#include <set>

namespace swarmtrain {

Result<void> PipelineDisputes::record(qint64 step, const QStringList &owners, const QString &reporter,
                                      const QStringList &disputed)
{
    std::vector<RangeOwner> ranges;
    for (qsizetype i = 0; i < owners.size(); ++i)
        ranges.push_back({owners[i], qint64(i)});
    const std::map<QString, QString> checkers = rangeCheckers(ranges, step + 1);
    const std::map<QString, QString> referees = rangeReferees(std::move(ranges), step + 1);
    std::vector<UpdateReportRecord> counted;
    for (const QString &partner : disputed) {
        if (mayDispute(checkers, referees, reporter, partner))
            counted.push_back({step, 0, reporter, partner, QStringLiteral("disputed")});
    }
    return counted.empty() ? Result<void>() : m_store.addUpdateReports(counted); // a repeat is kept once
}

Result<std::map<QString, std::size_t>> PipelineDisputes::judge(qint64 step)
{
    Result<std::vector<UpdateReportRecord>> window = m_store.disputes(step - kDisputeWindowRounds + 1, step);
    if (!window)
        return window.error();
    std::set<QString> disputedNow;
    for (const UpdateReportRecord &dispute : *window) {
        if (dispute.round == step)
            disputedNow.insert({dispute.reporterKeyId, dispute.senderKeyId});
    }
    std::map<QString, std::size_t> liars = lyingOwners(*window);
    std::erase_if(liars, [&](const auto &liar) { return !disputedNow.contains(liar.first); });
    return liars;
}

bool PipelineDisputes::accuse(qint64 step, const QString &trainer, const QString &accused, std::size_t trainers)
{
    if (trainer == accused)
        return false;
    std::map<QString, qint64> &accusers = m_accusers[accused];
    accusers[trainer] = step;
    std::erase_if(accusers, [&](const auto &accuser) { return accuser.second <= step - kAccusationWindowSteps; });
    if (accusers.size() < std::min<std::size_t>(2, std::max<std::size_t>(trainers, 1)))
        return false;
    m_accusers.erase(accused);
    return true;
}

QStringList PipelineDisputes::suspects(qint64 step) const
{
    QStringList suspects;
    for (const auto &[accused, accusers] : m_accusers) {
        if (std::any_of(accusers.begin(), accusers.end(), [&](const auto &a) { return a.second > step - kAccusationWindowSteps; })
            && suspects.size() < protocol::kMaxPipelinePeers)
            suspects.append(accused);
    }
    return suspects;
}

} // namespace swarmtrain
