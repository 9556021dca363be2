#pragma once

#include "CoordinatorRecords.h"

#include <QHash>
#include <QString>

#include <optional>
#include <vector>

namespace swarmtrain {

// One direction of a link as the scheduler needs it.
struct LinkEntry {
    double delaySeconds = 0.0; // one way
    double bytesPerSecond = 0.0;
    double ageSeconds = 0.0; // of the measurement (of those it came from, for an estimate)
    bool measured = false;   // false: estimated from other links
};

struct LinkMatrixOptions {
    double maxAgeSeconds = 600;          // older measurements are not used
    double defaultDelaySeconds = 0.05;   // for a peer no link of which was measured yet
    double defaultBytesPerSecond = 10e6; // a home upload of about 80 Mbit/s
};

// The delay and bandwidth between every pair of the given peers (issue 15): measured links
// where peers probed each other, the other direction of a measured link where only one was,
// and estimates for the rest: the delay from the two peers' median measured delays, the
// bandwidth from the sender's median upload and the receiver's median download.
class LinkMatrix {
public:
    static LinkMatrix build(std::vector<QString> peers, const std::vector<LinkRecord> &links, qint64 nowMs,
                            const LinkMatrixOptions &options = {});

    int size() const { return int(m_peers.size()); }
    const std::vector<QString> &peers() const { return m_peers; }
    const LinkEntry &at(int from, int to) const { return m_entries[std::size_t(from) * m_peers.size() + std::size_t(to)]; }
    int measuredCount() const { return m_measured; }
    int estimatedCount() const { return size() * (size() - 1) - m_measured; }
    // A peer's typical upload: the median of its measured links to others (a home line's
    // upload is what limits it), else of the links it was measured on by others.
    std::optional<double> peerBandwidth(int peer) const;
    int indexOf(const QString &keyId) const { return m_index.value(keyId, -1); }

private:
    LinkEntry &entry(int from, int to) { return m_entries[std::size_t(from) * m_peers.size() + std::size_t(to)]; }
    void estimateMissing(const LinkMatrixOptions &options);

    std::vector<QString> m_peers;
    QHash<QString, int> m_index;
    std::vector<LinkEntry> m_entries;
    int m_measured = 0;
};

} // namespace swarmtrain
