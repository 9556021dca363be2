#pragma once

#include "CoordinatorStore.h"
#include "Result.h"
#include "TrustSettings.h"

#include <functional>

namespace swarmtrain {

// Counts a known peer's offences (dishonest claims, forged or replayed requests) in the store
// and bans its key after TrustSettings::banAfterOffences of them. A banned key is refused at
// every signed endpoint; its offences and ban outlive restarts.
class Reputation {
public:
    Reputation(CoordinatorStore &store, const TrustSettings &settings, std::function<qint64()> clock);

    // Records the offence; whether the peer is banned now. With `once`, the same kind and detail
    // (which names the round) counts once however often the request is retried.
    Result<bool> offend(const QString &keyId, const QString &kind, const QString &detail, bool once = false);
    // A proven offence: a lie the peer's own signed words show (evidence that refutes the average
    // it named, a vouch for an average far from what its pieces make). Recorded like any offence,
    // then the key is banned at once with all its credit, where this swarm bans at all
    // (TrustSettings::banAfterOffences). No honest client's words can show such a lie. Whether the
    // peer is banned now.
    Result<bool> convict(const QString &keyId, const QString &kind, const QString &detail);
    // Bans the key now, whatever its offences: all its credit goes.
    Result<void> ban(const QString &keyId, const QString &reason);
    // A new identity votes on the agreed state and owns ranges once it is past probation (and a
    // quarantined one once a spot check agreed with its work).
    bool established(const PeerRecord &peer) const;
    // An open swarm's identity with no work recomputed and found honest to its name (none ever,
    // or none since work of its was taken back), the host's trusted keys aside: it has no
    // reputation to lose, and a new one costs nothing.
    bool stranger(const PeerRecord &peer) const;

private:
    CoordinatorStore &m_store;
    const TrustSettings &m_settings;
    std::function<qint64()> m_clock;
};

} // namespace swarmtrain
