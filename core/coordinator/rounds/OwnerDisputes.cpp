#include "OwnerDisputes.h"

#include "RangeCheckers.h"

#include <algorithm>
#include <set>

namespace swarmtrain {

std::vector<RoundMember> ownersByRange(const RoundRecord &round)
{
    std::vector<RoundMember> owners;
    for (const RoundMember &member : round.members) {
        if (member.end > member.begin)
            owners.push_back(member);
    }
    std::sort(owners.begin(), owners.end(), [](const RoundMember &a, const RoundMember &b) { return a.begin < b.begin; });
    return owners;
}

namespace {

std::vector<RangeOwner> rangeOwners(const RoundRecord &round)
{
    std::vector<RangeOwner> owners;
    for (const RoundMember &member : round.members) {
        if (member.end > member.begin)
            owners.push_back({member.keyId, member.begin});
    }
    return owners;
}

} // namespace

std::map<QString, QString> rangeCheckersOf(const RoundRecord &round)
{
    return rangeCheckers(rangeOwners(round), round.number, round.checkSeed);
}

std::map<QString, QString> rangeRefereesOf(const RoundRecord &round)
{
    return rangeReferees(rangeOwners(round), round.number, round.checkSeed);
}

bool rangePartners(const std::map<QString, QString> &checkers, const QString &a, const QString &b)
{
    const auto checks = [&](const QString &checker, const QString &owner) {
        const auto found = checkers.find(owner);
        return found != checkers.end() && found->second == checker;
    };
    return a != b && (checks(a, b) || checks(b, a));
}

bool mayDispute(const std::map<QString, QString> &checkers, const std::map<QString, QString> &referees,
                const QString &reporter, const QString &disputed)
{
    if (rangePartners(checkers, reporter, disputed))
        return true;
    return std::any_of(referees.begin(), referees.end(), [&](const auto &refereed) {
        const auto &[owner, referee] = refereed;
        return referee == reporter && reporter != disputed && (owner == disputed || checkers.at(owner) == disputed);
    });
}

std::vector<UpdateReportRecord> admissibleDisputes(const RoundRecord &round, const QString &reporter,
                                                   const QStringList &disputed)
{
    const std::map<QString, QString> checkers = rangeCheckersOf(round), referees = rangeRefereesOf(round);
    std::vector<UpdateReportRecord> reports;
    for (const QString &partner : disputed) {
        if (mayDispute(checkers, referees, reporter, partner))
            reports.push_back({round.number, round.attempt, reporter, partner, QStringLiteral("disputed")});
    }
    return reports;
}

std::map<QString, std::size_t> lyingOwners(const std::vector<UpdateReportRecord> &disputes,
                                           const std::set<Vindicated> &vindicated)
{
    const auto cleared = [&](const UpdateReportRecord &dispute, const QString &keyId) {
        return vindicated.contains({dispute.round, dispute.attempt, keyId});
    };
    std::map<QString, std::set<QString>> partners;
    for (const UpdateReportRecord &dispute : disputes) {
        if (dispute.reporterKeyId == dispute.senderKeyId || cleared(dispute, dispute.senderKeyId))
            continue;
        partners[dispute.senderKeyId].insert(dispute.reporterKeyId);
        if (!cleared(dispute, dispute.reporterKeyId))
            partners[dispute.reporterKeyId].insert(dispute.senderKeyId);
        else
            partners.try_emplace(dispute.reporterKeyId);
    }
    std::map<QString, std::size_t> liars;
    for (const auto &[peer, its] : partners) {
        const bool most = std::all_of(its.begin(), its.end(),
                                      [&](const QString &p) { return partners.at(p).size() < its.size(); });
        if (its.size() >= 2 && most)
            liars.emplace(peer, its.size());
    }
    return liars;
}

} // namespace swarmtrain
