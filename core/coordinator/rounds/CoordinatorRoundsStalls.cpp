// CoordinatorRounds' defences against members that hold rounds up (issue 43): a member that
// commits to nothing in time, and the turn of the member asked for a round's new state.

#include "CoordinatorRounds.h"

#include "CoordinatorLog.h"

#include <algorithm>

namespace swarmtrain {

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
        // One that vanished or was paused by its owner stalled nothing on purpose.
        if (m_onStalled && peer.lastSeenMs > commitDeadlineMs(round) && peer.state != QLatin1StringView("paused"))
            m_onStalled(peer.keyId, round.number);
    }
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

} // namespace swarmtrain
