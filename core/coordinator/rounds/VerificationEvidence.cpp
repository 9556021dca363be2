#include "Verification.h"

#include "CoordinatorLog.h"
#include "OwnerDisputes.h"
#include "Quantization.h"
#include "QtText.h"

#include <algorithm>
#include <map>
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

Result<EvidenceCase> Verification::evidenceCase(const PeerRecord &sender, const RangeEvidence &evidence, int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 409;
    if (round->state != RoundState::Running || round->number != evidence.round || round->attempt != evidence.attempt)
        return makeError("round " + std::to_string(evidence.round) + " is not the running round");
    status = 500;
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round->number, round->attempt);
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(round->number, round->attempt);
    if (!reports || !commitments)
        return makeError("cannot read the round's reports");
    std::set<QString> committed;
    for (const CommitmentRecord &c : *commitments)
        committed.insert(c.keyId);
    const auto own = std::find_if(round->members.begin(), round->members.end(),
                                  [&](const RoundMember &m) { return m.keyId == sender.keyId && m.end > m.begin; });
    // The checker of an owner that committed to nothing by the close averaged the range in its
    // place (ButterflyAllReduce's stand-in), and sends the evidence for it.
    const auto ranged = std::find_if(round->members.begin(), round->members.end(), [&](const RoundMember &m) {
        return m.begin == evidence.begin && m.end == evidence.end && m.end > m.begin;
    });
    const std::map<QString, QString> checkers = rangeCheckersOf(*round);
    const bool standIn = ranged != round->members.end() && ranged->keyId != sender.keyId && !committed.contains(ranged->keyId)
                         && m_clock() >= m_rounds.commitDeadlineMs(*round) && checkers.contains(ranged->keyId)
                         && checkers.at(ranged->keyId) == sender.keyId;
    status = 403;
    if (own == round->members.end() && !standIn)
        return makeError("only a range owner of the running round sends evidence");
    if (!standIn && !committed.contains(sender.keyId))
        return makeError("an owner that committed to nothing this round has no evidence");
    status = 400;
    if (!standIn && (own->begin != evidence.begin || own->end != evidence.end))
        return makeError("that is not this owner's range");
    const RoundMember &owner = standIn ? *ranged : *own;
    status = 409;
    if (std::any_of(reports->begin(), reports->end(), [&](const UpdateReportRecord &r) {
            return r.reporterKeyId == owner.keyId && r.senderKeyId == owner.keyId
                   && (r.kind == QLatin1StringView(kEvidenceUpheld) || r.kind == QLatin1StringView(kEvidenceRefuted));
        }))
        return makeError("this range's evidence of the round was judged already");
    EvidenceCase owned{*round, owner, {}, claimedAverage(*reports, owner.keyId), standIn ? sender.keyId : QString()};
    for (const CommitmentRecord &c : *commitments) {
        if (c.ownerKeyId == owner.keyId)
            owned.commitments.emplace(c.keyId, c.sha256);
    }
    status = 200;
    return owned;
}

Result<void> Verification::rule(const EvidenceCase &owned, const QString &averageSha256, const EvidenceFinding &finding)
{
    const QString &owner = owned.owner.keyId;
    const QString &refusal = finding.refusal;
    // The owner's key, then who sent it where its checker stood in for it (tests read these lines).
    const QString whose = owned.standIn.isEmpty() ? owner : QStringLiteral("%1 (sent by its checker %2, standing in)").arg(owner, owned.standIn);
    if (refusal.isEmpty()) {
        qCInfo(lcCoordinator).noquote() << "round" << owned.round.number << ": the evidence of" << whose
                                        << "holds: its average is what the committed pieces make";
    } else {
        qCWarning(lcCoordinator).noquote() << "round" << owned.round.number << ": the evidence of" << whose
                                           << "does not hold:" << refusal;
    }
    const QString kind = QLatin1StringView(refusal.isEmpty() ? kEvidenceUpheld : kEvidenceRefuted);
    std::vector<UpdateReportRecord> records{{owned.round.number, owned.round.attempt, owner, owner, kind, averageSha256}};
    if (!owned.standIn.isEmpty())
        records.push_back({owned.round.number, owned.round.attempt, owned.standIn, owner, QLatin1StringView(kEvidenceStandIn), {}});
    if (!finding.farOffClaim.isEmpty())
        records.push_back({owned.round.number, owned.round.attempt, owner, owner, QLatin1StringView(kEvidenceFarOff), finding.farOffClaim});
    if (!refusal.isEmpty() && !finding.redone.isEmpty()) {
        if (Result<QString> kept = keepRedone(owned, finding.redone); kept)
            records.push_back({owned.round.number, owned.round.attempt, owner, owner, QLatin1StringView(kEvidenceRedone), *kept});
        else
            qCWarning(lcCoordinator).noquote() << "round" << owned.round.number << ": cannot keep the range of" << owner
                                               << "as recomputed:" << toQString(kept.error());
    }
    return m_store.addUpdateReports(records);
}

