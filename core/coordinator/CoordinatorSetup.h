#pragma once

#include "CoordinatorConfig.h"
#include "CoordinatorRecords.h"
#include "CoordinatorStore.h"
#include "ModelConfig.h"
#include "Result.h"
#include "SqlCoordinatorStore.h"
#include "ShardManifest.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace swarmtrain {

// A coordinator's state dir made ready: the database, the tokenizer, the token shards (the
// corpus tokenized once, resuming an interrupted pass) and the current global state. An existing
// dir is checked against the flags (a different model, tokenizer or data is an error, never
// silently a different swarm). A new one has no global state until
// writeInitialState() makes round 0: a full-model swarm's server does at start, a pipeline
// swarm's never does, so its coordinator never builds the model it is too big to hold.
struct CoordinatorSetup {
    std::filesystem::path stateDir;
    std::unique_ptr<CoordinatorStore> store;
    std::optional<ShardManifest> manifest;
    std::optional<Tokenizer> tokenizer;
    std::filesystem::path tokenizerModelFile; // a SentencePiece swarm's, served at GET /v1/tokenizer
    ModelConfig model;
    std::int64_t parameterCount = 0;
    // The held-out split's tokens, read from its shards (their count and the UTF-8 bytes of their
    // text: manifest->validationTokens(), validationBytes()).
    std::vector<std::int32_t> validationTokens;
    CheckpointRecord checkpoint; // the latest global state; no file name: none yet
    std::uint64_t seed = 1;      // the model's initial values (the swarm's training seed)

    bool hasState() const { return !checkpoint.fileName.isEmpty(); }
    // Round 0: the seed's initial model, recorded as the current state. Nothing when one exists.
    Result<void> writeInitialState();

    std::filesystem::path checkpointsDir() const { return stateDir / "checkpoints"; }

    static Result<CoordinatorSetup> prepare(const CoordinatorConfig &config);
};

// The store --store names: SQLite in the state dir, or a PostgreSQL database.
Result<std::unique_ptr<SqlCoordinatorStore>> openCoordinatorStore(const CoordinatorConfig &config);

// swarmtrain-coordinator --migrate-only: opens the swarm's store, which brings its schema to
// this coordinator's version, and closes it. The version it is at.
Result<int> migrateCoordinatorStore(const CoordinatorConfig &config);

} // namespace swarmtrain
