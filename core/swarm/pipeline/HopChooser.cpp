#include "HopChooser.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace swarmtrain {

HopChooser::HopChooser(HopChooserSettings settings, std::uint64_t seed)
    : m_settings(settings)
    , m_random(seed)
{
}

void HopChooser::setPeers(const std::vector<std::string> &peerIds)
{
    std::map<std::string, Peer> peers;
    for (const std::string &id : peerIds) {
        const auto known = m_peers.find(id);
        peers[id] = known != m_peers.end() ? known->second : Peer{};
    }
    m_peers = std::move(peers);
}

double HopChooser::secondsPer(const Peer &peer) const
{
    if (peer.seconds)
        return *peer.seconds;
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto &[id, other] : m_peers)
        if (other.seconds)
            fastest = std::min(fastest, *other.seconds);
    return std::isfinite(fastest) ? fastest : std::chrono::duration<double>(m_settings.unmeasured).count();
}

double HopChooser::expectedSeconds(const std::string &peerId) const
{
    const auto peer = m_peers.find(peerId);
    return peer == m_peers.end() ? std::numeric_limits<double>::infinity()
                                 : (peer->second.inFlight + 1) * secondsPer(peer->second);
}

int HopChooser::inFlight(const std::string &peerId) const
{
    const auto peer = m_peers.find(peerId);
    return peer == m_peers.end() ? 0 : peer->second.inFlight;
}

bool HopChooser::backingOff(const std::string &peerId, Clock::time_point now) const
{
    const auto peer = m_peers.find(peerId);
    return peer != m_peers.end() && now < peer->second.backoffUntil;
}

std::optional<std::string> HopChooser::choose(Clock::time_point now, const std::vector<std::string> &except)
{
    std::vector<std::pair<const std::string *, double>> open;
    double best = std::numeric_limits<double>::infinity();
    for (const auto &[id, peer] : m_peers) {
        if (now < peer.backoffUntil || std::find(except.begin(), except.end(), id) != except.end())
            continue;
        const double expected = expectedSeconds(id);
        open.emplace_back(&id, expected);
        best = std::min(best, expected);
    }
    std::erase_if(open, [&](const auto &candidate) { return candidate.second > best * m_settings.nearEqual; });
    if (open.empty())
        return std::nullopt;
    std::vector<double> weights;
    for (const auto &candidate : open)
        weights.push_back(1.0 / std::max(candidate.second, 1e-9));
    std::discrete_distribution<std::size_t> draw(weights.begin(), weights.end());
    const std::string chosen = *open[draw(m_random)].first;
    ++m_peers[chosen].inFlight;
    return chosen;
}

void HopChooser::settle(Peer &peer) { peer.inFlight = std::max(0, peer.inFlight - 1); }

void HopChooser::succeeded(const std::string &peerId, Clock::duration roundTrip)
{
    const auto found = m_peers.find(peerId);
    if (found == m_peers.end())
        return; // it left the stage meanwhile
    Peer &peer = found->second;
    settle(peer);
    const double seconds = std::chrono::duration<double>(roundTrip).count();
    peer.seconds = peer.seconds ? (1.0 - m_settings.emaWeight) * *peer.seconds + m_settings.emaWeight * seconds : seconds;
    peer.failuresInARow = 0;
    peer.backoffUntil = {};
}

void HopChooser::released(const std::string &peerId)
{
    if (const auto found = m_peers.find(peerId); found != m_peers.end())
        settle(found->second);
}

void HopChooser::failed(const std::string &peerId, Clock::time_point now)
{
    const auto found = m_peers.find(peerId);
    if (found == m_peers.end())
        return;
    Peer &peer = found->second;
    settle(peer);
    // Doubling up to 2^20 times the base, far past any maxBackoff, and never overflowing.
    peer.failuresInARow = std::min(peer.failuresInARow + 1, 21);
    const auto backoff = std::min<Clock::duration>(m_settings.backoff * (std::int64_t(1) << (peer.failuresInARow - 1)),
                                                    m_settings.maxBackoff);
    peer.backoffUntil = now + backoff;
}

std::chrono::milliseconds HopChooser::timeout(const std::string &peerId) const
{
    const auto found = m_peers.find(peerId);
    if (found == m_peers.end() || !found->second.seconds)
        return m_settings.maxTimeout;
    const auto measured = std::chrono::milliseconds(std::int64_t(std::ceil(*found->second.seconds * m_settings.timeoutFactor * 1000.0)));
    return std::clamp(measured, m_settings.minTimeout, m_settings.maxTimeout);
}

} // namespace swarmtrain
