#include "Verification.h"

#include "CoordinatorLog.h"
#include "FileIo.h"
#include "OwnerDisputes.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

#include <algorithm>
#include <map>
#include <set>

// Range audits (issue 43; Verification.h): a random share of each round's ranges is ruled on from
// its owner's evidence even where its checker vouched for it.
namespace swarmtrain {

namespace {

// The rows the audit keeps among the round's update reports, beside the owners' claims (reporter
// and sender: the owner) and the checkers' verdicts (reporter: the checker, sender: the owner):
// when the first claim came, and the owners drawn. Neither has a reporter, so no peer's report can
// be mistaken for them; the first writer of each wins, so every instance of the coordinator
// answers alike.
constexpr char kAverageClaim[] = "average";
constexpr char kVerdict[] = "verdict";
constexpr char kAuditOpened[] = "audit_opened";
constexpr char kAuditDrawn[] = "audit";

// The owners of a round that name their average last get at least this long after the first did,
// and at least as long as the first took from the round's start.
constexpr qint64 kMinAuditGraceMs = 10'000;

const UpdateReportRecord *findReport(const std::vector<UpdateReportRecord> &reports, QLatin1StringView kind,
                                     const QString &reporter, const QString &sender)
{
    const auto found = std::find_if(reports.begin(), reports.end(), [&](const UpdateReportRecord &r) {
        return r.kind == kind && r.reporterKeyId == reporter && r.senderKeyId == sender;
    });
    return found != reports.end() ? &*found : nullptr;
}

const UpdateReportRecord *findReport(const std::vector<UpdateReportRecord> &reports, const QString &keyId,
                                     QLatin1StringView kind)
{
    return findReport(reports, kind, keyId, keyId);
}

// How a checker's verdict is kept: whether it agrees, then the claim it checked (claimDetail()).
QString verdictDetail(bool agrees, const QString &claim)
{
    return (agrees ? QStringLiteral("agrees:") : QStringLiteral("disputes:")) + claim;
}

// The verdict of `owner`'s checker (or referee: `partners` maps owners to theirs) among a round's
// `reports`, if it named one.
const UpdateReportRecord *verdictOn(const std::vector<UpdateReportRecord> &reports,
                                    const std::map<QString, QString> &partners, const QString &owner)
{
    const auto partner = partners.find(owner);
    return partner != partners.end() ? findReport(reports, QLatin1StringView(kVerdict), partner->second, owner) : nullptr;
}

// Whether `verdict` vouches for the very average and pieces of `claim` (both may be null).
bool vouches(const UpdateReportRecord *verdict, const UpdateReportRecord *claim)
{
    return claim && verdict && verdict->detail == verdictDetail(true, claim->detail);
}

} // namespace

bool Verification::rangeAudits() const { return m_settings.rangeRulings && m_settings.rangeAuditRate > 0.0; }

bool Verification::refereeChecks() const { return m_settings.rangeRulings && m_settings.refereeChecks; }

Result<Verification::RoundReports> Verification::runningRoundFor(const PeerRecord &peer, qint64 roundNumber, bool owner,
                                                                 int &status)
{
    status = 500;
    Result<RoundRecord> round = m_rounds.current();
    if (!round)
        return round.error();
    status = 404;
    if (!rangeAudits())
        return makeError("this coordinator audits no ranges");
    status = 409;
    if (round->state != RoundState::Running || round->number != roundNumber)
        return makeError("round " + std::to_string(roundNumber) + " is not the running round");
    status = 403;
    if (std::none_of(round->members.begin(), round->members.end(),
                     [&](const RoundMember &m) { return m.keyId == peer.keyId && (!owner || m.end > m.begin); }))
        return makeError(owner ? "only a range owner of the running round names an average"
                               : "only a member of the running round asks for its audit");
    status = 500;
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round->number, round->attempt);
    if (!reports)
        return reports.error();
    return RoundReports{std::move(round).value(), std::move(reports).value()};
}

