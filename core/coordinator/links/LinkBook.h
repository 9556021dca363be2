#pragma once

#include "ControlMessages.h"
#include "CoordinatorStore.h"
#include "LinkMatrix.h"
#include "Result.h"

#include <QHash>
#include <QPair>
#include <QString>

#include <random>
#include <vector>

namespace swarmtrain {

struct LinkBookOptions {
    int probePeersPerHeartbeat = 8;  // partners handed to a peer at once
    qint64 pairTtlMs = 30'000;       // a partnership lasts this long, so both sides meet
    qint64 refreshAfterMs = 300'000; // a link measured this recently is not probed again
    double blend = 0.5;              // weight of a new measurement against the one before
    LinkMatrixOptions matrix;
};

// What the coordinator knows about the links between peers (issue 15): it pairs peers up to
// probe each other, takes the measurements they report, blended with the ones before and kept
// in the store, and builds the matrix the scheduler and the all-reduce's ranges use. The peers
// eligible as partners are set on the coordinator's tick, so a heartbeat never reads every peer.
class LinkBook {
public:
    LinkBook(CoordinatorStore &store, LinkBookOptions options = {});

    // Loads the links measured within the matrix's age limit (a restarted coordinator keeps them).
    Result<void> load(qint64 nowMs);
    // The peers online now; partners are picked among them. Forgets partnerships that ran out.
    void setOnlinePeers(std::vector<PeerRecord> peers, qint64 nowMs);

    // A heartbeat's measurements by `from`: reports about itself or unknown peers are dropped.
    Result<void> record(const QString &from, const std::vector<LinkReport> &reports, qint64 nowMs);
    // The peers `asker` should exchange probes with now: partners given to it or that were given
    // it, and new ones for links not measured lately.
    std::vector<ProbePeerInfo> probePeers(const PeerRecord &asker, qint64 nowMs);

    LinkMatrix matrix(const std::vector<QString> &peers, qint64 nowMs) const;
    // Each peer's measured upload (LinkMatrix::peerBandwidth), 0 when unknown, without building
    // a matrix: a round may have thousands of members.
    std::vector<double> uploadBandwidths(const std::vector<QString> &peers, qint64 nowMs) const;

private:
    using Pair = QPair<QString, QString>; // (from, to)
    bool fresh(const QString &from, const QString &to, qint64 nowMs) const;
    bool measuredSince(const QString &from, const QString &to, qint64 sinceMs) const;
    const PeerRecord *online(const QString &keyId) const;

    CoordinatorStore &m_store;
    LinkBookOptions m_options;
    QHash<Pair, LinkRecord> m_links; // by (from, to), directed
    // Partnerships, both ways (a peer's partners and when each was made): a heartbeat reads its
    // own, never all of them.
    QHash<QString, QHash<QString, qint64>> m_partners;
    std::vector<PeerRecord> m_online;
    QHash<QString, int> m_onlineIndex;
    std::mt19937_64 m_random{20221012};
};

} // namespace swarmtrain
