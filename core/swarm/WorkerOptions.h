#pragma once

#include "Misbehaviour.h"

#include <QString>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

// What the swarm worker is told to do: which swarm, where its state lives, how it trains.
struct WorkerOptions {
    QString swarmUrl;        // the coordinator, http(s)://host:port
    QString pinnedPublicKey; // "" or "sha256//BASE64" (an invite's fingerprint)
    QString inviteToken;     // "" or an invite-only swarm's token, sent with the join
    QString displayName;     // "" or the leaderboard name sent with the join (validateDisplayName)
    bool allowPlainHttp = false; // plain http:// to a coordinator off this machine (CoordinatorClientOptions)
    std::filesystem::path stateDir; // identity, replica, shards, stats.db
    std::string device = "auto";    // auto | cpu | cuda[:N]
    // The data plane: where other peers reach this one. An empty listen address means
    // outbound only (behind NAT); the coordinator then gives this peer no range to own.
    QString listenAddress = QStringLiteral("0.0.0.0");
    quint16 listenPort = 0;
    QString announcedHost; // the host told to the coordinator; empty: the address it sees
    quint16 announcedPort = 0; // the port told to the coordinator (a relay's, a NAT's); 0: the listening port
    int threads = 0;       // CPU threads for the engine; 0: every core
    std::int64_t deviceMemoryBudget = 0; // bytes the replica may use on the device; 0: automatic
    // How to run the GPU probe's child for the device report; empty: no GPUs are listed.
    std::vector<std::string> gpuProbeCommand;
    // The adversary tests' hostile client only (tests/adversary); release binaries never set it.
    Misbehaviour misbehaviour;
};

} // namespace swarmtrain
