#pragma once

#include "GptConfig.h"
#include "Result.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

// What every peer trains with; sent in the join answer.
struct TrainingSettings {
    int innerSteps = 500; // H: local steps between rounds
    int batchSize = 12;
    double lr = 1e-3;
    double minLr = 1e-4;
    int warmupIters = 100;
    // Inner steps (counted across rounds) of the cosine decay to minLr; 0: the full rate
    // after warm-up, for a swarm without an end.
    std::int64_t lrDecayIters = 0;
    double weightDecay = 0.1;
    double gradClip = 1.0;
    // The outer Nesterov step. DiLoCo's 0.7 / 0.9 were tuned for H = 500 over many rounds; with
    // H = 50 and 4 peers, 1.2 / 0.5 came out best of those tried (bench/SwarmSimulation, README).
    double outerLr = 1.2;
    double outerMomentum = 0.5;
    std::uint64_t seed = 1;
};

// Everything swarmtrain-coordinator takes, from flags and/or a --config JSON file whose keys
// are the flag names without dashes (flags win).
struct CoordinatorConfig {
    std::string listenHost = "0.0.0.0";
    int listenPort = 8470;
    std::filesystem::path stateDir;
    std::filesystem::path data;
    TokenizerKind tokenizer = TokenizerKind::Char;
    GptConfig model; // vocabSize comes from the tokenizer
    TrainingSettings training;
    double roundDeadlineSeconds = 600;
    double gatherTimeoutSeconds = 60;
    double heartbeatIntervalSeconds = 10;
    int minPeers = 1;
    std::uint64_t shardBytes = 64 * 1024;
    int evalIters = 10; // validation batches per checkpoint
    std::filesystem::path tlsCert;
    std::filesystem::path tlsKey;
    bool tlsSelfSigned = false;

    bool tls() const { return tlsSelfSigned || !tlsCert.empty(); }
};

Result<CoordinatorConfig> parseCoordinatorArguments(const std::vector<std::string> &args);
std::string coordinatorUsage();

} // namespace swarmtrain