Result<RangeRuling> Verification::rangeRuling(const PeerRecord &asker, qint64 roundNumber, const QString &owner, int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 404;
    if (!m_settings.rangeRulings)
        return makeError("this coordinator does not rule on ranges");
    status = 409;
    if (round->state != RoundState::Running || round->number != roundNumber)
        return makeError("round " + std::to_string(roundNumber) + " is not the running round");
    status = 403;
    if (std::none_of(round->members.begin(), round->members.end(), [&](const RoundMember &m) { return m.keyId == asker.keyId; }))
        return makeError("only a member of the running round asks for its rulings");
    status = 404;
    if (std::none_of(round->members.begin(), round->members.end(),
                     [&](const RoundMember &m) { return m.keyId == owner && m.end > m.begin; }))
        return makeError("that peer owns no range of the round");
    status = 500;
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round->number, round->attempt);
    if (!reports)
        return reports.error();
    status = 200;
    RangeRuling ruling{round->number, owner, RangeRuling::State::Pending, {}};
    for (const UpdateReportRecord &report : *reports) {
        if (report.reporterKeyId != owner || report.senderKeyId != owner)
            continue;
        if (report.kind == QLatin1StringView(kEvidenceUpheld))
            ruling.state = RangeRuling::State::Upheld;
        else if (report.kind == QLatin1StringView(kEvidenceRefuted))
            ruling.state = RangeRuling::State::Refuted;
        else
            continue;
        ruling.averageSha256 = report.detail;
    }
    ruling.redoneSha256 = redoneSha256Of(*reports, owner);
    if (ruling.state != RangeRuling::State::Refuted)
        ruling.redoneSha256.clear();
    return ruling;
}

Result<Verification::RulingBreaches> Verification::rulingBreaches(const RoundRecord &round)
{
    RulingBreaches breaches;
    if (!m_settings.rangeRulings)
        return breaches;
    Result<std::vector<UpdateReportRecord>> rulings = m_store.evidenceRulings(round.number, round.number);
    if (!rulings)
        return rulings.error();
    const std::map<qint64, UpdateReportRecord> byRange = rulingsByRange(round, *rulings);
    if (byRange.empty())
        return breaches;
    Result<std::vector<AverageReportRecord>> applied = m_store.averageReports(round.number, round.attempt);
    Result<std::vector<UpdateReportRecord>> records = m_store.updateReports(round.number, round.attempt);
    if (!applied || !records)
        return applied ? records.error() : applied.error();
    // Ranges some member applied as ruled, by whom: the average upheld, or the range as the
    // coordinator recomputed it from a refuted owner's pieces.
    std::map<qint64, std::set<QString>> settledBy;
    for (const AverageReportRecord &report : *applied) {
        const auto ruling = byRange.find(report.begin);
        if (ruling == byRange.end())
            continue;
        // An average applied against the ruling: another than the one upheld, or the one refuted.
        const bool upheld = ruling->second.kind == QLatin1StringView(kEvidenceUpheld);
        if (upheld ? report.sha256 != ruling->second.detail : report.sha256 == ruling->second.detail)
            breaches.overruled.insert(report.keyId);
        else if (upheld || report.sha256 == redoneSha256Of(*records, ruling->second.senderKeyId))
            settledBy[report.begin].insert(report.keyId);
    }
    // A member that did not apply a range others applied as ruled: no offence (its ruling may
    // have come too late for it), but its state is not the one the ruling makes, so it has no say
    // in which state is agreed. Otherwise members that skip an honest owner's range, and are a
    // majority, would have the swarm lose that range every round.
    breaches.unsettled = breaches.overruled;
    for (const RoundMember &member : round.members) {
        for (const auto &[begin, appliers] : settledBy) {
            if (!appliers.contains(member.keyId))
                breaches.unsettled.insert(member.keyId);
        }
    }
    return breaches;
}