Result<void> Verification::claimAverage(const PeerRecord &sender, const AverageClaim &claim, int &status)
{
    Result<RoundReports> running = runningRoundFor(sender, claim.round, true, status);
    if (!running)
        return running.error();
    const RoundRecord &round = running->round;
    const std::vector<UpdateReportRecord> &reports = running->reports;
    status = 409;
    if (round.attempt != claim.attempt)
        return makeError("that is not the running round's attempt");
    if (findReport(reports, {}, QLatin1StringView(kAuditDrawn)))
        return makeError("the round's audit is drawn already: the range is audited");
    status = 400;
    std::set<QString> members;
    for (const RoundMember &m : round.members)
        members.insert(m.keyId);
    if (std::any_of(claim.contributors.begin(), claim.contributors.end(), [&](const QString &c) { return !members.contains(c); }))
        return makeError("a contributor named is not a member of the round");
    // A checker's verdict on the range it checks (or a referee's, where referees check every
    // average), or an owner's own average.
    const bool verdict = !claim.owner.isEmpty();
    if (verdict) {
        status = 403;
        const auto partnerIs = [&](const std::map<QString, QString> &partners) {
            const auto partner = partners.find(claim.owner);
            return partner != partners.end() && partner->second == sender.keyId;
        };
        if (!partnerIs(rangeCheckersOf(round)) && !(refereeChecks() && partnerIs(rangeRefereesOf(round))))
            return makeError(refereeChecks() ? "only the checker or the referee of that owner's range names a verdict on it"
                                             : "only the checker of that owner's range names a verdict on it");
    }
    const QString &rangeOwner = verdict ? claim.owner : sender.keyId;
    const QLatin1StringView kind(verdict ? kVerdict : kAverageClaim);
    status = 409;
    if (findReport(reports, kind, sender.keyId, rangeOwner))
        return makeError(verdict ? "this peer named its verdict on that range already"
                                 : "this owner named its average of the round already");
    status = 500;
    const QString named = claimDetail(claim.sha256, claim.contributors);
    const QString now = QString::number(m_clock());
    return m_store.addUpdateReports({{round.number, round.attempt, sender.keyId, rangeOwner, kind,
                                      verdict ? verdictDetail(claim.agrees, named) : named},
                                     {round.number, round.attempt, {}, {}, QLatin1StringView(kAuditOpened), now}});
}

