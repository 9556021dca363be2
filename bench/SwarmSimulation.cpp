// Full-model swarm training (DiLoCo) simulated in one process, against one machine training
// the same model on the same total tokens. Prints JSON lines; figures only, never pass/fail:
//   swarmtrain_swarm_simulation --data FILE [--peers 4] [--inner-steps 50] [--rounds 40] [model flags]
//                               [--outer-lr X] [--outer-momentum X] [--adam-eps X] [--adam-beta2 X] [--seed N] [--compression on|off]
//                               [--peer-data contiguous|interleaved|all [--chunk-tokens N]]
//                               [--only swarm|single_large_batch|single_more_steps]
//                               [--aggregation centered-clip|mean]
//                               [--inner-state reset|keep|keep-second-moment|share-second-moment|
//                                              keep-embedding|keep-all-but-embedding|
//                                              keep-embedding-second-moment|keep-embedding-rows|
//                                              share-embedding-rows]
//                               [--moment-warmup K]
//                               [--peer-speeds 1,1,2,4 [--max-steps-ratio 4]]
// Each peer is a ReplicaTrainer on its own part of the training text (contiguous by default).
// Every round each peer trains H inner steps, its pseudo-gradient is 8-bit quantized with error
// feedback (what it would send), the token-weighted average of the decoded pieces is quantized
// again (what each shard's owner sends back) and every peer applies the same outer Nesterov step;
// each owner's range is aggregated on its own, with CenteredClip (as ButterflyAllReduce does) or
// the plain mean, equally weighted, and the time it takes is printed;
// the peers' parameter hashes are compared after every round. The bytes a peer would send in a
// butterfly all-reduce of those encodings are set against a float32 all-reduce after every inner
// step. Each round's inner optimizer starts afresh, as spot checks need (ReplicaTrainer.h);
// --inner-state keep carries its moments over from round to round, to measure what that costs
// (one machine's always do: its rounds are only where it is scored);
// keep-second-moment carries only the second (and the step count); keep-embedding carries only the
// token embedding's moments, keep-all-but-embedding all but those, keep-embedding-second-moment only
// the embedding's second moment, keep-embedding-rows that with one value a row (each row's mean),
// share-embedding-rows that value shared as share-second-moment shares; share-second-moment also
// replaces each peer's second moment by the peers' token-weighted mean after every round (what a
// swarm state that carried one would do); --moment-warmup K starts
// each of the swarm's rounds afresh with K steps at learning rate 0 that fill the moments.
//
// --peer-speeds gives each peer a speed (inner steps per unit of time, relative; one peer each)
// and runs, instead, issue 18's comparison on a virtual clock: "swarm_fixed_h", where every peer
// runs H steps and a round lasts as long as the slowest peer needs; "swarm_time_budget", where a
// round lasts the same time and each peer runs the steps that fit it (at most --max-steps-ratio
// x H), its pseudo-gradient weighted by its tokens (in the mean, or in CenteredClip's medians,
// steps and majority); and "single_budget_tokens", one machine at a peer's batch size running as
// many steps a round as the time-budgeted swarm's peers together; and "swarm_async", the
// asynchronous rounds (runAsyncSwarm). The inner learning-rate schedule counts the swarm's
// tokens in steps of one peer, as the coordinator's rounds move it (the round's steps over the
// swarm's peers; H a round with fixed H), and decays over as many as the run holds.
#include "BitsPerByte.h"
#include "CenteredClip.h"
#include "CliFlags.h"
#include "ModelFlags.h"
#include "OuterOptimizer.h"
#include "Quantization.h"
#include "ReplicaTrainer.h"
#include "StalenessWeight.h"
#include "SwarmState.h"
#include "TextDataset.h"
#include "Trainer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <unistd.h>

using namespace swarmtrain;

