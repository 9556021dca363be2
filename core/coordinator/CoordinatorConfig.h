#pragma once

#include "GptConfig.h"
#include "Result.h"
#include "Tokenizer.h"
#include "TrainingSettings.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

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
