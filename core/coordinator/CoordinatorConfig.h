#pragma once

#include "CorpusReader.h"
#include "CorpusTokenizer.h"
#include "ModelConfig.h"
#include "PipelineMessages.h"
#include "Result.h"
#include "Tokenizer.h"
#include "TrainingSettings.h"
#include "TrustSettings.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace swarmtrain {

// Everything swarmtrain-coordinator takes, from flags and/or a --config JSON file whose keys
// are the flag names without dashes (flags win).
// What the coordinator publishes of its swarm's states (ModelExports.h): --export-every,
// --export-keep, --export-dtype, --export-license.
struct ModelExportSettings {
    int every = 0; // rounds between exports; 0: none
    int keep = 2;  // published rounds kept
    std::string dtype = "float32";
    std::string license = "other";
};

struct CoordinatorConfig {
    std::string listenHost = "0.0.0.0";
    int listenPort = 8470;
    std::filesystem::path stateDir;
    // Where the swarm's state is kept: "sqlite" (coordinator.db in the state dir; one instance),
    // or postgresql://user@host/db, which several instances share (they share the state dir's
    // checkpoints and shards too: README, "Several coordinator instances").
    std::string store = "sqlite";
    // The corpus: files and folders (core/corpus/CorpusInputs.h), how its records are read, and
    // how the tokenizing pass cuts it into token shards.
    std::vector<std::filesystem::path> data;
    CorpusReadOptions corpus;
    ShardingOptions sharding;
    TokenizerKind tokenizer = TokenizerKind::Char;
    // sentencepiece: a model to use (--tokenizer-model), or one of this many pieces trained on
    // the corpus (--vocab-size; kept in the state dir).
    std::filesystem::path tokenizerModel;
    int tokenizerVocabSize = 0;
    ModelConfig model; // vocabSize comes from the tokenizer
    TrainingSettings training;
    // Time-budgeted rounds (training.timeBudgeted): a budget pinned by the operator, or 0 for
    // one adapted to the swarm (what H steps take its median peer).
    double roundSeconds = 0;
    double roundDeadlineSeconds = 600;
    double gatherTimeoutSeconds = 60;
    double commitTimeoutSeconds = 30;
    double heartbeatIntervalSeconds = 10;
    int minPeers = 1;
    int evalIters = 10; // validation batches per checkpoint
    ModelExportSettings exports;
    int stages = 0;     // pipeline stages the scheduler places peers on; 0: it chooses
    // How peers train (issue 17): a whole copy each, one pipeline stage each, or whichever the
    // model's training state and the peers' memory call for (StagePartition's chooseSwarmMode).
    enum class Mode { Full, Pipeline, Auto } mode = Mode::Full;
    // auto: the memory of a typical peer, when the swarm's database has no peers' reports yet.
    std::int64_t typicalPeerMemoryBytes = std::int64_t(8) << 30;
    PipelineSettings pipeline; // pipeline mode: stages come from `stages`
    double rebalanceSeconds = 30; // pipeline mode: how often a peer may move to the bottleneck stage
    // pipeline mode: where a peer starts, by key id (an operator who knows the machines); the
    // rebalancer may move it later. Others go where the least capacity is.
    std::map<QString, int> placeHints;
    double scheduleSeconds = 2.0; // each scheduling search's budget
    // How the all-reduce's ranges are sized: in proportion to each owner's measured bandwidth,
    // or equal.
    bool bandwidthRanges = true;
    // Requests per second per client address and per peer key (token buckets, bursts of 4 s'
    // worth); 0: no limit.
    double rateLimitPerAddress = 50;
    // Load balancers in front (--trusted-proxy): requests through them are from the address they
    // put last in X-Forwarded-For.
    std::vector<std::string> trustedProxies;
    double rateLimitPerKey = 20;
    std::filesystem::path tlsCert;
    std::filesystem::path tlsKey;
    // The command line turns this on unless it names a certificate or asks for --plain-http:
    // HTTPS is the default, so a client can check that answers come from this coordinator.
    bool tlsSelfSigned = false;
    TrustSettings trust; // admission, limits per address, probation, bans
    bool plainHttp = false;
    bool migrateOnly = false; // migrate the store's schema and exit

    bool tls() const { return tlsSelfSigned || !tlsCert.empty(); }
};

Result<CoordinatorConfig> parseCoordinatorArguments(const std::vector<std::string> &args);
std::string coordinatorUsage();

} // namespace swarmtrain
