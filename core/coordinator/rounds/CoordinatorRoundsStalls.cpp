// CoordinatorRounds' defences against members that hold rounds up (issue 43): a member that
// commits to nothing in time, and the members asked in turn for a round's new state.

#include "CoordinatorRounds.h"

#include "CoordinatorLog.h"

#include <algorithm>

namespace swarmtrain {

namespace {

// A suspected staller not heard from this long after its round's commitments closed is gone.
constexpr qint64 kStallJudgeMs = 60'000;

} // namespace

Result<std::set<QString>> CoordinatorRounds::stalledMembers(const RoundRecord &round, const std::set<QString> &reported,
                                                            qint64 nowMs)
{
    std::set<QString> stalled;
    if (nowMs < commitDeadlineMs(round))
        return stalled;
    Result<std::vector<CommitmentRecord>> commitments = m_store.commitments(round.number, round.attempt);
    if (!commitments)
        return commitments.error();
    std::set<QString> committed;
    for (const CommitmentRecord &commitment : *commitments)
        committed.insert(commitment.keyId);
    for (const RoundMember &member : round.members) {
        if (!reported.contains(member.keyId) && !committed.contains(member.keyId))
            stalled.insert(member.keyId);
    }
    return stalled;
}

void CoordinatorRounds::benchStalled(const RoundRecord &round, const std::set<QString> &stalled,
                                     const std::vector<PeerRecord> &online)
{
    for (const PeerRecord &peer : online) {
        if (!stalled.contains(peer.keyId) || peer.banned())
            continue;
        m_benched.insert(peer.keyId);
        qCWarning(lcCoordinator).noquote() << "round" << round.number << ":" << peer.keyId
                                           << "committed to nothing in time; the round went on without it, and the next starts without it";
        // One that vanished or was paused by its owner stalled nothing on purpose: judged on
        // what it says after the commitments closed.
        if (m_onStalled)
            m_stallSuspects[peer.keyId] = {round.number, commitDeadlineMs(round)};
    }
}

Result<void> CoordinatorRounds::judgeStallers(qint64 nowMs)
{
    for (auto it = m_stallSuspects.begin(); it != m_stallSuspects.end();) {
        const auto &[keyId, suspect] = *it;
        Result<std::optional<PeerRecord>> peer = m_store.peer(keyId);
        if (!peer)
            return peer.error();
        const bool heard = *peer && (*peer)->lastSeenMs > suspect.commitDeadlineMs;
        if (heard && (*peer)->state != QLatin1StringView("paused") && !(*peer)->banned())
            m_onStalled(keyId, suspect.round);
        if (heard || nowMs - suspect.commitDeadlineMs > kStallJudgeMs)
            it = m_stallSuspects.erase(it);
        else
            ++it;
    }
    return {};
}

qint64 CoordinatorRounds::stateUploadTurnMs() const
{
    // A state is about as large as the parameters and their momentum: a slow home uplink's worth.
    return std::max<qint64>(m_settings.gatherTimeoutMs, m_settings.parameterCount / 125);
}

qint64 CoordinatorRounds::commitDeadlineMs(const RoundRecord &round) const
{
    return round.startedMs + std::max<qint64>(m_settings.commitTimeoutMs, m_settings.parameterCount / 12'500);
}

Result<bool> CoordinatorRounds::recoverLostState(const RoundRecord &round, const std::vector<PeerRecord> &peers,
                                                qint64 nowMs)
{
    if (round.number == 0)
        return false;
    Result<std::optional<RoundRecord>> previous = m_store.round(round.number - 1);
    if (!previous)
        return makeError("cannot read the previous round");
    if (!*previous || (*previous)->state != RoundState::Done)
        return false;
    RoundRecord before = **previous;
    const auto online = [&](const QString &keyId) {
        return std::any_of(peers.begin(), peers.end(),
                           [&](const PeerRecord &p) { return p.keyId == keyId && isOnline(p) && !p.banned(); });
    };
    const qint64 waitedMs = nowMs - before.finishedMs;
    const qint64 turnMs = stateUploadTurnMs();
    if (!before.uploaderKeyId.isEmpty() && online(before.uploaderKeyId) && waitedMs < turnMs)
        return false; // its upload is on the way
    // The member asked for the state is gone, banned, or has not sent it in its turn (a stranger
    // may withhold it; an honest member may have lost what it needs to post it): the accepted
    // members of that round take turns, one turn each.
    Result<std::vector<ContributionRecord>> reports = m_store.contributions(before.number, before.attempt);
    if (!reports)
        return reports.error();
    std::vector<QString> holders;
    qint64 turns = 0;
    for (const ContributionRecord &report : *reports) {
        turns += report.accepted.value_or(false) ? 1 : 0;
        if (report.accepted.value_or(false) && online(report.keyId))
            holders.push_back(report.keyId);
    }
    const qint64 turn = std::max<qint64>(waitedMs, 0) / std::max<qint64>(turnMs, 1);
    if (!holders.empty() && turn < turns) {
        const QString next = holders[std::size_t(turn % qint64(holders.size()))];
        if (next != before.uploaderKeyId) {
            qCInfo(lcCoordinator) << "state" << round.number << "is asked of" << next << "instead of"
                                  << before.uploaderKeyId;
            before.uploaderKeyId = next;
            if (Result<void> saved = m_store.saveRound(before); !saved)
                return saved.error();
        }
        return false;
    }
    // No holder is left, or each had its turn: after the gather timeout, run that round again
    // from the state it started on, which the members left can train from.
    if (nowMs - round.gatheringSinceMs < m_settings.gatherTimeoutMs)
        return false;
    qCWarning(lcCoordinator) << "state" << round.number << "was lost or withheld by every member that held it; gathering round"
                             << before.number << "again";
    RoundRecord again;
    again.number = before.number;
    again.attempt = before.attempt + 1;
    again.gatheringSinceMs = nowMs;
    again.revision = before.revision;
    if (Result<void> reopened = m_store.reopenRound(round.number, again); !reopened)
        return reopened.error();
    return true;
}

} // namespace swarmtrain
