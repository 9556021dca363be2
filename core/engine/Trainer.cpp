#include "Trainer.h"

#include "BitsPerByte.h"
#include "Checkpoint.h"
#include "Device.h"
#include "DeviceMeasure.h"
#include "Decoder.h"
#include "FileIo.h"
#include "Statistics.h"
#include "TextDataset.h"
#include "TrainingStep.h"
#include "kernels/ParallelFor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <thread>
#include <torch/csrc/autograd/profiler_legacy.h>

namespace swarmtrain {

namespace {

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

std::pair<torch::Tensor, torch::Tensor> batchTensors(const TextDataset &dataset, Split split, int batch, int block,
                                                     std::mt19937_64 &rng)
{
    torch::Tensor x = torch::empty({batch, block}, torch::kLong);
    torch::Tensor y = torch::empty({batch, block}, torch::kLong);
    dataset.sampleBatch(split, batch, block, rng, x.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>());
    return {x, y};
}

// Mean loss over evalIters batches of each split, with dropout off. A separate RNG seeded
// by the iteration keeps the training batches independent of how often we evaluate.
std::pair<double, double> evaluate(TrainingStep &step, const TextDataset &dataset, const TrainOptions &o, int blockSize,
                                   std::int64_t iter)
{
    torch::NoGradGuard noGrad;
    double means[2] = {0.0, 0.0};
    for (Split split : {Split::Train, Split::Val}) {
        std::mt19937_64 rng(o.seed * 1000003ull + std::uint64_t(iter) * 2 + (split == Split::Val));
        double sum = 0.0;
        for (int i = 0; i < o.evalIters; ++i) {
            auto [x, y] = batchTensors(dataset, split, o.batchSize, blockSize, rng);
            sum += DecoderImpl::loss(step.logits(x).to(torch::kFloat), y.to(step.device())).item<double>();
        }
        means[split == Split::Val] = sum / o.evalIters;
    }
    return {means[0], means[1]};
}

// The run's tokenizer: the checkpoint's when resuming, else the one --tokenizer names (a
// SentencePiece model from --tokenizer-model, or trained on the corpus's lines and kept beside
// the checkpoint as tokenizer.model).
Result<Tokenizer> makeTokenizer(const TrainOptions &o, const TextCorpus &corpus, const std::optional<LoadedCheckpoint> &checkpoint)
{
    if (checkpoint)
        return checkpoint->tokenizer;
    switch (o.tokenizer) {
    case TokenizerKind::Byte: return Tokenizer::byteLevel();
    case TokenizerKind::Char: return Tokenizer::buildCharacter(corpus.text);
    case TokenizerKind::SentencePiece: break;
    }
    if (!o.tokenizerModel.empty())
        return Tokenizer::loadSentencePiece(o.tokenizerModel.string());
    SentencePieceTraining training;
    training.vocabSize = o.vocabSize;
    training.seed = o.seed;
    std::size_t at = 0;
    Result<std::string> model = trainSentencePiece(training, [&](std::string &line) {
        if (at >= corpus.text.size())
            return false;
        const std::size_t end = std::min(corpus.text.find('\n', at), corpus.text.size());
        line.assign(corpus.text, at, end - at);
        at = end + 1;
        return true;
    });
    if (!model)
        return model.error();
    if (!o.outDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(o.outDir, ec);
        if (Result<void> saved = writeFileAtomically(o.outDir / "tokenizer.model", std::as_bytes(std::span(*model))); !saved)
            return makeError("cannot save the tokenizer: " + saved.error().message);
    }
    return Tokenizer::fromSentencePiece(std::move(model).value());
}

// Tokens per byte of each split's text, for bits per byte.
std::pair<double, double> tokensPerByte(const TextDataset &dataset, const Tokenizer &tokenizer)
{
    double ratios[2] = {0.0, 0.0};
    for (Split split : {Split::Train, Split::Val}) {
        const std::vector<std::int32_t> &tokens = dataset.tokens(split);
        const double bytes = double(tokenizer.decode(tokens).size());
        ratios[split == Split::Val] = bytes > 0 ? double(tokens.size()) / bytes : 0.0;
    }
    return {ratios[0], ratios[1]};
}

std::string rngToString(const std::mt19937_64 &rng)
{
    std::ostringstream out;
    out << rng;
    return out.str();
}

// Continues `o.prompt` by `o.tokens` tokens, sampled with temperature and top-k.
Result<std::string> generate(DecoderImpl &model, const Tokenizer &tokenizer, const SampleOptions &o)
{
    Result<std::vector<std::int32_t>> prompt = tokenizer.encode(o.prompt);
    if (!prompt)
        return makeError("the prompt cannot be encoded: " + prompt.error().message);
    std::vector<std::int32_t> tokens = std::move(prompt).value();
    if (tokens.empty())
        return makeError("the prompt is empty");

    torch::NoGradGuard noGrad;
    model.eval();
    const torch::Device device = model.parameters().front().device();
    auto generator = at::detail::createCPUGenerator(o.seed);
    const int block = model.config().blockSize;
    const std::size_t promptLength = tokens.size();
    for (int i = 0; i < o.tokens; ++i) {
        const std::size_t begin = tokens.size() > std::size_t(block) ? tokens.size() - std::size_t(block) : 0;
        std::vector<std::int64_t> context(tokens.begin() + std::ptrdiff_t(begin), tokens.end());
        const torch::Tensor input = torch::tensor(context, torch::kLong).unsqueeze(0).to(device);
        torch::Tensor logits = model.forward(input).select(1, -1).squeeze(0).to(torch::kCPU, torch::kFloat) / o.temperature;
        if (o.topK > 0 && o.topK < logits.size(0)) {
            const torch::Tensor kth = std::get<0>(logits.topk(o.topK)).select(0, -1);
            logits = logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
        }
        const torch::Tensor probabilities = torch::softmax(logits, -1);
        tokens.push_back(std::int32_t(torch::multinomial(probabilities, 1, false, generator).item<std::int64_t>()));
    }
    return tokenizer.decode(std::span(tokens).subspan(promptLength));
}

} // namespace

int torchCudaDeviceCount() { return torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0; }

int configureThreads(int requested)
{
    int threads = requested;
    if (threads <= 0) {
        cpu_set_t set;
        threads = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                             : int(std::max(1u, std::thread::hardware_concurrency()));
    }
    // BLAS gets every thread for the matrix products, where the time goes. LibTorch's own
    // OpenMP pool is kept to one thread: with both pools awake on few cores, OpenMP's
    // spinning workers steal the cores BLAS needs (measured 2x slower on 2 cores).
    kernels::setBlasThreads(threads);
    at::set_num_threads(1);
    kernels::setParallelThreads(threads);
    return threads;
}

std::string TrainReport::toJson() const
{
    nlohmann::json json = {
        {"iters", iters},
        {"train_loss", trainLoss},
        {"val_loss", valLoss},
        {"train_bpb", trainBitsPerByte},
        {"val_bpb", valBitsPerByte},
        {"family", family},
        {"tokenizer", tokenizer},
        {"vocab_size", vocabSize},
        {"ms_per_iter", msPerIter},
        {"tokens_per_s", tokensPerS},
        {"model_flops_per_s", modelFlopsPerS},
        {"params", params},
        {"peak_rss_mb", peakRssMb},
        {"threads", threads},
        {"device", device},
        {"dtype", dtype},
        {"swapped", swapped},
        {"swapped_bytes_per_iter", swappedBytesPerIter},
        {"matmul_flops_per_s", matmulFlopsPerS},
        {"mfu", mfu},
        {"skipped_steps", skippedSteps},
    };
    if (swapped)
        json["swap_plan"] = swapPlan;
    return json.dump();
}

Result<TrainReport> train(const TrainOptions &o, const std::function<void(const TrainProgress &)> &onProgress)
{
    TrainReport report;
    report.threads = configureThreads(o.threads);

    std::optional<LoadedCheckpoint> checkpoint;
    if (o.resume) {
        Result<LoadedCheckpoint> loaded = readCheckpoint(checkpointFile(o.outDir));
        if (!loaded)
            return makeError("cannot resume: " + loaded.error().message);
        checkpoint = std::move(loaded).value();
    }
    const std::filesystem::path dataPath = !o.data.empty() ? o.data : std::filesystem::path(checkpoint->state.dataPath);
    Result<TextCorpus> corpus = loadTextCorpus(dataPath);
    if (!corpus)
        return corpus.error();

    Result<Tokenizer> tokenizer = makeTokenizer(o, *corpus, checkpoint);
    if (!tokenizer)
        return makeError(dataPath.string() + ": " + tokenizer.error().message);
    Result<std::vector<std::int32_t>> tokens = tokenizer->encode(corpus->text);
    if (!tokens)
        return makeError(dataPath.string() + ": " + tokens.error().message);

    ModelConfig config = checkpoint ? checkpoint->config : o.model;
    if (!checkpoint) {
        if (Result<void> fitted = fitVocabulary(config, tokenizer->vocabSize()); !fitted)
            return fitted.error();
    }
    if (const std::string why = config.validate(); !why.empty())
        return makeError(why);
    Result<TextDataset> dataset = TextDataset::create(std::move(tokens).value(), config.blockSize);
    if (!dataset)
        return makeError(dataPath.string() + ": " + dataset.error().message);
    const auto [trainTokensPerByte, valTokensPerByte] = tokensPerByte(*dataset, *tokenizer);
    report.tokenizer = tokenizerKindName(tokenizer->kind());
    report.vocabSize = tokenizer->vocabSize();
    report.family = modelFamilyName(config.family);

    Result<DeviceChoice> choice = resolveDeviceAndDtype(o.device, o.dtype);
    if (!choice)
        return choice.error();
    const torch::Device device = choice->device;
    const ComputeDtype dtype = choice->dtype;

    torch::manual_seed(o.seed);
    Decoder model(config);
    std::mt19937_64 rng(o.seed);
    std::int64_t startIter = 0;
    if (checkpoint) {
        if (Result<void> r = restoreModel(*checkpoint, *model); !r)
            return r.error();
        std::istringstream(checkpoint->state.dataRngState) >> rng;
        startIter = checkpoint->state.iter;
    }
    StepOptions stepOptions;
    stepOptions.device = device;
    stepOptions.dtype = dtype;
    stepOptions.swap = o.swap;
    stepOptions.swapOptimizer = o.swapOptimizer;
    stepOptions.deviceMemoryBudget = o.deviceMemoryBudget;
    stepOptions.batchSize = o.batchSize;
    stepOptions.adamw = {o.beta1, o.beta2, 1e-8, o.weightDecay};
    stepOptions.gradClip = o.gradClip;
    Result<std::unique_ptr<TrainingStep>> created = TrainingStep::create(model, stepOptions);
    if (!created)
        return created.error();
    TrainingStep &step = **created;
    if (checkpoint) {
        if (Result<void> r = restoreOptimizer(*checkpoint, step.parameters(), step.optimizer()); !r)
            return r.error();
    }
    report.params = step.parameters().numel();
    report.device = device.str();
    report.dtype = computeDtypeName(dtype);
    report.swapped = step.swapped();
    if (const SwappingExecutor *executor = step.executor())
        report.swapPlan = executor->plan().why;
    // MFU's denominator: what a large matrix product reaches on this device in this dtype.
    const torch::ScalarType matmulType = dtype == ComputeDtype::BFloat16 ? torch::kBFloat16
                                         : dtype == ComputeDtype::Float16 ? torch::kHalf
                                                                           : torch::kFloat;
    report.matmulFlopsPerS = measureMatmulFlops(device, matmulType, benchMatmulSize(device));

    const auto save = [&](std::int64_t iter, double valLoss) -> Result<void> {
        if (o.outDir.empty())
            return {};
        const TrainingState state{iter, rngToString(rng), std::filesystem::absolute(dataPath).string(), valLoss};
        return saveCheckpoint(checkpointFile(o.outDir), *model, &step.optimizer(), *tokenizer, state);
    };

    std::optional<torch::autograd::profiler::RecordProfile> profiler;
    if (!o.profile.empty())
        profiler.emplace(o.profile.string());

    const double tokensPerIter = double(o.batchSize) * config.blockSize;
    std::vector<double> iterMs;
    std::int64_t swappedBytes = 0;
    TrainProgress progress;
    progress.maxIters = o.maxIters;
    model->train();
    double trainedSeconds = 0.0;
    for (std::int64_t iter = startIter;; ++iter) {
        progress.iter = iter;
        progress.evaluated = false;
        // --max-seconds ends the run at this step, after an evaluation as at --max-iters.
        const bool last = iter >= o.maxIters || (o.maxSeconds > 0 && trainedSeconds >= o.maxSeconds);
        if (iter % o.evalInterval == 0 || last) {
            std::tie(progress.trainLoss, progress.valLoss) = evaluate(step, *dataset, o, config.blockSize, iter);
            progress.valBitsPerByte = bitsPerByte(progress.valLoss, valTokensPerByte, 1.0);
            progress.evaluated = true;
            report.iters = iter;
            report.trainLoss = progress.trainLoss;
            report.valLoss = progress.valLoss;
            report.trainBitsPerByte = bitsPerByte(progress.trainLoss, trainTokensPerByte, 1.0);
            report.valBitsPerByte = progress.valBitsPerByte;
            if (Result<void> saved = save(iter, progress.valLoss); !saved)
                return makeError("cannot save checkpoint: " + saved.error().message);
            if (onProgress)
                onProgress(progress);
        }
        if (last)
            break;

        auto [x, y] = batchTensors(*dataset, Split::Train, o.batchSize, config.blockSize, rng);
        const std::int64_t bytesBefore = step.executor() ? step.executor()->traffic().total() : 0;
        const auto started = std::chrono::steady_clock::now();
        const double lr = o.schedule.at(iter);
        const double lossValue = step.run(x, y, lr);
        iterMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
        trainedSeconds += iterMs.back() / 1000.0;
        if (step.executor())
            swappedBytes = step.executor()->traffic().total() - bytesBefore;

        if (!std::isfinite(lossValue)) {
            return makeError("training diverged: the loss became " + std::to_string(lossValue) + " at iteration "
                             + std::to_string(iter) + " (try a lower --lr)");
        }
        progress.loss = lossValue;
        progress.lr = lr;
        progress.evaluated = false;
        if (onProgress && (iter % 10 == 0 || iter + 1 == o.maxIters)) {
            progress.msPerIter = median(iterMs);
            progress.tokensPerS = tokensPerIter / (progress.msPerIter / 1000.0);
            onProgress(progress);
        }
    }

    report.msPerIter = median(iterMs);
    report.tokensPerS = report.msPerIter > 0 ? tokensPerIter / (report.msPerIter / 1000.0) : 0.0;
    report.modelFlopsPerS = report.tokensPerS * config.flopsPerToken();
    report.mfu = report.matmulFlopsPerS > 0 ? report.modelFlopsPerS / report.matmulFlopsPerS : 0.0;
    report.swappedBytesPerIter = swappedBytes;
    report.skippedSteps = step.skippedSteps();
    report.peakRssMb = peakRssMb();
    if (o.sampleTokens > 0) {
        SampleOptions sampleOptions;
        sampleOptions.tokens = o.sampleTokens;
        sampleOptions.seed = o.seed;
        Result<std::string> text = generate(*model, *tokenizer, sampleOptions);
        if (!text)
            return text.error();
        report.sample = *text;
    }
    return report;
}

Result<std::string> sample(const SampleOptions &o)
{
    configureThreads(o.threads);
    Result<LoadedCheckpoint> checkpoint = readCheckpoint(checkpointFile(o.checkpointDir));
    if (!checkpoint)
        return checkpoint.error();
    Decoder model(checkpoint->config);
    if (Result<void> r = restoreModel(*checkpoint, *model); !r)
        return r.error();
    return generate(*model, checkpoint->tokenizer, o);
}

} // namespace swarmtrain
