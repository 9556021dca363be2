#include "Checkpoint.h"

#include "FileIo.h"

#include <charconv>
#include <cstring>

namespace swarmtrain {

namespace {

constexpr const char *kFormat = "swarmtrain-checkpoint-1";

std::span<const std::byte> bytesOf(const torch::Tensor &contiguous)
{
    return {static_cast<const std::byte *>(contiguous.data_ptr()), contiguous.nbytes()};
}

void addFloatTensor(TensorContainerWriter &writer, const std::string &name, const torch::Tensor &tensor)
{
    const torch::Tensor cpu = tensor.detach().to(torch::kCPU, torch::kFloat).contiguous();
    writer.addTensor(name, DType::F32, cpu.sizes().vec(), bytesOf(cpu));
}

Result<torch::Tensor> floatTensor(const TensorContainer &container, const std::string &name,
                                  torch::IntArrayRef expectedShape)
{
    const TensorEntry *entry = container.find(name);
    if (!entry)
        return makeError("checkpoint lacks tensor '" + name + "'");
    if (entry->dtype != DType::F32 || torch::IntArrayRef(entry->shape) != expectedShape)
        return makeError("checkpoint tensor '" + name + "' has the wrong dtype or shape");
    torch::Tensor tensor = torch::empty(expectedShape, torch::kFloat);
    std::memcpy(tensor.data_ptr(), entry->bytes.data(), entry->bytes.size());
    if (!torch::isfinite(tensor).all().item<bool>())
        return makeError("checkpoint tensor '" + name + "' holds NaN or infinite values");
    return tensor;
}

} // namespace

Result<Decoder> restoredModel(const LoadedCheckpoint &checkpoint, const std::filesystem::path &file)
{
    Decoder model(nullptr);
    try {
        model = Decoder(checkpoint.config);
    } catch (const c10::Error &e) {
        return makeError(file.string() + ": cannot build its model: " + e.what_without_backtrace());
    }
    if (Result<void> restored = restoreModel(checkpoint, *model); !restored)
        return makeError(file.string() + ": " + restored.error().message);
    return model;
}

Result<LoadedSwarmState> loadSwarmState(const std::filesystem::path &file, const ModelConfig *expected)
{
    Result<LoadedCheckpoint> checkpoint = readCheckpoint(file);
    if (!checkpoint)
        return checkpoint.error();
    if (expected && checkpoint->config.toJson() != expected->toJson())
        return makeError(file.string() + ": the model config " + checkpoint->config.toJson() + " is not the swarm's "
                         + expected->toJson());
    LoadedSwarmState state{std::move(checkpoint).value(), Decoder(nullptr), {}};
    Result<Decoder> model = restoredModel(state.checkpoint, file);
    if (!model)
        return model.error();
    state.model = std::move(model).value();
    Result<OuterState> outer = readOuterState(state.checkpoint, state.checkpoint.config.parameterCount());
    if (!outer)
        return makeError(file.string() + ": " + outer.error().message);
    state.outer = std::move(outer).value();
    return state;
}

std::filesystem::path checkpointFile(const std::filesystem::path &dir) { return dir / "checkpoint.safetensors"; }

Result<void> saveCheckpoint(const std::filesystem::path &file, DecoderImpl &model, AdamW *optimizer,
                            const Tokenizer &tokenizer, const TrainingState &state, const OuterState *outer)
{
    TensorContainerWriter writer;
    writer.setMetadata("format", kFormat);
    writer.setMetadata("model_config", model.config().toJson());
    writer.setMetadata("tokenizer", tokenizerKindName(tokenizer.kind()));
    writer.setMetadata("iter", std::to_string(state.iter));
    writer.setMetadata("data_rng", state.dataRngState);
    writer.setMetadata("data_path", state.dataPath);
    writer.setMetadata("val_loss", std::to_string(state.valLoss));

    for (const auto &[name, parameter] : model.namedParameters())
        addFloatTensor(writer, name, parameter);
    if (optimizer) {
        writer.setMetadata("optimizer_step", std::to_string(optimizer->stepCount()));
        addFloatTensor(writer, "optimizer.exp_avg", optimizer->expAvg());
        addFloatTensor(writer, "optimizer.exp_avg_sq", optimizer->expAvgSq());
    }
    if (outer) {
        writer.setMetadata("round", std::to_string(outer->round));
        if (outer->scheduleStep >= 0)
            writer.setMetadata("schedule_step", std::to_string(outer->scheduleStep));
        addFloatTensor(writer, "outer.momentum", outer->momentum);
    }
    if (tokenizer.kind() == TokenizerKind::Char) {
        const std::vector<char32_t> &vocab = tokenizer.vocabulary();
        std::vector<std::int32_t> codePoints(vocab.begin(), vocab.end());
        writer.addTensor("tokenizer.vocab", DType::I32, {std::int64_t(codePoints.size())},
                         std::as_bytes(std::span(codePoints)));
    }
    if (tokenizer.kind() == TokenizerKind::SentencePiece) {
        // The tokenizer.model file's bytes, and their hash for a reader to check.
        const std::string &model = tokenizer.modelBytes();
        writer.setMetadata("tokenizer_sha256", tokenizer.sha256());
        writer.addTensor("tokenizer.model", DType::U8, {std::int64_t(model.size())}, std::as_bytes(std::span(model)));
    }
    const torch::Tensor rng = at::detail::getDefaultCPUGenerator().get_state();
    writer.addTensor("rng.torch_cpu", DType::U8, {rng.numel()}, bytesOf(rng.contiguous()));

    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    const std::vector<std::byte> bytes = writer.finish();
    return writeFileAtomically(file, bytes);
}

Result<LoadedCheckpoint> readCheckpoint(const std::filesystem::path &file)
{
    Result<TensorContainer> container = readTensorContainer(file);
    if (!container)
        return container.error();
    if (container->meta("format") != kFormat)
        return makeError(file.string() + " is not a SwarmTrain checkpoint");

    Result<ModelConfig> config = ModelConfig::fromJson(container->meta("model_config").value_or(""));
    if (!config)
        return makeError(file.string() + ": " + config.error().message);

    const std::string kind = container->meta("tokenizer").value_or("");
    std::vector<char32_t> vocab;
    if (const TensorEntry *entry = container->find("tokenizer.vocab")) {
        if (entry->dtype != DType::I32 || entry->shape.size() != 1)
            return makeError(file.string() + ": tokenizer vocabulary has the wrong type");
        std::vector<std::int32_t> codePoints(std::size_t(entry->numel()));
        std::memcpy(codePoints.data(), entry->bytes.data(), entry->bytes.size());
        vocab.assign(codePoints.begin(), codePoints.end());
    }
    Result<Tokenizer> tokenizer = makeError("unknown tokenizer '" + kind.substr(0, 40) + "'");
    if (kind == "char" || kind == "byte") {
        tokenizer = Tokenizer::fromVocabulary(kind == "char" ? TokenizerKind::Char : TokenizerKind::Byte, std::move(vocab));
    } else if (kind == "sentencepiece") {
        const TensorEntry *entry = container->find("tokenizer.model");
        if (!entry || entry->dtype != DType::U8 || entry->shape.size() != 1)
            return makeError(file.string() + ": the SentencePiece tokenizer's model is missing or of the wrong type");
        tokenizer = Tokenizer::fromSentencePiece(std::string(reinterpret_cast<const char *>(entry->bytes.data()), entry->bytes.size()));
        if (tokenizer && tokenizer->sha256() != container->meta("tokenizer_sha256").value_or(""))
            return makeError(file.string() + ": the tokenizer's model does not match its recorded SHA-256");
    }
    if (!tokenizer)
        return makeError(file.string() + ": " + tokenizer.error().message);
    ModelConfig fitted = *config;
    if (Result<void> fits = fitVocabulary(fitted, tokenizer->vocabSize()); !fits)
        return makeError(file.string() + ": tokenizer and model disagree on the vocabulary size: " + fits.error().message);

    TrainingState state;
    try {
        state.iter = std::stoll(container->meta("iter").value_or("0"));
        state.valLoss = std::stod(container->meta("val_loss").value_or("0"));
    } catch (const std::exception &) {
        return makeError(file.string() + ": malformed training state");
    }
    state.dataRngState = container->meta("data_rng").value_or("");
    state.dataPath = container->meta("data_path").value_or("");
    return LoadedCheckpoint{*config, std::move(tokenizer).value(), std::move(state), std::move(container).value()};
}

Result<void> restoreModel(const LoadedCheckpoint &checkpoint, DecoderImpl &model)
{
    torch::NoGradGuard noGrad;
    for (auto &[name, parameter] : model.namedParameters()) {
        Result<torch::Tensor> value = floatTensor(checkpoint.container, name, parameter.sizes());
        if (!value)
            return value.error();
        parameter.copy_(*value);
    }
    if (const TensorEntry *rng = checkpoint.container.find("rng.torch_cpu")) {
        torch::Tensor state = torch::empty({rng->numel()}, torch::kUInt8);
        std::memcpy(state.data_ptr(), rng->bytes.data(), rng->bytes.size());
        try {
            at::Generator generator = at::detail::getDefaultCPUGenerator();
            std::lock_guard<std::mutex> lock(generator.mutex());
            generator.set_state(state);
        } catch (const c10::Error &) {
            return makeError("checkpoint holds an invalid random-number state");
        }
    }
    return {};
}

Result<OuterState> readOuterState(const LoadedCheckpoint &checkpoint, std::int64_t parameterCount)
{
    OuterState outer;
    try {
        outer.round = std::stoll(checkpoint.container.meta("round").value_or("-1"));
    } catch (const std::exception &) {
        outer.round = -1;
    }
    if (outer.round < 0)
        return makeError("checkpoint has no valid swarm round");
    if (const std::optional<std::string> step = checkpoint.container.meta("schedule_step")) {
        const auto [end, error] = std::from_chars(step->data(), step->data() + step->size(), outer.scheduleStep);
        if (error != std::errc() || end != step->data() + step->size() || outer.scheduleStep < 0
            || outer.scheduleStep > kMaxScheduleStep)
            return makeError("checkpoint has an invalid schedule step");
    }
    Result<torch::Tensor> momentum = floatTensor(checkpoint.container, "outer.momentum", {parameterCount});
    if (!momentum)
        return momentum.error();
    outer.momentum = std::move(momentum).value();
    return outer;
}

Result<void> restoreOptimizer(const LoadedCheckpoint &checkpoint, FlatParameters &parameters, AdamW &optimizer)
{
    const std::int64_t n = parameters.numel();
    Result<torch::Tensor> expAvg = floatTensor(checkpoint.container, "optimizer.exp_avg", {n});
    if (!expAvg)
        return expAvg.error();
    Result<torch::Tensor> expAvgSq = floatTensor(checkpoint.container, "optimizer.exp_avg_sq", {n});
    if (!expAvgSq)
        return expAvgSq.error();
    std::int64_t step = 0;
    try {
        step = std::stoll(checkpoint.container.meta("optimizer_step").value_or("0"));
    } catch (const std::exception &) {
        return makeError("checkpoint has a malformed optimizer step");
    }
    optimizer.restore(step, *expAvg, *expAvgSq);
    return {};
}

} // namespace swarmtrain
