// Spot checks of full-model work: how close another peer's replay of a member's round comes to
// the update the member sent, and how far the cheats a spot check must catch stay, to choose
// UpdateAgreement's tolerance from. Prints one JSON line per comparison; figures only:
//   swarmtrain_spot_check_bench --data FILE [--peers 4] [--inner-steps 20] [--rounds 4] [model flags]
//                               [--seed N] [--threads 2]
// Each peer is a ReplicaTrainer on a contiguous part of the training text. Every round each
// trains H inner steps and sends its pseudo-gradient 8-bit quantized with error feedback (as
// ButterflyAllReduce::compressPieces does, over the whole vector rather than per owner's range);
// all apply the outer step with the plain mean of what was sent. In the last round member 0's
// sent update is compared (UpdateAgreement's compareUpdates) with a replay by a fresh trainer on
// the round's saved state, with its seed and tokens: on as many threads as the swarm ran, and on
// one thread. The attacks are compared with the same replay: all zeros, Gaussian noise of the
// same norm, member 0's sent update of the previous round, member 1's of this round, the sent
// update scaled by 2, and an honest run of only half the inner steps.
#include "CliFlags.h"
#include "OuterOptimizer.h"
#include "Quantization.h"
#include "ReplicaTrainer.h"
#include "SwarmState.h"
#include "TextDataset.h"
#include "Trainer.h"
#include "UpdateAgreement.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <optional>
#include <random>
#include <unistd.h>

using namespace swarmtrain;

namespace {

struct Setup {
    std::filesystem::path data;
    int peers = 4;
    std::int64_t innerSteps = 20;
    std::int64_t rounds = 4;
    int threads = 2;
    ModelConfig model;
    ReplicaOptions replica;
};

// Empty when --help was asked for (and printed).
Result<std::optional<Setup>> parse(int argc, char **argv)
{
    Setup s;
    s.model.nLayer = 4; // as bench/SwarmSimulation.cpp: nanoGPT's shakespeare_char
    s.model.nHead = 4;
    s.model.nEmbd = 128;
    s.model.blockSize = 64;
    s.replica.schedule = {1e-3, 1e-4, 100, 0};
    std::string data;

    CLI::App app("How close a replay of a member's round comes to the update it sent, against attacks. Prints JSON "
                 "lines.",
                 "swarmtrain_spot_check_bench");
    flags::configure(app);
    app.add_option("--data", data, "training text")->type_name("FILE")->required()->check(flags::nonEmpty());
    app.add_option("--peers", s.peers, "simulated peers")->transform(flags::wholeNumberIn(2, 16));
    app.add_option("--inner-steps", s.innerSteps, "local steps per round (H)")->transform(flags::wholeNumberIn(2, 10000));
    app.add_option("--rounds", s.rounds, "rounds; the last one is checked")->transform(flags::wholeNumberIn(2, 1000));
    app.add_option("--n-layer", s.model.nLayer, "transformer blocks")->transform(flags::wholeNumberIn(1, 96));
    app.add_option("--n-head", s.model.nHead, "attention heads")->transform(flags::wholeNumberIn(1, 96));
    app.add_option("--n-embd", s.model.nEmbd, "embedding width")->transform(flags::wholeNumberIn(1, 16384));
    app.add_option("--block-size", s.model.blockSize, "context length")->transform(flags::wholeNumberIn(2, 65536));
    app.add_option("--batch-size", s.replica.batchSize, "sequences per inner step")
        ->transform(flags::wholeNumberIn(1, 4096));
    app.add_option("--seed", s.replica.seed, "seed")->transform(flags::wholeNumberIn(0, 1LL << 62));
    app.add_option("--threads", s.threads, "CPU threads of the swarm and the first replay (the second runs on one)")
        ->transform(flags::wholeNumberIn(2, 1024));

    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << app.help();
        return std::optional<Setup>();
    }
    if (Result<void> parsed = flags::parse(app, args); !parsed)
        return parsed.error();
    s.data = data;
    s.replica.schedule.decayIters = s.innerSteps * s.rounds;
    s.replica.innerSteps = s.innerSteps;
    s.replica.device = "cpu";
    return std::optional<Setup>(std::move(s));
}

