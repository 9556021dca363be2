#include "Reputation.h"

#include "CoordinatorLog.h"

namespace swarmtrain {

Reputation::Reputation(CoordinatorStore &store, const TrustSettings &settings, std::function<qint64()> clock)
    : m_store(store), m_settings(settings), m_clock(std::move(clock))
{
}

Result<bool> Reputation::offend(const QString &keyId, const QString &kind, const QString &detail, bool once)
{
    Result<qint64> count = m_store.recordOffence(keyId, kind, detail.left(500), m_clock(), once);
    if (!count)
        return count.error();
    qCWarning(lcCoordinator).noquote() << "offence" << *count << "of" << keyId << "(" << kind << "):" << detail;
    if (m_settings.banAfterOffences <= 0 || *count < m_settings.banAfterOffences)
        return false;
    if (Result<void> banned = ban(keyId, QStringLiteral("%1 offences, the last: %2").arg(*count).arg(kind)); !banned)
        return banned.error();
    return true;
}

Result<bool> Reputation::convict(const QString &keyId, const QString &kind, const QString &detail)
{
    Result<bool> banned = offend(keyId, kind, detail, true);
    if (!banned || *banned || m_settings.banAfterOffences <= 0)
        return banned;
    if (Result<void> done = ban(keyId, QStringLiteral("proven: %1 (%2)").arg(kind, detail)); !done)
        return done.error();
    return true;
}

Result<void> Reputation::ban(const QString &keyId, const QString &reason)
{
    if (Result<void> banned = m_store.banPeer(keyId, reason); !banned)
        return banned;
    qCWarning(lcCoordinator).noquote() << "banned" << keyId << ":" << reason;
    return {};
}

bool Reputation::established(const PeerRecord &peer) const
{
    // Quarantined: left out by the owners, until a spot check agrees with its work.
    if (peer.quarantined)
        return false;
    // With spot checks on, agreeing is not enough: its work must have been recomputed, too.
    const bool verified = m_settings.spotCheckRateNew <= 0.0 || peer.verifiedRounds >= 1;
    return m_settings.admission != Admission::Open || m_settings.trustedKeys.contains(peer.keyId)
           || (peer.acceptedRounds >= m_settings.probationRounds && verified);
}

bool Reputation::stranger(const PeerRecord &peer) const
{
    return m_settings.admission == Admission::Open && !m_settings.trustedKeys.contains(peer.keyId) && peer.verifiedRounds == 0;
}

} // namespace swarmtrain
