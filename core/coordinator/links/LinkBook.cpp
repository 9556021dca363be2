#include "LinkBook.h"

#include <algorithm>

namespace swarmtrain {

LinkBook::LinkBook(CoordinatorStore &store, LinkBookOptions options) : m_store(store), m_options(options) {}

Result<void> LinkBook::load(qint64 nowMs)
{
    Result<std::vector<LinkRecord>> links = m_store.links(nowMs - qint64(m_options.matrix.maxAgeSeconds * 1000));
    if (!links)
        return links.error();
    for (const LinkRecord &link : *links)
        m_links.insert(Pair(link.fromKeyId, link.toKeyId), link);
    return {};
}

void LinkBook::setOnlinePeers(std::vector<PeerRecord> peers, qint64 nowMs)
{
    // Partnerships that ran out, of peers that may never ask again.
    for (auto peer = m_partners.begin(); peer != m_partners.end();) {
        for (auto it = peer->begin(); it != peer->end();)
            it = nowMs - it.value() > m_options.pairTtlMs ? peer->erase(it) : std::next(it);
        peer = peer->isEmpty() ? m_partners.erase(peer) : std::next(peer);
    }
    m_online = std::move(peers);
    m_onlineIndex.clear();
    for (std::size_t i = 0; i < m_online.size(); ++i)
        m_onlineIndex.insert(m_online[i].keyId, int(i));
}

const PeerRecord *LinkBook::online(const QString &keyId) const
{
    const int index = m_onlineIndex.value(keyId, -1);
    return index < 0 ? nullptr : &m_online[std::size_t(index)];
}

bool LinkBook::fresh(const QString &from, const QString &to, qint64 nowMs) const
{
    const auto found = m_links.constFind(Pair(from, to));
    return found != m_links.constEnd() && nowMs - found->measuredMs < m_options.refreshAfterMs;
}

bool LinkBook::measuredSince(const QString &from, const QString &to, qint64 sinceMs) const
{
    const auto found = m_links.constFind(Pair(from, to));
    return found != m_links.constEnd() && found->measuredMs >= sinceMs;
}

Result<void> LinkBook::record(const QString &from, const std::vector<LinkReport> &reports, qint64 nowMs)
{
    std::vector<LinkRecord> kept;
    for (const LinkReport &report : reports) {
        // Only links to peers the coordinator knows as online, and only one per pair and heartbeat.
        if (report.peerId == from || !online(report.peerId))
            continue;
        if (std::any_of(kept.begin(), kept.end(), [&](const LinkRecord &k) { return k.toKeyId == report.peerId; }))
            continue;
        LinkRecord link{from, report.peerId, report.rttMs, report.bytesPerSecond, nowMs};
        const auto before = m_links.constFind(Pair(from, report.peerId));
        const double maxAgeMs = m_options.matrix.maxAgeSeconds * 1000;
        if (before != m_links.constEnd() && nowMs - before->measuredMs < maxAgeMs) {
            const double b = m_options.blend;
            link.rttMs = b * link.rttMs + (1 - b) * before->rttMs;
            link.bytesPerSecond = b * link.bytesPerSecond + (1 - b) * before->bytesPerSecond;
        }
        kept.push_back(link);
    }
    if (kept.empty())
        return {};
    if (Result<void> stored = m_store.recordLinks(kept, nowMs - qint64(m_options.matrix.maxAgeSeconds * 1000)); !stored)
        return stored;
    for (const LinkRecord &link : kept)
        m_links.insert(Pair(link.fromKeyId, link.toKeyId), link);
    return {};
}

std::vector<ProbePeerInfo> LinkBook::probePeers(const PeerRecord &asker, qint64 nowMs)
{
    // Partnerships made earlier, by this peer or by its partner, while this side has not
    // measured the link since.
    std::vector<QString> partners;
    QHash<QString, qint64> &mine = m_partners[asker.keyId];
    for (auto it = mine.begin(); it != mine.end();) {
        if (nowMs - it.value() > m_options.pairTtlMs) {
            it = mine.erase(it);
            continue;
        }
        if (online(it.key()) && !measuredSince(asker.keyId, it.key(), it.value()))
            partners.push_back(it.key());
        ++it;
    }
    // New partners: a sample of the online peers, the links not measured lately first. One
    // side of a pair must accept connections, or neither could dial the other.
    const int wanted = m_options.probePeersPerHeartbeat - int(partners.size());
    if (wanted > 0 && m_online.size() > 1) {
        std::vector<const PeerRecord *> candidates;
        const std::size_t sample = std::min(m_online.size(), std::size_t(4 * m_options.probePeersPerHeartbeat));
        std::uniform_int_distribution<std::size_t> pick(0, m_online.size() - 1);
        for (std::size_t i = 0; i < sample && int(candidates.size()) < wanted; ++i) {
            const PeerRecord &peer = m_online.size() <= sample ? m_online[i] : m_online[pick(m_random)];
            const bool dialable = (peer.reachable && !peer.endpoint.isEmpty()) || asker.reachable;
            if (peer.keyId == asker.keyId || !dialable || mine.contains(peer.keyId) || fresh(asker.keyId, peer.keyId, nowMs)
                || std::count(candidates.begin(), candidates.end(), &peer))
                continue;
            candidates.push_back(&peer);
        }
        for (const PeerRecord *peer : candidates) {
            mine.insert(peer->keyId, nowMs);
            m_partners[peer->keyId].insert(asker.keyId, nowMs);
            partners.push_back(peer->keyId);
        }
    }
    std::vector<ProbePeerInfo> answer;
    for (const QString &keyId : partners) {
        const PeerRecord *peer = online(keyId);
        answer.push_back({peer->keyId, peer->publicKey, peer->reachable ? peer->endpoint : QString()});
    }
    return answer;
}

std::vector<double> LinkBook::uploadBandwidths(const std::vector<QString> &peers, qint64 nowMs) const
{
    QHash<QString, std::vector<double>> sent, received;
    for (const QString &peer : peers) {
        sent.insert(peer, {});
        received.insert(peer, {});
    }
    for (const LinkRecord &link : m_links) {
        if (double(nowMs - link.measuredMs) / 1000.0 > m_options.matrix.maxAgeSeconds)
            continue;
        if (const auto from = sent.find(link.fromKeyId); from != sent.end() && received.contains(link.toKeyId))
            from->push_back(link.bytesPerSecond);
        if (const auto to = received.find(link.toKeyId); to != received.end() && sent.contains(link.fromKeyId))
            to->push_back(link.bytesPerSecond);
    }
    std::vector<double> bandwidths;
    for (const QString &peer : peers) {
        std::vector<double> &rates = sent[peer].empty() ? received[peer] : sent[peer];
        std::sort(rates.begin(), rates.end());
        bandwidths.push_back(rates.empty() ? 0.0 : rates[rates.size() / 2]);
    }
    return bandwidths;
}

LinkMatrix LinkBook::matrix(const std::vector<QString> &peers, qint64 nowMs) const
{
    std::vector<LinkRecord> links;
    links.reserve(std::size_t(m_links.size()));
    for (const LinkRecord &link : m_links)
        links.push_back(link);
    return LinkMatrix::build(peers, links, nowMs, m_options.matrix);
}

} // namespace swarmtrain
