#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace swarmtrain {

// SWARM's stochastic wiring (Ryabinin et al. 2023, section 3.2; issue 17): picks the peer of the
// next pipeline stage that a microbatch goes to. Each peer's time per microbatch is an
// exponential moving average of measured round trips; its expected completion time is that times
// (its requests in flight + 1). The peer with the smallest expected time and those within
// `nearEqual` of it are drawn at random, weighted by 1 / expected time, so equal peers share
// the load and a faster one gets more of it. A peer that failed or timed out is skipped for a
// backoff that doubles with each failure in a row; its first success ends it. Timeouts come from
// the measured times, not from constants.
struct HopChooserSettings {
    double emaWeight = 0.25;  // weight of the newest round trip
    double nearEqual = 1.25;  // drawn among those whose expected time is within this of the best
    double timeoutFactor = 4.0;
    std::chrono::milliseconds minTimeout{2'000};
    std::chrono::milliseconds maxTimeout{120'000};
    // The time assumed of a peer not measured yet: the stage's fastest measured one (so that a
    // newcomer is tried soon), or this when none is.
    std::chrono::milliseconds unmeasured{1'000};
    std::chrono::milliseconds backoff{1'000};
    std::chrono::milliseconds maxBackoff{60'000};
};

class HopChooser {
public:
    using Clock = std::chrono::steady_clock;

    explicit HopChooser(HopChooserSettings settings = {}, std::uint64_t seed = std::random_device{}());

    // The stage's peers now (the coordinator's placement): a peer that stays keeps its figures,
    // one that left is forgotten with its requests in flight.
    void setPeers(const std::vector<std::string> &peerIds);
    // The next hop, counted in flight; none while every peer is backing off (or there is none).
    // `except`: peers not to use for this microbatch (those it already failed on).
    std::optional<std::string> choose(Clock::time_point now, const std::vector<std::string> &except = {});
    // The answer came after `roundTrip`.
    void succeeded(const std::string &peerId, Clock::duration roundTrip);
    // No answer, a refused request or a timeout: the peer backs off from `now`.
    void failed(const std::string &peerId, Clock::time_point now);
    // The peer was at capacity and said so: the request is no longer in flight there, and the
    // peer neither backs off nor gets a new time (it did nothing wrong, and nothing was timed).
    void released(const std::string &peerId);

    // How long to wait for `peerId`'s answer: timeoutFactor times its measured time, within
    // [minTimeout, maxTimeout]; maxTimeout for a peer never measured.
    std::chrono::milliseconds timeout(const std::string &peerId) const;
    // (in flight + 1) x its time per microbatch, in seconds; what choose() compares.
    double expectedSeconds(const std::string &peerId) const;
    int inFlight(const std::string &peerId) const;
    bool backingOff(const std::string &peerId, Clock::time_point now) const;

private:
    struct Peer {
        std::optional<double> seconds; // EMA of round trips
        int inFlight = 0;
        int failuresInARow = 0;
        Clock::time_point backoffUntil{};
    };

    double secondsPer(const Peer &peer) const;
    void settle(Peer &peer);

    HopChooserSettings m_settings;
    std::map<std::string, Peer> m_peers;
    std::mt19937_64 m_random;
};

} // namespace swarmtrain
