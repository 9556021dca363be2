// Learning parity of pipeline-stage mode (issue 17): 2 stages x 2 peers (two trainers running
// stage 0, two peers serving stage 1) on loopback, against one machine training the same model
// on the same microbatches with the same optimizer, float32 and 8-bit on the wire. Prints JSON
// lines: the validation loss of each run every --eval-every steps, then a summary with the
// pipeline's final validation loss over one machine's. --only cross_checks instead measures what
// the trainers' cross-checks of stage peers' answers cost: the same 8-bit pipeline with none and at
// the default share, the seconds a step takes in each, and their ratio.
//   swarmtrain_pipeline_parity --data ../shared/data/tinyshakespeare.txt [--iters 300]
//   swarmtrain_pipeline_parity --data ../shared/data/tinyshakespeare.txt --only cross_checks --iters 100
#include "CliFlags.h"
#include "LocalPipeline.h"
#include "PipelineStage.h"
#include "TestApplication.h"
#include "TextDataset.h"
#include "Tokenizer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <QCoreApplication>

#include <chrono>
#include <iostream>
#include <random>

using namespace swarmtrain;

namespace {

struct Setup {
    ModelConfig model;
    int microbatchSize = 3; // 4 microbatches a step: nanoGPT's batch of 12
    int iters = 300;
    int evalEvery = 50;
    int evalBatches = 8;
    double lr = 1e-3;
    std::uint64_t seed = 1;
};

// The same microbatches for every run: step k's are drawn from (seed, k).
std::vector<Microbatch> microbatches(const TextDataset &data, const Setup &s, Split split, std::uint64_t draw, int count)
{
    std::mt19937_64 rng(s.seed * 1'000'003 + draw);
    std::vector<Microbatch> batches;
    const MicrobatchShape shape{s.microbatchSize, s.model.blockSize};
    std::vector<std::int64_t> x(shape.tokenCount()), y(shape.tokenCount());
    for (int i = 0; i < count; ++i) {
        data.sampleBatch(split, shape.batch, shape.tokens, rng, x.data(), y.data());
        batches.push_back({std::uint64_t(i + 1), 0, shape, {x.begin(), x.end()}, {y.begin(), y.end()}});
    }
    return batches;
}

void report(const std::string &run, int iter, double valLoss, double seconds)
{
    std::cout << nlohmann::json{{"bench", "pipeline_parity"}, {"run", run}, {"iter", iter}, {"val_loss", valLoss},
                                {"seconds", seconds}}.dump()
              << std::endl;
}

// One machine: the whole model as one stage, each step the mean gradient of the 4 microbatches.
Result<double> oneMachine(const TextDataset &data, const Setup &s, const std::vector<Microbatch> &eval)
{
    PipelineStageOptions options;
    options.seed = s.seed;
    Result<std::unique_ptr<PipelineStage>> created = PipelineStage::create(s.model, {0, s.model.nLayer + 1, 0.0}, options);
    if (!created)
        return created.error();
    PipelineStage &stage = **created;
    const auto start = std::chrono::steady_clock::now();
    const auto evaluate = [&]() -> Result<double> {
        double sum = 0;
        for (const Microbatch &b : eval) {
            Result<double> loss = stage.evaluate({b.shape, b.tokens, {}}, b.targets);
            if (!loss)
                return loss.error();
            sum += *loss / double(eval.size());
        }
        return sum;
    };
    double last = 0;
    for (int iter = 0; iter <= s.iters; ++iter) {
        if (iter % s.evalEvery == 0 || iter == s.iters) {
            Result<double> loss = evaluate();
            if (!loss)
                return loss.error();
            last = *loss;
            report("one_machine", iter, last, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        if (iter == s.iters)
            break;
        const std::vector<Microbatch> batches = microbatches(data, s, Split::Train, std::uint64_t(iter), 4);
        for (const Microbatch &b : batches) {
            const std::string key = std::to_string(b.id);
            if (Result<StageBackward> back = stage.backward(key, {b.shape, b.tokens, {}}, {}, b.targets); !back)
                return back.error();
            stage.confirm(key);
        }
        std::vector<float> mean = stage.gradientSum();
        for (float &v : mean)
            v /= float(batches.size());
        if (Result<void> stepped = stage.step(mean, s.lr, 1.0); !stepped)
            return stepped.error();
    }
    return last;
}

Result<double> pipeline(const TextDataset &data, const Setup &s, const std::vector<Microbatch> &eval, WirePrecision precision,
                        double crossCheckShare = 0.0, double *trainingSeconds = nullptr)
{
    test::LocalPipeline::Settings settings;
    settings.crossCheckShare = crossCheckShare;
    settings.config = s.model;
    settings.stages = 2;
    settings.trainers = 2;
    settings.peersPerStage = 2;
    settings.precision = precision;
    settings.seed = s.seed;
    settings.lr = s.lr;
    Result<std::unique_ptr<test::LocalPipeline>> created = test::LocalPipeline::create(settings);
    if (!created)
        return created.error();
    test::LocalPipeline &swarm = **created;
    const std::string run = "pipeline_" + wirePrecisionName(precision) + (crossCheckShare > 0 ? "_cross_checked" : "");
    const auto start = std::chrono::steady_clock::now();
    double last = 0, training = 0;
    for (int iter = 0; iter <= s.iters; ++iter) {
        if (iter % s.evalEvery == 0 || iter == s.iters) {
            Result<double> loss = swarm.evaluate(eval);
            if (!loss)
                return loss.error();
            last = *loss;
            report(run, iter, last, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        if (iter == s.iters)
            break;
        const std::vector<Microbatch> batches = microbatches(data, s, Split::Train, std::uint64_t(iter), 4);
        const auto stepStart = std::chrono::steady_clock::now();
        if (Result<double> step = swarm.step({{batches[0], batches[1]}, {batches[2], batches[3]}}); !step)
            return step.error();
        training += std::chrono::duration<double>(std::chrono::steady_clock::now() - stepStart).count();
    }
    if (trainingSeconds)
        *trainingSeconds = training;
    return last;
}

// The cross-checks' cost: the 8-bit pipeline without and with them, a step's seconds in each.
bool crossCheckCost(const TextDataset &data, const Setup &s, const std::vector<Microbatch> &eval)
{
    nlohmann::json summary{{"bench", "pipeline_cross_checks"}, {"summary", true}, {"iters", s.iters}};
    for (const double share : {0.0, PipelineDriverSettings{}.crossCheckShare}) {
        double seconds = 0;
        const Result<double> loss = pipeline(data, s, eval, WirePrecision::Int8, share, &seconds);
        if (!loss) {
            std::cerr << loss.error().message << '\n';
            return false;
        }
        const std::string name = share > 0 ? "cross_checked" : "unchecked";
        summary[name + "_share"] = share;
        summary[name + "_seconds_per_step"] = seconds / s.iters;
        summary[name + "_val_loss"] = *loss;
    }
    summary["step_time_ratio"] = summary["cross_checked_seconds_per_step"].get<double>()
                                 / summary["unchecked_seconds_per_step"].get<double>();
    std::cout << summary.dump() << std::endl;
    return true;
}

int runMain(int argc, char **argv)
{
    Setup s;
    s.model.nLayer = 4; // nanoGPT's shakespeare_char on a CPU
    s.model.nHead = 4;
    s.model.nEmbd = 128;
    s.model.blockSize = 64;
    std::string dataPath;
    std::string only = "all";
    CLI::App app("Pipeline-stage mode (2 stages x 2 peers on loopback) against one machine training the same model on "
                 "the same microbatches. Prints JSON lines.",
                 "swarmtrain_pipeline_parity");
    flags::configure(app);
    app.add_option("--data", dataPath, "training text")->type_name("FILE")->required()->check(flags::nonEmpty());
    app.add_option("--iters", s.iters, "optimizer steps")->transform(flags::wholeNumberIn(1, 1000000));
    app.add_option("--eval-every", s.evalEvery, "steps between validation losses")->transform(flags::wholeNumberIn(1, 1000000));
    app.add_option("--eval-batches", s.evalBatches, "validation microbatches")->transform(flags::wholeNumberIn(1, 10000));
    app.add_option("--lr", s.lr, "learning rate")->transform(flags::numberIn(0, 10));
    app.add_option("--seed", s.seed, "seed")->transform(flags::wholeNumberIn(0, 1LL << 62));
    app.add_option("--only", only, "run only one of them, or measure the cross-checks' cost")
        ->check(flags::oneOf({"all", "one_machine", "fp32", "int8", "cross_checks"}));
    CLI11_PARSE(app, argc, argv);

    test::application();
    Result<TextCorpus> corpus = loadTextCorpus(dataPath);
    if (!corpus) {
        std::cerr << corpus.error().message << '\n';
        return 1;
    }
    Result<Tokenizer> tokenizer = Tokenizer::buildCharacter(corpus->text);
    Result<std::vector<std::int32_t>> tokens = tokenizer ? tokenizer->encode(corpus->text) : Result<std::vector<std::int32_t>>(tokenizer.error());
    if (!tokens) {
        std::cerr << tokens.error().message << '\n';
        return 1;
    }
    s.model.vocabSize = tokenizer->vocabSize();
    Result<TextDataset> data = TextDataset::create(std::move(*tokens), s.model.blockSize);
    if (!data) {
        std::cerr << data.error().message << '\n';
        return 1;
    }
    const std::vector<Microbatch> eval = microbatches(*data, s, Split::Val, 1'000'000'007, s.evalBatches);
    if (only == "cross_checks")
        return crossCheckCost(*data, s, eval) ? 0 : 1;
    nlohmann::json summary{{"bench", "pipeline_parity"}, {"summary", true}, {"iters", s.iters}};
    std::optional<double> reference;
    const auto record = [&](const std::string &name, const Result<double> &loss) {
        if (!loss) {
            std::cerr << name << ": " << loss.error().message << '\n';
            return false;
        }
        summary[name] = *loss;
        if (reference)
            summary[name + "_over_one_machine"] = *loss / *reference;
        return true;
    };
    if (only == "all" || only == "one_machine") {
        const Result<double> loss = oneMachine(*data, s, eval);
        if (!record("one_machine", loss))
            return 1;
        reference = *loss;
    }
    for (const WirePrecision precision : {WirePrecision::Float32, WirePrecision::Int8}) {
        const std::string name = wirePrecisionName(precision);
        if (only != "all" && only != name)
            continue;
        if (!record(name, pipeline(*data, s, eval, precision)))
            return 1;
    }
    std::cout << summary.dump() << std::endl;
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}