namespace {

struct Setup {
    std::filesystem::path data;
    int peers = 4;
    std::int64_t innerSteps = 50;
    std::int64_t rounds = 40;
    ModelConfig model;
    ReplicaOptions replica;
    int evalIters = 40;
    std::string only; // one run's name; empty runs all three
    bool compress = true; // off measures what the 8-bit encoding costs in loss
    // How the training text is split among the peers: "contiguous" parts, "interleaved" chunks
    // of chunkTokens dealt round-robin, or "all" of it for every peer.
    std::string peerData = "contiguous";
    std::int64_t chunkTokens = 4096;
    Aggregation aggregation = Aggregation::CenteredClip;
    std::vector<double> speeds; // --peer-speeds; empty: every peer alike, the three classic runs
    double maxStepsRatio = 4.0;
    std::string tokenizerModel; // a SentencePiece tokenizer.model; empty: characters
    bool shareSecondMoment = false; // RoundPlan::shareSecondMoment, for the swarm runs
    bool shareEmbeddingRowsOnly = false; // RoundPlan::shareEmbeddingRowsOnly
    std::string innerState = "reset"; // as --inner-state said it
};

// "1,1,2,4" -> {1, 1, 2, 4}: each positive.
Result<std::vector<double>> parseSpeeds(const std::string &text)
{
    std::vector<double> speeds;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        try {
            std::size_t used = 0;
            const std::string item = text.substr(at, comma - at);
            const double speed = std::stod(item, &used);
            if (used != item.size() || !(speed > 0.0) || !std::isfinite(speed))
                return makeError("--peer-speeds: each speed must be a positive number, not \"" + item + "\"");
            speeds.push_back(speed);
        } catch (const std::exception &) {
            return makeError("--peer-speeds: each speed must be a positive number");
        }
        at = comma + 1;
    }
    if (speeds.size() < 2 || speeds.size() > 64)
        return makeError("--peer-speeds: give 2 to 64 speeds, one a peer");
    return speeds;
}

