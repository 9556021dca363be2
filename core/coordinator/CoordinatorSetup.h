#pragma once

#include "CoordinatorConfig.h"
#include "CoordinatorRecords.h"
#include "CoordinatorStore.h"
#include "GptConfig.h"
#include "Result.h"
#include "ShardManifest.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace swarmtrain {

// A coordinator's state dir made ready: the database, the shards, the tokenizer and the
// current global state. A new dir gets round 0; an existing one is checked against the flags
// (a different model or data is an error, never silently a different swarm).
struct CoordinatorSetup {
    std::filesystem::path stateDir;
    std::unique_ptr<CoordinatorStore> store;
    std::optional<ShardManifest> manifest;
    std::optional<Tokenizer> tokenizer;
    GptConfig model;
    std::int64_t parameterCount = 0;
    std::vector<std::int32_t> validationTokens;
    CheckpointRecord checkpoint; // the latest global state

    std::filesystem::path checkpointsDir() const { return stateDir / "checkpoints"; }

    static Result<CoordinatorSetup> prepare(const CoordinatorConfig &config);
};

} // namespace swarmtrain