Result<RangeAudit> Verification::rangeAudit(const PeerRecord &asker, qint64 roundNumber, int &status)
{
    Result<RoundReports> running = runningRoundFor(asker, roundNumber, false, status);
    if (!running)
        return running.error();
    const RoundRecord &round = running->round;
    const std::vector<UpdateReportRecord> &reports = running->reports;
    RangeAudit audit{round.number, false, {}};
    if (const UpdateReportRecord *drawn = findReport(reports, {}, QLatin1StringView(kAuditDrawn))) {
        status = 200;
        audit.drawn = true;
        audit.owners = drawn->detail.split(QLatin1Char(','), Qt::SkipEmptyParts);
        return audit;
    }
    // The owners that committed, and their checkers (and referees, where they check every
    // average) that did, are waited for; a member that committed nothing has no range anyone
    // applies, and checks none.
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(round.number, round.attempt);
    if (!commitments)
        return commitments.error();
    std::set<QString> committed;
    for (const CommitmentRecord &c : *commitments)
        committed.insert(c.keyId);
    std::vector<RoundMember> owners = ownersByRange(round);
    std::erase_if(owners, [&](const RoundMember &o) { return !committed.contains(o.keyId); });
    const std::map<QString, QString> checkers = rangeCheckersOf(round);
    const std::map<QString, QString> referees = refereeChecks() ? rangeRefereesOf(round) : std::map<QString, QString>{};
    const auto claimOf = [&](const RoundMember &o) { return findReport(reports, o.keyId, QLatin1StringView(kAverageClaim)); };
    // Whether `owner`'s partner among `partners` committed, so that its verdict is due.
    const auto verdictDue = [&](const std::map<QString, QString> &partners, const QString &owner) {
        const auto partner = partners.find(owner);
        return partner != partners.end() && committed.contains(partner->second);
    };
    const bool everyoneNamed = std::all_of(owners.begin(), owners.end(), [&](const RoundMember &o) {
        return claimOf(o) && (!verdictDue(checkers, o.keyId) || verdictOn(reports, checkers, o.keyId))
               && (!verdictDue(referees, o.keyId) || verdictOn(reports, referees, o.keyId));
    });
    const UpdateReportRecord *opened = findReport(reports, {}, QLatin1StringView(kAuditOpened));
    const qint64 openedMs = opened ? opened->detail.toLongLong() : 0;
    const bool late = opened && m_clock() >= openedMs + std::max(kMinAuditGraceMs, openedMs - round.startedMs);
    status = 200;
    if (owners.empty() || !(everyoneNamed || late))
        return audit;
    // Audited: a share of the ranges at random, and every range whose owner named nothing or whose
    // checker did not vouch for the very average and pieces it named; where referees check every
    // average, also one whose referee committed and did not vouch for them.
    QStringList drawn;
    for (const RoundMember &o : owners) {
        const UpdateReportRecord *claim = claimOf(o);
        const bool vouched = vouches(verdictOn(reports, checkers, o.keyId), claim)
                             && (!verdictDue(referees, o.keyId) || vouches(verdictOn(reports, referees, o.keyId), claim));
        if (!vouched || QRandomGenerator::system()->generateDouble() < m_settings.rangeAuditRate)
            drawn.append(o.keyId);
    }
    // The range of an owner that committed to nothing by the close is averaged by its checker in
    // its place, where that committed: nobody checks that average, so it is always audited.
    if (m_clock() >= m_rounds.commitDeadlineMs(round)) {
        for (const RoundMember &o : ownersByRange(round)) {
            const auto checker = checkers.find(o.keyId);
            if (!committed.contains(o.keyId) && checker != checkers.end() && committed.contains(checker->second))
                drawn.append(o.keyId);
        }
    }
    status = 500;
    if (Result<void> kept = m_store.addUpdateReports({{round.number, round.attempt, {}, {}, QLatin1StringView(kAuditDrawn),
                                                       drawn.join(QLatin1Char(','))}});
        !kept)
        return kept.error();
    // Another instance may have drawn first: its draw stands.
    return rangeAudit(asker, roundNumber, status);
}

QString Verification::claimedAverage(const std::vector<UpdateReportRecord> &reports, const QString &owner)
{
    const UpdateReportRecord *claim = findReport(reports, owner, QLatin1StringView(kAverageClaim));
    return claim ? claim->detail : QString();
}

std::filesystem::path Verification::redoneFile(qint64 round, int attempt, const QString &owner) const
{
    return m_updatesDir / "redone" / QStringLiteral("%1-%2-%3").arg(round).arg(attempt).arg(owner).toStdString();
}

Result<QString> Verification::keepRedone(const EvidenceCase &owned, const QByteArray &redone)
{
    const std::filesystem::path dir = m_updatesDir / "redone";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
        const qint64 round = QString::fromStdString(entry.path().filename().string()).section(QLatin1Char('-'), 0, 0).toLongLong();
        if (round < owned.round.number - 1)
            std::filesystem::remove(entry.path(), ec);
    }
    const std::span bytes(reinterpret_cast<const std::byte *>(redone.constData()), std::size_t(redone.size()));
    if (Result<void> written = writeFileAtomically(redoneFile(owned.round.number, owned.round.attempt, owned.owner.keyId), bytes);
        !written)
        return written.error();
    return QString::fromLatin1(QCryptographicHash::hash(redone, QCryptographicHash::Sha256).toHex());
}

