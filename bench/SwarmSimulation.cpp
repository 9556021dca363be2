// Full-model swarm training (DiLoCo) simulated in one process, against one machine training
// the same model on the same total tokens. Prints JSON lines; figures only, never pass/fail:
//   swarmtrain_swarm_simulation --data FILE [--peers 4] [--inner-steps 50] [--rounds 40] [model flags]
//                               [--outer-lr X] [--outer-momentum X] [--seed N] [--compression on|off]
//                               [--peer-data contiguous|interleaved|all [--chunk-tokens N]]
//                               [--only swarm|single_large_batch|single_more_steps]
// Each peer is a ReplicaTrainer on its own part of the training text (contiguous by default).
// Every round each peer trains H inner steps, its pseudo-gradient is 8-bit quantized with error
// feedback (what it would send), the token-weighted average of the decoded pieces is quantized
// again (what each shard's owner sends back) and every peer applies the same outer Nesterov step;
// the peers' parameter hashes are compared after every round. The bytes a peer would send in a butterfly
// all-reduce of those encodings are set against a float32 all-reduce after every inner step.
#include "CommandLine.h"
#include "OuterOptimizer.h"
#include "Quantization.h"
#include "ReplicaTrainer.h"
#include "SwarmState.h"
#include "TextDataset.h"
#include "Trainer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <unistd.h>

using namespace swarmtrain;