// Empty when --help was asked for (and printed).
Result<std::optional<Setup>> parse(int argc, char **argv)
{
    Setup s;
    s.model.nLayer = 4; // nanoGPT's shakespeare_char, as the engine's acceptance runs
    s.model.nHead = 4;
    s.model.nEmbd = 128;
    s.model.blockSize = 64;
    s.replica.schedule = {1e-3, 1e-4, 100, 0};
    std::string data;
    int threads = 0;
    std::string compression = "on";
    std::string aggregation = "centered-clip";
    std::string speeds;
    ModelFlagText modelFlags;

    CLI::App app("Full-model swarm training (DiLoCo) simulated in one process, against one machine training the "
                 "same model on the same tokens. Prints JSON lines.",
                 "swarmtrain_swarm_simulation");
    flags::configure(app);
    app.add_option("--data", data, "training text")->type_name("FILE")->required()->check(flags::nonEmpty());
    app.add_option("--peers", s.peers, "simulated peers")->transform(flags::wholeNumberIn(1, 64));
    app.add_option("--inner-steps", s.innerSteps, "local steps per round (H)")
        ->transform(flags::wholeNumberIn(1, 100000));
    app.add_option("--rounds", s.rounds, "rounds")->transform(flags::wholeNumberIn(1, 100000));
    addModelFlags(app, s.model, modelFlags);
    app.add_option("--tokenizer-model", s.tokenizerModel, "a SentencePiece tokenizer.model (none: characters)")
        ->type_name("FILE");
    app.add_option("--batch-size", s.replica.batchSize, "sequences per inner step")
        ->transform(flags::wholeNumberIn(1, 4096));
    app.add_option("--lr", s.replica.schedule.maxLr, "peak inner learning rate")->transform(flags::numberIn(0, 10));
    app.add_option("--min-lr", s.replica.schedule.minLr, "final inner learning rate")
        ->transform(flags::numberIn(0, 10));
    app.add_option("--warmup-iters", s.replica.schedule.warmupIters, "inner warm-up steps")
        ->transform(flags::wholeNumberIn(0, 1000000));
    app.add_option("--adam-eps", s.replica.eps, "the inner AdamW's epsilon (every run)")
        ->transform(flags::numberIn(1e-12, 1));
    app.add_option("--adam-beta2", s.replica.beta2, "the inner AdamW's second-moment decay (every run)")
        ->transform(flags::numberIn(0, 0.9999));
    app.add_option("--outer-lr", s.replica.outerLr, "outer Nesterov learning rate")->transform(flags::numberIn(0, 10));
    app.add_option("--outer-momentum", s.replica.outerMomentum, "outer Nesterov momentum")
        ->transform(flags::numberIn(0, 0.999));
    app.add_option("--eval-iters", s.evalIters, "validation batches")->transform(flags::wholeNumberIn(1, 10000));
    app.add_option("--seed", s.replica.seed, "seed")->transform(flags::wholeNumberIn(0, 1LL << 62));
    app.add_option("--threads", threads, "CPU threads (0: the cores available)")
        ->transform(flags::wholeNumberIn(0, 1024));
    app.add_option("--only", s.only, "run only this one (all three when not given)")
        ->check(flags::oneOf({"swarm", "single_large_batch", "single_more_steps", "swarm_fixed_h", "swarm_time_budget",
                              "single_budget_tokens", "swarm_async"}));
    app.add_option("--compression", compression, "8-bit pseudo-gradients")->check(flags::oneOf({"on", "off"}));
    app.add_option("--peer-data", s.peerData, "how the text is split among the peers")
        ->check(flags::oneOf({"contiguous", "interleaved", "all"}));
    app.add_option("--chunk-tokens", s.chunkTokens, "tokens per chunk of --peer-data interleaved")
        ->transform(flags::wholeNumberIn(1, 1LL << 40));

    app.add_option("--aggregation", aggregation, "how each range owner combines the pieces")
        ->check(flags::oneOf({"centered-clip", "mean"}));
    app.add_option("--inner-state", s.innerState, "whether each round's inner optimizer starts afresh or runs on")
        ->check(flags::oneOf({"reset", "keep", "keep-second-moment", "share-second-moment", "keep-embedding",
                              "keep-all-but-embedding", "keep-embedding-second-moment", "keep-embedding-rows",
                              "share-embedding-rows"}));
    app.add_option("--moment-warmup", s.replica.momentWarmupSteps,
                   "the swarm's peers: steps at learning rate 0 filling the inner moments each round")
        ->transform(flags::wholeNumberIn(0, 100000));
    app.add_option("--peer-speeds", speeds, "each peer's relative speed, comma-separated: fixed H against time-budgeted rounds")
        ->type_name("LIST");
    app.add_option("--max-steps-ratio", s.maxStepsRatio, "time-budgeted rounds: a peer's steps at most this x H")
        ->transform(flags::numberIn(1, 1000));

    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return std::optional<Setup>();
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    if (Result<void> model = finishModelFlags(s.model, modelFlags); !model)
        return model.error();
    s.compress = compression == "on";
    s.aggregation = aggregation == "mean" ? Aggregation::Mean : Aggregation::CenteredClip;
    s.replica.keepInnerStateAcrossRounds = s.innerState != "reset";
    s.replica.resetFirstMomentEachRound = s.innerState == "keep-second-moment" || s.innerState == "share-second-moment";
    s.shareSecondMoment = s.innerState == "share-second-moment" || s.innerState == "share-embedding-rows";
    s.shareEmbeddingRowsOnly = s.innerState == "share-embedding-rows";
    using Kept = ReplicaOptions::KeptMoments;
    s.replica.keptMoments = s.innerState == "keep-embedding"                 ? Kept::TokenEmbedding
                            : s.innerState == "keep-all-but-embedding"       ? Kept::AllButTokenEmbedding
                            : s.innerState == "keep-embedding-second-moment" ? Kept::TokenEmbeddingSecondMoment
                            : s.innerState == "keep-embedding-rows"          ? Kept::TokenEmbeddingRows
                            : s.innerState == "share-embedding-rows"         ? Kept::TokenEmbeddingRows
                                                                           : Kept::All;
    if (!speeds.empty()) {
        Result<std::vector<double>> parsedSpeeds = parseSpeeds(speeds);
        if (!parsedSpeeds)
            return parsedSpeeds.error();
        s.speeds = std::move(*parsedSpeeds);
        s.peers = int(s.speeds.size());
        if (s.shareSecondMoment)
            return makeError("--inner-state share-second-moment runs without --peer-speeds");
    }
    s.data = data;
    configureThreads(threads);
    return std::optional<Setup>(std::move(s));
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

// What the round's owners return: each of `peers` equal ranges aggregated on its own, as the
// butterfly all-reduce does.
Result<void> aggregate(const std::vector<std::vector<float>> &pieces, const std::vector<double> &weights,
                       Aggregation aggregation, std::vector<float> &out)
{
    const std::size_t n = out.size(), owners = pieces.size();
    for (std::size_t o = 0; o < owners; ++o) {
        const std::size_t begin = n * o / owners, end = n * (o + 1) / owners;
        std::vector<std::span<const float>> ranges;
        for (const auto &piece : pieces)
            ranges.emplace_back(piece.data() + begin, end - begin);
        const std::span<float> target(out.data() + begin, end - begin);
        if (aggregation == Aggregation::CenteredClip) {
            if (Result<CenteredClipReport> r = centeredClip(ranges, target, {}, weights); !r)
                return r.error();
            continue;
        }
        std::vector<WeightedPiece> weighted;
        for (std::size_t p = 0; p < ranges.size(); ++p)
            weighted.push_back({ranges[p], weights[p]});
        if (Result<void> r = weightedAverage(weighted, target); !r)
            return r;
    }
    return {};
}

// Each replica's inner steps a round (empty: its options' H), and the time a round takes on the
// virtual clock of --peer-speeds (0: not timed).
struct RoundPlan {
    std::vector<std::int64_t> steps;
    double roundTime = 0.0;
    std::vector<double> speeds; // asynchronous rounds: each peer's speed on the virtual clock
    // After each round every peer's inner second moment becomes the token-weighted mean of the
    // peers' (--inner-state share-second-moment): what a swarm state carrying it would do.
    bool shareSecondMoment = false;
    // With it, only each token embedding row's mean (--inner-state share-embedding-rows): one
    // value a token, the rest of the second moment left as the round's start made it (zero).
    bool shareEmbeddingRowsOnly = false;
};

// The token-weighted mean of the replicas' inner second moments, set as each one's; with
// `embeddingRowsOnly`, each token embedding row's mean of it, and zero elsewhere.
Result<void> shareSecondMoments(std::vector<std::unique_ptr<ReplicaTrainer>> &replicas,
                                const std::vector<std::vector<float>> &secondMoments, const std::vector<double> &weights,
                                bool embeddingRowsOnly)
{
    std::vector<float> mean(secondMoments.front().size(), 0.0f);
    double total = 0.0;
    for (double w : weights)
        total += w;
    for (std::size_t p = 0; p < secondMoments.size(); ++p) {
        const auto share = float(weights[p] / total);
        for (std::size_t i = 0; i < mean.size(); ++i)
            mean[i] += share * secondMoments[p][i];
    }
    if (embeddingRowsOnly) { // the token embedding comes first (ReplicaOptions::keptMoments)
        const std::size_t rows = std::size_t(replicas.front()->config().vocabSize);
        const std::size_t width = std::size_t(replicas.front()->config().nEmbd);
        for (std::size_t row = 0; row < rows; ++row) {
            const auto first = mean.begin() + std::ptrdiff_t(row * width);
            const float rowMean = std::accumulate(first, first + std::ptrdiff_t(width), 0.0f) / float(width);
            std::fill(first, first + std::ptrdiff_t(width), rowMean);
        }
        std::fill(mean.begin() + std::ptrdiff_t(rows * width), mean.end(), 0.0f);
    }
    for (auto &replica : replicas) {
        if (Result<void> r = replica->setInnerSecondMoment(mean); !r)
            return r;
    }
    return {};
}

// Trains `replicas` for `rounds` rounds; returns the final validation loss of the global model.
// Pieces are weighted by the tokens behind them (equal when every replica runs H steps).
Result<double> runSwarm(const std::string &name, std::vector<std::unique_ptr<ReplicaTrainer>> &replicas,
                        std::int64_t rounds, const std::vector<std::int32_t> &val, int evalIters, bool compress,
                        Aggregation aggregation, const RoundPlan &plan = {})
{
    const std::size_t n = std::size_t(replicas.front()->parameterCount());
    const std::size_t peers = replicas.size();
    std::vector<ErrorFeedback> feedback;
    for (std::size_t p = 0; p < peers; ++p)
        feedback.emplace_back(n);
    std::int64_t bytesSentPerPeer = 0, tokens = 0;
    double valLoss = 0.0, aggregationSeconds = 0.0;
    const auto started = std::chrono::steady_clock::now();
    for (std::int64_t round = 0; round < rounds; ++round) {
        std::vector<std::vector<float>> pieces(peers), secondMoments(plan.shareSecondMoment ? peers : 0);
        std::vector<double> weights(peers, 1.0);
        double trainLoss = 0.0;
        for (std::size_t p = 0; p < peers; ++p) {
            ReplicaTrainer &replica = *replicas[p];
            const std::int64_t steps = plan.steps.empty() ? -1 : plan.steps[p];
            Result<InnerReport> inner = replica.trainInner([&] { return steps >= 0 && replica.innerStepsDone() >= steps; });
            if (!inner)
                return inner.error();
            trainLoss += inner->meanLoss / double(peers);
            tokens += inner->tokens;
            weights[p] = double(inner->tokens);
            pieces[p] = replicas[p]->pseudoGradient();
            if (plan.shareSecondMoment)
                secondMoments[p] = replica.innerSecondMoment();
            if (compress) {
                Result<Quantized> q = feedback[p].compress(pieces[p]);
                if (!q)
                    return q.error();
                pieces[p] = dequantize(*q);
            }
        }
        std::vector<float> average(n);
        const auto aggregationStarted = std::chrono::steady_clock::now();
        if (Result<void> r = aggregate(pieces, weights, aggregation, average); !r)
            return r.error();
        aggregationSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - aggregationStarted).count();
        if (compress) {
            Result<Quantized> q = quantize(average);
            if (!q)
                return q.error();
            average = dequantize(*q);
        }
        bytesSentPerPeer += bytesSentPerRound(n, peers, compress);
        // The inner schedule counts the swarm's tokens in steps of one peer, as the coordinator's
        // rounds do (H a round with fixed H).
        std::int64_t roundSteps = 0;
        for (std::size_t p = 0; p < peers; ++p)
            roundSteps += plan.steps.empty() ? replicas[p]->innerStepsDone() : plan.steps[p];
        const std::int64_t advance = std::max<std::int64_t>(1, (roundSteps + std::int64_t(peers) / 2) / std::int64_t(peers));
        for (auto &replica : replicas) {
            if (Result<void> r = replica->applyOuterStep(average, advance); !r)
                return r.error();
        }
        if (plan.shareSecondMoment) {
            if (Result<void> r = shareSecondMoments(replicas, secondMoments, weights, plan.shareEmbeddingRowsOnly); !r)
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
               {"aggregation_seconds", aggregationSeconds},
               {"tokens", tokens},
               {"virtual_time", plan.roundTime * double(round + 1)},
               {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}});
        if (!agree)
            return makeError("the replicas' parameters differ after round " + std::to_string(round + 1));
    }
    print({{"run", name}, {"bytes_sent_per_peer", bytesSentPerPeer}, {"aggregation_seconds_total", aggregationSeconds},
           {"aggregation_seconds_per_round", aggregationSeconds / double(rounds)}});
    return valLoss;
}