Result<void> Verification::judgeEvidence(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                         std::set<QString> &revoked)
{
    // An owner whose own evidence does not hold lied, whoever disputed it: an offence in the round
    // it lied, without waiting for a second partner's dispute.
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round.number, round.attempt);
    if (!reports)
        return reports.error();
    std::vector<std::pair<QString, QString>> offenders; // key, why
    std::map<QString, QString> standIns; // owner -> the checker that averaged its range in its place
    for (const UpdateReportRecord &report : *reports) {
        if (report.kind == QLatin1StringView(kEvidenceStandIn))
            standIns[report.senderKeyId] = report.reporterKeyId;
    }
    for (const UpdateReportRecord &report : *reports) {
        if (report.kind == QLatin1StringView(kEvidenceRefuted)) {
            const auto standIn = standIns.find(report.senderKeyId);
            offenders.emplace_back(standIn != standIns.end() ? standIn->second : report.senderKeyId, QStringLiteral("lying owner"));
        }
    }
    // A member that applied a disputed range against the ruling followed no honest client's rule:
    // its partners' word, say, over the owner's evidence.
    Result<RulingBreaches> breaches = rulingBreaches(round);
    if (!breaches)
        return breaches.error();
    for (const QString &member : breaches->overruled)
        offenders.emplace_back(member, QStringLiteral("overruled average"));
    for (const auto &[offender, kind] : offenders) {
        // Evidence that refutes the owner's own average proves its lie: no honest owner's can.
        const bool lied = kind == QLatin1StringView("lying owner");
        const QString detail = lied ? QStringLiteral("round %1: its evidence does not hold").arg(round.number)
                                    : QStringLiteral("round %1: it applied a range against the coordinator's ruling").arg(round.number);
        if (Result<bool> offended = lied ? m_reputation.convict(offender, kind, detail) : m_reputation.offend(offender, kind, detail, true);
            !offended)
            return offended.error();
        if (Result<void> taken = revokeAccepted(round, verdicts, offender); !taken)
            return taken;
        revoked.insert(offender);
    }
    return {};
}

Result<void> Verification::judgeDisputes(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                         std::set<QString> &revoked)
{
    const qint64 from = round.number - kDisputeWindowRounds + 1;
    Result<std::vector<UpdateReportRecord>> disputes = m_store.disputes(from, round.number);
    Result<std::vector<UpdateReportRecord>> rulings = m_store.evidenceRulings(from, round.number);
    if (!disputes || !rulings)
        return disputes ? rulings.error() : disputes.error();
    // An owner whose evidence held was not lying, whatever its partners said of it that round.
    std::set<Vindicated> vindicated;
    for (const UpdateReportRecord &ruling : *rulings) {
        if (m_settings.rangeRulings && ruling.kind == QLatin1StringView(kEvidenceUpheld))
            vindicated.insert({ruling.round, ruling.attempt, ruling.senderKeyId});
    }
    // Older disputes are history: only a member with a dispute in this round (on either side)
    // answers for them now.
    std::set<QString> disputedNow;
    for (const UpdateReportRecord &dispute : *disputes) {
        if (dispute.round == round.number && dispute.attempt == round.attempt)
            disputedNow.insert({dispute.reporterKeyId, dispute.senderKeyId});
    }
    if (Result<void> judged = judgeEvidence(round, verdicts, revoked); !judged)
        return judged;
    for (const auto &[liar, partners] : lyingOwners(*disputes, vindicated)) {
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