Result<std::filesystem::path> Verification::redonePath(const PeerRecord &asker, qint64 roundNumber, const QString &owner,
                                                       QString &sha256, int &status)
{
    Result<RoundReports> running = runningRoundFor(asker, roundNumber, false, status);
    if (!running)
        return running.error();
    status = 404;
    sha256 = redoneSha256Of(running->reports, owner);
    if (sha256.isEmpty() || owner.contains(QLatin1Char('/')) || owner.contains(QLatin1Char('.')))
        return makeError("the coordinator recomputed no range of that owner this round");
    status = 200;
    return redoneFile(running->round.number, running->round.attempt, owner);
}

Result<void> Verification::judgeAudits(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                       std::set<QString> &revoked)
{
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round.number, round.attempt);
    if (!reports)
        return reports.error();
    const UpdateReportRecord *drawn = findReport(*reports, {}, QLatin1StringView(kAuditDrawn));
    if (!drawn)
        return {};
    // An audited owner that named its average, then went on with the round without sending the
    // evidence for it, kept the coordinator from ruling on its range: as good as a refutation.
    for (const QString &owner : drawn->detail.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const bool contributed = std::any_of(verdicts.begin(), verdicts.end(),
                                             [&](const ContributionRecord &c) { return c.keyId == owner; });
        const bool ruled = findReport(*reports, owner, QLatin1StringView(kEvidenceUpheld))
                           || findReport(*reports, owner, QLatin1StringView(kEvidenceRefuted));
        if (!contributed || ruled || claimedAverage(*reports, owner).isEmpty() || revoked.contains(owner))
            continue;
        qCWarning(lcCoordinator).noquote() << "round" << round.number << ":" << owner
                                           << "was audited and sent no evidence for the average it named";
        const QString detail = QStringLiteral("round %1: it sent no evidence for its audited range").arg(round.number);
        if (Result<bool> offended = m_reputation.offend(owner, QStringLiteral("withheld evidence"), detail, true); !offended)
            return offended.error();
        if (Result<void> taken = revokeAccepted(round, verdicts, owner); !taken)
            return taken;
        revoked.insert(owner);
    }
    return {};
}

Result<void> Verification::judgeVouches(const RoundRecord &round, const std::vector<ContributionRecord> &verdicts,
                                        std::set<QString> &revoked)
{
    Result<std::vector<UpdateReportRecord>> reports = m_store.updateReports(round.number, round.attempt);
    if (!reports)
        return reports.error();
    // A referee's verdict is taken only where referees check every average.
    const std::map<QString, QString> checkers = rangeCheckersOf(round), referees = rangeRefereesOf(round);
    for (const UpdateReportRecord &farOff : *reports) {
        if (farOff.kind != QLatin1StringView(kEvidenceFarOff))
            continue;
        const QString &owner = farOff.senderKeyId;
        for (const UpdateReportRecord *verdict : {verdictOn(*reports, checkers, owner), verdictOn(*reports, referees, owner)}) {
            if (!verdict || verdict->detail != verdictDetail(true, farOff.detail))
                continue;
            const QString &partner = verdict->reporterKeyId;
            qCWarning(lcCoordinator).noquote() << "round" << round.number << ":" << partner << "vouched for the average of"
                                               << owner << ", which is far from what its pieces make";
            const QString detail = QStringLiteral("round %1: it vouched for a made-up average of %2").arg(round.number).arg(owner);
            if (Result<bool> convicted = m_reputation.convict(partner, QStringLiteral("false vouch"), detail); !convicted)
                return convicted.error();
            if (revoked.contains(partner))
                continue;
            if (Result<void> taken = revokeAccepted(round, verdicts, partner); !taken)
                return taken;
            revoked.insert(partner);
        }
    }
    return {};
}

} // namespace swarmtrain
