#pragma once

#include <QString>

#include <cstdint>
#include <filesystem>
#include <string>

namespace swarmtrain {

// What the swarm worker is told to do: which swarm, where its state lives, how it trains.
struct WorkerOptions {
    QString swarmUrl;        // the coordinator, http(s)://host:port
    QString pinnedPublicKey; // "" or "sha256//BASE64" (an invite's fingerprint)
    std::filesystem::path stateDir; // identity, replica, shards, stats.db
    std::string device = "auto";    // auto | cpu | cuda[:N]
    // The data plane: where other peers reach this one. An empty listen address means
    // outbound only (behind NAT); the coordinator then gives this peer no range to own.
    QString listenAddress = QStringLiteral("0.0.0.0");
    quint16 listenPort = 0;
    QString announcedHost; // the host told to the coordinator; empty: the address it sees
    int threads = 0;       // CPU threads for the engine; 0: every core
    std::int64_t deviceMemoryBudget = 0; // bytes the replica may use on the device; 0: automatic
};

} // namespace swarmtrain