// Asynchronous rounds (--rounds async) on the virtual clock, for as long as `rounds` rounds of
// the time-budgeted swarm: each peer trains its budget's steps from the global state it last
// pulled and is ready steps / speed later; the peers ready within a fortieth of the budget of the
// first form a round (as the coordinator's window), whose owners weigh each piece by its tokens
// x 1/sqrt(1 + staleness) and scale the result by the members' share of the swarm's work in a
// budget; `global` applies the outer step and the members pull the new state. The inner schedule
// moves by the members' steps over the swarm's peers, as the coordinator moves it.
Result<double> runAsyncSwarm(const std::string &name, std::vector<std::unique_ptr<ReplicaTrainer>> &replicas,
                             ReplicaTrainer &global, const std::filesystem::path &scratch, std::int64_t rounds,
                             const std::vector<std::int32_t> &val, int evalIters, bool compress, Aggregation aggregation,
                             const RoundPlan &plan)
{
    const std::size_t n = std::size_t(global.parameterCount()), peers = replicas.size();
    std::vector<ErrorFeedback> feedback;
    for (std::size_t p = 0; p < peers; ++p)
        feedback.emplace_back(n);
    std::vector<double> readyAt(peers);
    std::vector<std::int64_t> base(peers, global.round());
    for (std::size_t p = 0; p < peers; ++p)
        readyAt[p] = double(plan.steps[p]) / plan.speeds[p];
    const double endTime = plan.roundTime * double(rounds), window = plan.roundTime / 40.0;
    std::int64_t tokens = 0, outerSteps = 0;
    double valLoss = 0.0, stalenessSum = 0.0;
    std::size_t memberCount = 0;
    for (;;) {
        const double first = *std::min_element(readyAt.begin(), readyAt.end());
        if (first > endTime)
            break;
        const double last = *std::max_element(readyAt.begin(), readyAt.end());
        const double start = std::min(first + window, last);
        std::vector<std::size_t> members;
        for (std::size_t p = 0; p < peers; ++p) {
            if (readyAt[p] <= start)
                members.push_back(p);
        }
        std::vector<std::vector<float>> pieces;
        std::vector<double> weights;
        // The members' share of the swarm's work in a budget: their steps over everyone's.
        std::int64_t memberSteps = 0, allSteps = 0;
        for (std::size_t p = 0; p < peers; ++p)
            allSteps += plan.steps[p];
        for (const std::size_t p : members)
            memberSteps += plan.steps[p];
        const double share = double(memberSteps) / double(allSteps);
        double steps = 0.0, weighted = 0.0, trainLoss = 0.0;
        for (const std::size_t p : members) {
            ReplicaTrainer &replica = *replicas[p];
            Result<InnerReport> inner = replica.trainInner([&] { return replica.innerStepsDone() >= plan.steps[p]; });
            if (!inner)
                return inner.error();
            tokens += inner->tokens;
            trainLoss += inner->meanLoss / double(members.size());
            std::vector<float> piece = replica.pseudoGradient();
            if (compress) {
                Result<Quantized> q = feedback[p].compress(piece);
                if (!q)
                    return q.error();
                piece = dequantize(*q);
            }
            const std::int64_t staleness = global.round() - base[p];
            stalenessSum += double(staleness);
            ++memberCount;
            pieces.push_back(std::move(piece));
            weights.push_back(double(inner->tokens) * stalenessWeight(staleness));
            steps += double(inner->tokens);
            weighted += weights.back();
        }
        std::vector<float> average(n);
        if (Result<void> r = aggregate(pieces, weights, aggregation, average); !r)
            return r.error();
        for (float &x : average)
            x = float(double(x) * share * weighted / steps);
        if (compress) {
            Result<Quantized> q = quantize(average);
            if (!q)
                return q.error();
            average = dequantize(*q);
        }
        const std::int64_t advance =
            std::max<std::int64_t>(1, (memberSteps + std::int64_t(peers) / 2) / std::int64_t(peers));
        if (Result<void> r = global.applyOuterStep(average, advance); !r)
            return r.error();
        ++outerSteps;
        if (Result<void> r = global.saveGlobalState(scratch); !r)
            return r.error();
        for (const std::size_t p : members) {
            if (Result<void> r = replicas[p]->loadGlobalState(scratch); !r)
                return r.error();
            base[p] = global.round();
            readyAt[p] = start + double(plan.steps[p]) / plan.speeds[p];
        }
        Result<double> loss = global.globalLoss(val, evalIters, 1234);
        if (!loss)
            return loss.error();
        valLoss = *loss;
        print({{"run", name}, {"round", outerSteps}, {"members", members.size()}, {"share", share},
               {"train_loss", trainLoss}, {"val_loss", valLoss}, {"tokens", tokens}, {"virtual_time", start}});
    }
    print({{"run", name}, {"outer_steps", outerSteps}, {"tokens", tokens}, {"virtual_time", endTime},
           {"mean_staleness", memberCount > 0 ? stalenessSum / double(memberCount) : 0.0},
           {"mean_members", outerSteps > 0 ? double(memberCount) / double(outerSteps) : 0.0}});
    return valLoss;
}