void print(const nlohmann::json &line)
{
    std::cout << line.dump() << std::endl;
}

struct Peer {
    std::unique_ptr<ReplicaTrainer> trainer;
    ReplicaOptions options;
    std::vector<std::int32_t> tokens;
    ErrorFeedback feedback;
    std::vector<float> sent, previousSent;
};

Result<std::unique_ptr<ReplicaTrainer>> trainerOn(const std::filesystem::path &stateFile, const ReplicaOptions &options,
                                                  const std::vector<std::int32_t> &tokens)
{
    Result<std::unique_ptr<ReplicaTrainer>> trainer = ReplicaTrainer::create(stateFile, options);
    if (!trainer)
        return trainer.error();
    if (Result<void> r = (*trainer)->setTrainingTokens(tokens); !r)
        return r.error();
    return trainer;
}

// What a checker computes for a member: a fresh trainer on the round's state, `steps` inner
// steps (all of them when 0), on `threads` threads.
Result<std::vector<float>> replay(const std::filesystem::path &stateFile, const Peer &member, int threads,
                                  std::int64_t steps = 0)
{
    configureThreads(threads);
    Result<std::unique_ptr<ReplicaTrainer>> trainer = trainerOn(stateFile, member.options, member.tokens);
    if (!trainer)
        return trainer.error();
    const auto enough = [&] { return steps > 0 && (*trainer)->innerStepsDone() >= steps; };
    if (Result<InnerReport> r = (*trainer)->trainInner(enough); !r)
        return r.error();
    return (*trainer)->pseudoGradient();
}

Result<void> compare(const std::string &name, std::span<const float> claimed, std::span<const float> recomputed)
{
    Result<UpdateComparison> c = compareUpdates(claimed, recomputed);
    if (!c)
        return c.error();
    print({{"case", name}, {"cosine", c->cosine}, {"relative_norm", c->relativeNorm}, {"agrees", agrees(*c)}});
    return {};
}