namespace {

struct Setup {
    std::filesystem::path data;
    int peers = 4;
    std::int64_t innerSteps = 50;
    std::int64_t rounds = 40;
    GptConfig model;
    ReplicaOptions replica;
    int evalIters = 40;
    std::string only; // one run's name; empty runs all three
    bool compress = true; // off measures what the 8-bit encoding costs in loss
    // How the training text is split among the peers: "contiguous" parts, "interleaved" chunks
    // of chunkTokens dealt round-robin, or "all" of it for every peer.
    std::string peerData = "contiguous";
    std::int64_t chunkTokens = 4096;
};

Result<Setup> parse(int argc, char **argv)
{
    Result<CommandLine> line = CommandLine::parse(
        std::vector<std::string>(argv + 1, argv + argc),
        {"data", "peers", "inner-steps", "rounds", "n-layer", "n-head", "n-embd", "block-size", "batch-size", "lr",
         "min-lr", "warmup-iters", "outer-lr", "outer-momentum", "eval-iters", "seed", "threads", "only", "compression",
         "peer-data", "chunk-tokens"},
        {});
    if (!line)
        return line.error();
    Setup s;
    s.model.nLayer = 4; // nanoGPT's shakespeare_char, as the engine's acceptance runs
    s.model.nHead = 4;
    s.model.nEmbd = 128;
    s.model.blockSize = 64;
    s.replica.schedule = {1e-3, 1e-4, 100, 0};
    std::string data;
    int threads = 0;
    std::string compression = "on";
    for (Result<void> r : {line->readString("data", data), line->read("peers", 1, 64, s.peers),
                           line->read("inner-steps", 1, 100000, s.innerSteps), line->read("rounds", 1, 100000, s.rounds),
                           line->read("n-layer", 1, 96, s.model.nLayer), line->read("n-head", 1, 96, s.model.nHead),
                           line->read("n-embd", 1, 16384, s.model.nEmbd),
                           line->read("block-size", 2, 65536, s.model.blockSize),
                           line->read("batch-size", 1, 4096, s.replica.batchSize),
                           line->readDouble("lr", 0, 10, s.replica.schedule.maxLr),
                           line->readDouble("min-lr", 0, 10, s.replica.schedule.minLr),
                           line->read("warmup-iters", 0, 1000000, s.replica.schedule.warmupIters),
                           line->readDouble("outer-lr", 0, 10, s.replica.outerLr),
                           line->readDouble("outer-momentum", 0, 0.999, s.replica.outerMomentum),
                           line->read("eval-iters", 1, 10000, s.evalIters), line->read("seed", 0, 1LL << 62, s.replica.seed),
                           line->read("threads", 0, 1024, threads), line->readString("only", s.only),
                           line->readString("compression", compression),
                           line->readString("peer-data", s.peerData),
                           line->read("chunk-tokens", 1, 1LL << 40, s.chunkTokens)}) {
        if (!r)
            return r.error();
    }
    if (data.empty())
        return makeError("--data FILE is required");
    if (!s.only.empty() && s.only != "swarm" && s.only != "single_large_batch" && s.only != "single_more_steps")
        return makeError("--only takes swarm, single_large_batch or single_more_steps");
    if (compression != "on" && compression != "off")
        return makeError("--compression takes on or off");
    s.compress = compression == "on";
    if (s.peerData != "contiguous" && s.peerData != "interleaved" && s.peerData != "all")
        return makeError("--peer-data takes contiguous, interleaved or all");
    s.data = data;
    configureThreads(threads);
    return s;
}

void print(const nlohmann::json &line)
{
    std::cout << line.dump() << std::endl;
}

// What one peer sends in a round's butterfly all-reduce of n values: the other owners' parts of
// its piece and, as an owner, its averaged part back to the others, 2 (P - 1) / P of the vector.
std::int64_t bytesSentPerRound(std::size_t n, std::size_t peers, bool compress)
{
    const double vectorBytes = compress ? double(encodedQuantizedSize(n)) : double(n) * 4.0;
    return std::int64_t(2.0 * double(peers - 1) / double(peers) * vectorBytes);
}

// Trains `replicas` for `rounds` rounds; returns the final validation loss of the global model.
Result<double> runSwarm(const std::string &name, std::vector<std::unique_ptr<ReplicaTrainer>> &replicas,
                        std::int64_t rounds, const std::vector<std::int32_t> &val, int evalIters, bool compress)
{
    const std::size_t n = std::size_t(replicas.front()->parameterCount());
    const std::size_t peers = replicas.size();
    std::vector<ErrorFeedback> feedback;
    for (std::size_t p = 0; p < peers; ++p)
        feedback.emplace_back(n);
    std::int64_t bytesSentPerPeer = 0, tokens = 0;
    double valLoss = 0.0;
    const auto started = std::chrono::steady_clock::now();
    for (std::int64_t round = 0; round < rounds; ++round) {
        std::vector<std::vector<float>> pieces(peers);
        std::vector<double> weights(peers);
        double trainLoss = 0.0;
        for (std::size_t p = 0; p < peers; ++p) {
            Result<InnerReport> inner = replicas[p]->trainInner();
            if (!inner)
                return inner.error();
            trainLoss += inner->meanLoss / double(peers);
            tokens += inner->tokens;
            weights[p] = double(inner->tokens);
            pieces[p] = replicas[p]->pseudoGradient();
            if (compress) {
                Result<Quantized> q = feedback[p].compress(pieces[p]);
                if (!q)
                    return q.error();
                pieces[p] = dequantize(*q);
            }
        }
        std::vector<WeightedPiece> weighted;
        for (std::size_t p = 0; p < peers; ++p)
            weighted.push_back({pieces[p], weights[p]});
        std::vector<float> average(n);
        if (Result<void> r = weightedAverage(weighted, average); !r)
            return r.error();
        if (compress) {
            Result<Quantized> q = quantize(average);
            if (!q)
                return q.error();
            average = dequantize(*q);
        }
        bytesSentPerPeer += bytesSentPerRound(n, peers, compress);
        for (auto &replica : replicas) {
            if (Result<void> r = replica->applyOuterStep(average); !r)
                return r.error();
        }
        bool agree = true;
        for (auto &replica : replicas)
            agree = agree && replica->globalHash() == replicas.front()->globalHash();
        Result<double> loss = replicas.front()->globalLoss(val, evalIters, 1234);
        if (!loss)
            return loss.error();
        valLoss = *loss;
        print({{"run", name},
               {"round", round + 1},
               {"train_loss", trainLoss},
               {"val_loss", valLoss},
               {"hashes_agree", agree},
               {"tokens", tokens},
               {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}});
        if (!agree)
            return makeError("the replicas' parameters differ after round " + std::to_string(round + 1));
    }
    print({{"run", name}, {"bytes_sent_per_peer", bytesSentPerPeer}});
    return valLoss;
}

int runMain(int argc, char **argv)
{
    Result<Setup> setup = parse(argc, argv);
    if (!setup) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << setup.error().message << "\n";
        return 1;
    }
    Setup &s = *setup;
    Result<TextCorpus> corpus = loadTextCorpus(s.data);
    if (!corpus) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << corpus.error().message << "\n";
        return 1;
    }
    Result<Tokenizer> tokenizer = Tokenizer::buildCharacter(corpus->text);
    Result<std::vector<std::int32_t>> tokens = tokenizer ? tokenizer->encode(corpus->text)
                                                         : Result<std::vector<std::int32_t>>(tokenizer.error());
    if (!tokens) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << tokens.error().message << "\n";
        return 1;
    }
    s.model.vocabSize = tokenizer->vocabSize();
    // nanoGPT's split: the first 90% trains, the last 10% validates.
    const std::size_t trainEnd = tokens->size() * 9 / 10;
    const std::vector<std::int32_t> train(tokens->begin(), tokens->begin() + std::ptrdiff_t(trainEnd));
    const std::vector<std::int32_t> val(tokens->begin() + std::ptrdiff_t(trainEnd), tokens->end());

    const std::filesystem::path stateFile =
        std::filesystem::temp_directory_path() / ("swarmtrain-simulation-" + std::to_string(::getpid()) + ".safetensors");
    if (Result<void> r = writeInitialSwarmState(stateFile, s.model, *tokenizer, s.replica.seed); !r) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << r.error().message << "\n";
        return 1;
    }
    const std::size_t n = std::size_t(s.model.parameterCount());
    const std::int64_t stepsPerPeer = s.innerSteps * s.rounds;
    print({{"config", s.model.toJson()}, {"peers", s.peers}, {"inner_steps", s.innerSteps}, {"rounds", s.rounds},
           {"batch_size", s.replica.batchSize}, {"params", n}});

    // The swarm, then one machine on the same total tokens: P times the batch for as many
    // steps as each peer ran, and P times the steps at the peers' batch. An outer step of
    // learning rate 1 without momentum makes the global model the locally trained one.
    struct Run {
        std::string name;
        int peers, batch;
        std::int64_t inner;
        double outerLr, momentum;
        bool compress;
    };
    const std::vector<Run> runs = {
        {"swarm", s.peers, s.replica.batchSize, s.innerSteps, s.replica.outerLr, s.replica.outerMomentum,
         s.compress},
        {"single_large_batch", 1, s.replica.batchSize * s.peers, s.innerSteps, 1.0, 0.0, false},
        {"single_more_steps", 1, s.replica.batchSize, s.innerSteps * s.peers, 1.0, 0.0, false},
    };
    const auto replicasOf = [&](const Run &run) -> Result<std::vector<std::unique_ptr<ReplicaTrainer>>> {
        std::vector<std::unique_ptr<ReplicaTrainer>> replicas;
        for (int p = 0; p < run.peers; ++p) {
            ReplicaOptions o = s.replica;
            o.batchSize = run.batch;
            o.innerSteps = run.inner;
            o.schedule.decayIters = run.inner * s.rounds;
            o.outerLr = run.outerLr;
            o.outerMomentum = run.momentum;
            o.seed = s.replica.seed * 1000 + std::uint64_t(p);
            o.device = "cpu";
            Result<std::unique_ptr<ReplicaTrainer>> replica = ReplicaTrainer::create(stateFile, o);
            if (!replica)
                return replica.error();
            std::vector<std::int32_t> shard;
            if (s.peerData == "all" || run.peers == 1) {
                shard = train;
            } else if (s.peerData == "contiguous") {
                const std::size_t part = train.size() / std::size_t(run.peers);
                shard.assign(train.begin() + std::ptrdiff_t(part * std::size_t(p)),
                             train.begin() + std::ptrdiff_t(part * std::size_t(p + 1)));
            } else {
                const std::size_t chunk = std::size_t(s.chunkTokens);
                for (std::size_t first = chunk * std::size_t(p); first < train.size();
                     first += chunk * std::size_t(run.peers))
                    shard.insert(shard.end(), train.begin() + std::ptrdiff_t(first),
                                 train.begin() + std::ptrdiff_t(std::min(train.size(), first + chunk)));
            }
            if (Result<void> r = (*replica)->setTrainingTokens(std::move(shard)); !r)
                return r.error();
            replicas.push_back(std::move(replica).value());
        }
        return replicas;
    };

    std::map<std::string, double> finalLoss;
    std::int64_t swarmBytes = 0;
    for (const Run &run : runs) {
        // A sweep of the swarm's settings need not train the same baselines again.
        if (!s.only.empty() && run.name != s.only)
            continue;
        Result<std::vector<std::unique_ptr<ReplicaTrainer>>> replicas = replicasOf(run);
        if (!replicas) {
            std::cerr << "swarmtrain_swarm_simulation: error: " << replicas.error().message << "\n";
            return 1;
        }
        // Every run is scored on as many validation windows (the large batch's evalIters batches).
        const int evalIters = s.evalIters * s.peers * s.replica.batchSize / run.batch;
        Result<double> loss = runSwarm(run.name, *replicas, s.rounds, val, evalIters, run.compress);
        if (!loss) {
            std::cerr << "swarmtrain_swarm_simulation: error: " << loss.error().message << "\n";
            return 1;
        }
        finalLoss[run.name] = *loss;
    }
    std::filesystem::remove(stateFile);

    swarmBytes = bytesSentPerRound(n, std::size_t(s.peers), s.compress) * s.rounds;
    const double fp32Bytes = 2.0 * double(s.peers - 1) / double(s.peers) * double(n) * 4.0 * double(stepsPerPeer);
    nlohmann::json summary = {{"summary", true}};
    for (const auto &[name, loss] : finalLoss)
        summary[name + "_val_loss"] = loss;
    if (finalLoss.count("swarm")) {
        summary["compression"] = s.compress;
        summary["peer_data"] = s.peerData;
        summary["bytes_sent_per_peer"] = swarmBytes;
        summary["fp32_allreduce_every_step_bytes_per_peer"] = fp32Bytes;
        summary["communication_reduction"] = fp32Bytes / double(swarmBytes);
    }
    if (finalLoss.count("swarm") && finalLoss.count("single_large_batch"))
        summary["swarm_vs_large_batch"] = finalLoss["swarm"] / finalLoss["single_large_batch"] - 1.0;
    if (finalLoss.count("swarm") && finalLoss.count("single_more_steps"))
        summary["swarm_vs_more_steps"] = finalLoss["swarm"] / finalLoss["single_more_steps"] - 1.0;
    print(summary);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}