int runMain(int argc, char **argv)
{
    Result<std::optional<Setup>> setup = parse(argc, argv);
    if (!setup) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << setup.error().message << "\n";
        return 1;
    }
    if (!setup->has_value())
        return 0;
    Setup &s = **setup;
    Result<TextCorpus> corpus = loadTextCorpus(s.data);
    if (!corpus) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << corpus.error().message << "\n";
        return 1;
    }
    Result<Tokenizer> tokenizer = s.tokenizerModel.empty() ? Tokenizer::buildCharacter(corpus->text)
                                                           : Tokenizer::loadSentencePiece(s.tokenizerModel);
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
    // Bits per byte compare runs of any tokenizer: tokens per byte of the validation text.
    const double valTokensPerByte = double(val.size()) / double(tokenizer->decode(val).size());

    const std::filesystem::path stateFile =
        std::filesystem::temp_directory_path() / ("swarmtrain-simulation-" + std::to_string(::getpid()) + ".safetensors");
    if (Result<void> r = writeInitialSwarmState(stateFile, s.model, *tokenizer, s.replica.seed); !r) {
        std::cerr << "swarmtrain_swarm_simulation: error: " << r.error().message << "\n";
        return 1;
    }
    const std::size_t n = std::size_t(s.model.parameterCount());
    const std::int64_t stepsPerPeer = s.innerSteps * s.rounds;
    print({{"config", s.model.toJson()}, {"tokenizer", tokenizerKindName(tokenizer->kind())}, {"vocab_size", tokenizer->vocabSize()},
           {"val_tokens_per_byte", valTokensPerByte}, {"peers", s.peers}, {"inner_steps", s.innerSteps}, {"rounds", s.rounds},
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
        RoundPlan plan = {};
        std::int64_t schedulePerRound = 0; // ReplicaOptions::scheduleStepsPerRound
    };
    std::vector<Run> runs = {
        {"swarm", s.peers, s.replica.batchSize, s.innerSteps, s.replica.outerLr, s.replica.outerMomentum,
         s.compress},
        {"single_large_batch", 1, s.replica.batchSize * s.peers, s.innerSteps, 1.0, 0.0, false},
        {"single_more_steps", 1, s.replica.batchSize, s.innerSteps * s.peers, 1.0, 0.0, false},
    };
    // Issue 18: peers of unequal speeds, on a virtual clock where a peer of speed v runs v inner
    // steps a unit of time. A round of fixed H lasts H / (the slowest speed); a time-budgeted
    // round lasts as long, and each peer runs what fits.
    std::vector<std::int64_t> budgetSteps;
    if (!s.speeds.empty()) {
        const double slowest = *std::min_element(s.speeds.begin(), s.speeds.end());
        const double roundTime = double(s.innerSteps) / slowest;
        const auto cap = std::int64_t(s.maxStepsRatio * double(s.innerSteps));
        std::int64_t total = 0;
        for (const double speed : s.speeds) {
            budgetSteps.push_back(std::clamp(std::int64_t(std::floor(roundTime * speed + 1e-9)), std::int64_t(1), cap));
            total += budgetSteps.back();
        }
        const std::int64_t most = *std::max_element(budgetSteps.begin(), budgetSteps.end());
        runs = {
            {"swarm_fixed_h", s.peers, s.replica.batchSize, s.innerSteps, s.replica.outerLr, s.replica.outerMomentum,
             s.compress, {{}, roundTime}},
            {"swarm_time_budget", s.peers, s.replica.batchSize, most, s.replica.outerLr, s.replica.outerMomentum,
             s.compress, {budgetSteps, roundTime}, total / s.peers},
            {"single_budget_tokens", 1, s.replica.batchSize, total, 1.0, 0.0, false},
            {"swarm_async", s.peers, s.replica.batchSize, most, s.replica.outerLr, s.replica.outerMomentum, s.compress,
             {budgetSteps, roundTime, s.speeds}, total / s.peers},
        };
        nlohmann::json utilisation = nlohmann::json::object();
        std::vector<double> fixedUse, budgetUse;
        for (std::size_t p = 0; p < s.speeds.size(); ++p) {
            fixedUse.push_back(double(s.innerSteps) / s.speeds[p] / roundTime);
            budgetUse.push_back(double(budgetSteps[p]) / s.speeds[p] / roundTime);
        }
        print({{"speeds", s.speeds}, {"round_time", roundTime}, {"fixed_h_steps", s.innerSteps},
               {"time_budget_steps", budgetSteps}, {"utilisation_fixed_h", fixedUse},
               {"utilisation_time_budget", budgetUse},
               {"tokens_per_time_budget_over_fixed_h", double(total) / double(s.innerSteps * s.peers)},
               {"weighting", "tokens"}});
    }
    for (Run &run : runs) {
        run.plan.shareSecondMoment = s.shareSecondMoment && run.peers > 1;
        run.plan.shareEmbeddingRowsOnly = run.plan.shareSecondMoment && s.shareEmbeddingRowsOnly;
    }
    const auto replicasOf = [&](const Run &run) -> Result<std::vector<std::unique_ptr<ReplicaTrainer>>> {
        std::vector<std::unique_ptr<ReplicaTrainer>> replicas;
        for (int p = 0; p < run.peers; ++p) {
            ReplicaOptions o = s.replica;
            o.batchSize = run.batch;
            o.innerSteps = run.inner;
            o.scheduleStepsPerRound = run.schedulePerRound;
            o.schedule.decayIters = (run.schedulePerRound > 0 ? run.schedulePerRound : run.inner) * s.rounds;
            o.outerLr = run.outerLr;
            o.outerMomentum = run.momentum;
            if (run.peers == 1) { // one machine's moments run on, whatever --inner-state says
                o.keepInnerStateAcrossRounds = true;
                o.keptMoments = ReplicaOptions::KeptMoments::All;
                o.momentWarmupSteps = 0;
                o.resetFirstMomentEachRound = false;
            }
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
        Result<double> loss = makeError("no run");
        if (run.plan.speeds.empty()) {
            loss = runSwarm(run.name, *replicas, s.rounds, val, evalIters, run.compress, s.aggregation, run.plan);
        } else {
            // The asynchronous swarm's global state: a replica that never trains.
            ReplicaOptions o = s.replica;
            o.innerSteps = run.inner;
            o.scheduleStepsPerRound = run.schedulePerRound;
            o.outerLr = run.outerLr;
            o.outerMomentum = run.momentum;
            o.device = "cpu";
            Result<std::unique_ptr<ReplicaTrainer>> global = ReplicaTrainer::create(stateFile, o);
            loss = global ? runAsyncSwarm(run.name, *replicas, **global, stateFile.string() + ".async", s.rounds, val,
                                          evalIters, run.compress, s.aggregation, run.plan)
                          : Result<double>(global.error());
            std::filesystem::remove(stateFile.string() + ".async");
        }
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
    for (const auto &[name, loss] : finalLoss) {
        summary[name + "_val_loss"] = loss;
        summary[name + "_val_bpb"] = bitsPerByte(loss, valTokensPerByte, 1.0);
    }
    if (finalLoss.count("swarm") || !s.speeds.empty()) {
        summary["compression"] = s.compress;
        summary["aggregation"] = s.aggregation == Aggregation::Mean ? "mean" : "centered-clip";
        summary["peer_data"] = s.peerData;
        summary["inner_state"] = s.innerState;
        summary["moment_warmup"] = s.replica.momentWarmupSteps;
        summary["bytes_sent_per_peer"] = swarmBytes;
        summary["fp32_allreduce_every_step_bytes_per_peer"] = fp32Bytes;
        summary["communication_reduction"] = fp32Bytes / double(swarmBytes);
    }
    if (finalLoss.count("swarm") && finalLoss.count("single_large_batch"))
        summary["swarm_vs_large_batch"] = finalLoss["swarm"] / finalLoss["single_large_batch"] - 1.0;
    if (finalLoss.count("swarm") && finalLoss.count("single_more_steps"))
        summary["swarm_vs_more_steps"] = finalLoss["swarm"] / finalLoss["single_more_steps"] - 1.0;
    if (finalLoss.count("swarm_time_budget") && finalLoss.count("swarm_fixed_h"))
        summary["time_budget_vs_fixed_h_at_equal_time"] = finalLoss["swarm_time_budget"] / finalLoss["swarm_fixed_h"] - 1.0;
    if (finalLoss.count("swarm_async") && finalLoss.count("swarm_fixed_h"))
        summary["async_vs_fixed_h_at_equal_time"] = finalLoss["swarm_async"] / finalLoss["swarm_fixed_h"] - 1.0;
    if (finalLoss.count("swarm_async") && finalLoss.count("swarm_time_budget"))
        summary["async_vs_time_budget_at_equal_time"] = finalLoss["swarm_async"] / finalLoss["swarm_time_budget"] - 1.0;
    if (finalLoss.count("swarm_async") && finalLoss.count("single_budget_tokens"))
        summary["async_vs_one_machine_at_equal_tokens"] = finalLoss["swarm_async"] / finalLoss["single_budget_tokens"] - 1.0;
    if (finalLoss.count("swarm_time_budget") && finalLoss.count("single_budget_tokens"))
        summary["time_budget_vs_one_machine_at_equal_tokens"] =
            finalLoss["swarm_time_budget"] / finalLoss["single_budget_tokens"] - 1.0;
    print(summary);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}
