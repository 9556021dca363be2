#include "Verification.h"

#include "CoordinatorLog.h"
#include "OwnerDisputes.h"
#include "Quantization.h"

#include <algorithm>
#include <set>

// A range owner's evidence and the coordinator's ruling on it (OwnerEvidence.h).
namespace swarmtrain {

qint64 Verification::maxEvidencePayloadBytes() const
{
    return qint64(encodedQuantizedSize(std::size_t(std::max<qint64>(m_rounds.settings().parameterCount, 1))));
}

qint64 Verification::maxEvidenceBytes()
{
    // Base64 of a piece from each member of the running round and the average, each no larger
    // than the round's largest range, with room for the names: bounded by the round, not by the
    // model (no round running: nothing to send).
    Result<RoundRecord> round = m_rounds.current();
    if (!round || round->state != RoundState::Running)
        return 1024;
    qint64 largest = 1;
    for (const RoundMember &member : round->members)
        largest = std::max(largest, member.end - member.begin);
    const qint64 payload = qint64(encodedQuantizedSize(std::size_t(largest)));
    const qint64 members = qint64(round->members.size());
    return 4 * ((members + 1) * payload / 3 + members + 1) + (members + 1) * 256 + 1024;
}

Result<EvidenceCase> Verification::evidenceCase(const PeerRecord &owner, const RangeEvidence &evidence, int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 409;
    if (round->state != RoundState::Running || round->number != evidence.round || round->attempt != evidence.attempt)
        return makeError("round " + std::to_string(evidence.round) + " is not the running round");
    const auto range = std::find_if(round->members.begin(), round->members.end(),
                                    [&](const RoundMember &m) { return m.keyId == owner.keyId && m.end > m.begin; });
    status = 403;
    if (range == round->members.end())
        return makeError("only a range owner of the running round sends evidence");
    status = 400;
    if (range->begin != evidence.begin || range->end != evidence.end)
        return makeError("that is not this owner's range");
    status = 500;
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round->number, round->attempt);
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(round->number, round->attempt);
    if (!reports || !commitments)
        return makeError("cannot read the round's reports");
    status = 409;
    if (std::any_of(reports->begin(), reports->end(), [&](const UpdateReportRecord &r) {
            return r.reporterKeyId == owner.keyId && r.senderKeyId == owner.keyId
                   && (r.kind == QLatin1StringView(kEvidenceUpheld) || r.kind == QLatin1StringView(kEvidenceRefuted));
        }))
        return makeError("this owner's evidence of the round was judged already");
    EvidenceCase owned{*round, *range, {}};
    for (const CommitmentRecord &c : *commitments) {
        if (c.ownerKeyId == owner.keyId)
            owned.commitments.emplace(c.keyId, c.sha256);
    }
    status = 200;
    return owned;
}

Result<void> Verification::rule(const EvidenceCase &owned, const QString &refusal)
{
    const QString &owner = owned.owner.keyId;
    if (refusal.isEmpty()) {
        qCInfo(lcCoordinator).noquote() << "round" << owned.round.number << ": the evidence of" << owner
                                        << "holds: its average is what the committed pieces make";
    } else {
        qCWarning(lcCoordinator).noquote() << "round" << owned.round.number << ": the evidence of" << owner
                                           << "does not hold:" << refusal;
    }
    const QString kind = QLatin1StringView(refusal.isEmpty() ? kEvidenceUpheld : kEvidenceRefuted);
    return m_store.addUpdateReports({{owned.round.number, owned.round.attempt, owner, owner, kind}});
}

Result<void> Verification::judgeEvidence(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                         std::set<QString> &revoked)
{
    // An owner whose own evidence does not hold lied, whoever disputed it: an offence in the round
    // it lied, without waiting for a second partner's dispute. Evidence that holds changes nothing
    // yet: the partners' disputes are judged as before (hosting.md, "Range checks and colluders").
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round.number, round.attempt);
    if (!reports)
        return reports.error();
    for (const UpdateReportRecord &report : *reports) {
        if (report.kind != QLatin1StringView(kEvidenceRefuted))
            continue;
        const QString detail = QStringLiteral("round %1: its evidence does not hold").arg(round.number);
        if (Result<bool> offended = m_reputation.offend(report.senderKeyId, QStringLiteral("lying owner"), detail, true); !offended)
            return offended.error();
        if (Result<void> taken = revokeAccepted(round, verdicts, report.senderKeyId); !taken)
            return taken;
        revoked.insert(report.senderKeyId);
    }
    return {};
}

Result<void> Verification::judgeDisputes(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                         std::set<QString> &revoked)
{
    Result<std::vector<UpdateReportRecord>> disputes = m_store.disputes(round.number - kDisputeWindowRounds + 1, round.number);
    if (!disputes)
        return disputes.error();
    // Older disputes are history: only a member with a dispute in this round (on either side)
    // answers for them now.
    std::set<QString> disputedNow;
    for (const UpdateReportRecord &dispute : *disputes) {
        if (dispute.round == round.number && dispute.attempt == round.attempt)
            disputedNow.insert({dispute.reporterKeyId, dispute.senderKeyId});
    }
    if (Result<void> judged = judgeEvidence(round, verdicts, revoked); !judged)
        return judged;
    for (const auto &[liar, partners] : lyingOwners(*disputes)) {
        if (!disputedNow.count(liar) || revoked.contains(liar))
            continue;
        const QString detail = QStringLiteral("round %1: disputed by %2 range partners").arg(round.number).arg(partners);
        if (Result<bool> offended = m_reputation.offend(liar, QStringLiteral("lying owner"), detail, true); !offended)
            return offended.error();
        if (Result<void> taken = revokeAccepted(round, verdicts, liar); !taken)
            return taken;
        revoked.insert(liar);
    }
    return {};
}

} // namespace swarmtrain