Result<void> run(const Setup &s)
{
    Result<TextCorpus> corpus = loadTextCorpus(s.data);
    if (!corpus)
        return corpus.error();
    Result<Tokenizer> tokenizer = Tokenizer::buildCharacter(corpus->text);
    if (!tokenizer)
        return tokenizer.error();
    Result<std::vector<std::int32_t>> tokens = tokenizer->encode(corpus->text);
    if (!tokens)
        return tokens.error();
    ModelConfig model = s.model;
    model.vocabSize = tokenizer->vocabSize();
    const std::size_t trainEnd = tokens->size() * 9 / 10;

    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const std::string stem = "swarmtrain-spot-check-" + std::to_string(::getpid());
    const std::filesystem::path initial = dir / (stem + "-initial.safetensors");
    const std::filesystem::path checked = dir / (stem + "-checked.safetensors");
    struct Cleanup {
        std::vector<std::filesystem::path> files;
        ~Cleanup()
        {
            for (const auto &file : files)
                std::filesystem::remove(file);
        }
    } cleanup{{initial, checked}};
    if (Result<void> r = writeInitialSwarmState(initial, model, *tokenizer, s.replica.seed); !r)
        return r;

    configureThreads(s.threads);
    const std::size_t n = std::size_t(model.parameterCount());
    std::vector<Peer> peers;
    const std::size_t part = trainEnd / std::size_t(s.peers);
    for (int p = 0; p < s.peers; ++p) {
        ReplicaOptions o = s.replica;
        o.seed = s.replica.seed * 1000 + std::uint64_t(p);
        std::vector<std::int32_t> shard(tokens->begin() + std::ptrdiff_t(part * std::size_t(p)),
                                        tokens->begin() + std::ptrdiff_t(part * std::size_t(p + 1)));
        Result<std::unique_ptr<ReplicaTrainer>> trainer = trainerOn(initial, o, shard);
        if (!trainer)
            return trainer.error();
        peers.push_back({std::move(trainer).value(), o, std::move(shard), ErrorFeedback(n), {}, {}});
    }
    print({{"config", model.toJson()}, {"peers", s.peers}, {"inner_steps", s.innerSteps}, {"rounds", s.rounds},
           {"batch_size", s.replica.batchSize}, {"params", n}, {"threads", s.threads}});

    std::vector<float> memberPseudoGradient;
    for (std::int64_t round = 0; round < s.rounds; ++round) {
        const bool last = round == s.rounds - 1;
        if (last) {
            if (Result<void> r = peers.front().trainer->saveGlobalState(checked); !r)
                return r;
        }
        std::vector<WeightedPiece> pieces;
        double loss = 0.0;
        for (Peer &peer : peers) {
            Result<InnerReport> inner = peer.trainer->trainInner();
            if (!inner)
                return inner.error();
            loss += inner->meanLoss / double(s.peers);
            const std::vector<float> pseudoGradient = peer.trainer->pseudoGradient();
            if (&peer == &peers.front())
                memberPseudoGradient = pseudoGradient;
            Result<Quantized> q = peer.feedback.compress(pseudoGradient);
            if (!q)
                return q.error();
            peer.previousSent = std::move(peer.sent);
            peer.sent = dequantize(*q);
            pieces.push_back({peer.sent, 1.0});
        }
        print({{"round", round}, {"train_loss", loss}});
        if (last)
            break;
        std::vector<float> average(n);
        if (Result<void> r = weightedAverage(pieces, average); !r)
            return r;
        for (Peer &peer : peers) {
            if (Result<void> r = peer.trainer->applyOuterStep(average); !r)
                return r;
        }
    }

    const Peer &member = peers.front();
    Result<std::vector<float>> honest = replay(checked, member, s.threads);
    if (!honest)
        return honest.error();
    Result<std::vector<float>> oneThread = replay(checked, member, 1);
    if (!oneThread)
        return oneThread.error();
    Result<std::vector<float>> halfDone = replay(checked, member, s.threads, s.innerSteps / 2);
    if (!halfDone)
        return halfDone.error();

    std::vector<float> zeros(n, 0.0f), noise(n), scaled(n);
    std::mt19937_64 rng(s.replica.seed);
    std::normal_distribution<double> normal;
    double noiseSq = 0.0, sentSq = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        noise[i] = float(normal(rng));
        noiseSq += double(noise[i]) * noise[i];
        sentSq += double(member.sent[i]) * member.sent[i];
        scaled[i] = 2.0f * member.sent[i];
    }
    const double toNorm = std::sqrt(sentSq / noiseSq);
    for (float &x : noise)
        x = float(x * toNorm);

    // The raw pseudo-gradient against the replay: the replay's own error (0 on the same threads).
    const std::vector<std::pair<std::string, std::span<const float>>> cases = {
        {"honest_unquantized_same_threads", memberPseudoGradient},
        {"honest_sent_same_threads", member.sent},
        {"attack_zero", zeros},
        {"attack_noise_same_norm", noise},
        {"attack_previous_round", member.previousSent},
        {"attack_copy_other_member", peers[1].sent},
        {"attack_scaled_x2", scaled},
        {"attack_half_inner_steps", *halfDone},
    };
    for (const auto &[name, claimed] : cases) {
        if (Result<void> r = compare(name, claimed, *honest); !r)
            return r;
    }
    // The same checks by a checker on one thread, whose sums run in another order.
    if (Result<void> r = compare("honest_unquantized_one_thread", memberPseudoGradient, *oneThread); !r)
        return r;
    if (Result<void> r = compare("honest_sent_one_thread", member.sent, *oneThread); !r)
        return r;
    if (Result<void> r = compare("attack_copy_other_member_one_thread", peers[1].sent, *oneThread); !r)
        return r;
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    Result<std::optional<Setup>> setup = parse(argc, argv);
    if (!setup) {
        std::cerr << "swarmtrain_spot_check_bench: error: " << setup.error().message << "\n";
        return 1;
    }
    if (!setup->has_value())
        return 0;
    if (Result<void> r = run(**setup); !r) {
        std::cerr << "swarmtrain_spot_check_bench: error: " << r.error().message << "\n";
        return 1;
    }
    return 0;
}
