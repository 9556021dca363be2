#include "Generation.h"

#include "Checkpoint.h"
#include "Decoder.h"
#include "Device.h"
#include "KvCache.h"

#include <chrono>
#include <limits>

namespace swarmtrain {

namespace {

// The bytes of `text` up to its last whole UTF-8 character.
std::size_t wholeCharacters(const std::string &text)
{
    std::size_t end = text.size();
    for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
        const auto byte = std::uint8_t(text[text.size() - back]);
        if ((byte & 0xC0) == 0x80)
            continue; // a continuation byte: look further back for its lead
        const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
        if (length > back)
            end = text.size() - back; // its character is not complete yet
        break;
    }
    return end;
}

std::int64_t pick(torch::Tensor logits, const GenerateOptions &o, at::Generator &generator)
{
    if (o.temperature <= 0.0)
        return logits.argmax().item<std::int64_t>();
    logits = logits / o.temperature;
    if (o.topK > 0 && o.topK < logits.size(0)) {
        const torch::Tensor kth = std::get<0>(logits.topk(o.topK)).select(0, -1);
        logits = logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
    }
    torch::Tensor probabilities = torch::softmax(logits, -1);
    if (o.topP < 1.0) {
        const auto [sorted, order] = probabilities.sort(/*dim=*/-1, /*descending=*/true);
        // Keep each token whose more likely predecessors add up to less than p (the first always).
        const torch::Tensor dropped = (sorted.cumsum(-1) - sorted) >= o.topP;
        probabilities = probabilities.scatter(0, order, sorted.masked_fill(dropped, 0.0));
    }
    return torch::multinomial(probabilities, 1, false, generator).item<std::int64_t>();
}

} // namespace

Result<GenerateReport> generateText(DecoderImpl &model, const Tokenizer &tokenizer, const GenerateOptions &o,
                                    const std::function<bool(const std::string &)> &onText)
{
    Result<std::vector<std::int32_t>> encoded = tokenizer.encode(o.prompt);
    if (!encoded)
        return makeError("the prompt cannot be encoded: " + encoded.error().message);
    std::vector<std::int32_t> tokens = std::move(encoded).value();
    if (tokens.empty()) {
        if (tokenizer.endOfText() < 0)
            return makeError("the prompt is empty, and this tokenizer has no end of text to start after");
        tokens.push_back(tokenizer.endOfText());
    }
    const ModelConfig &config = model.config();
    if (std::int64_t(tokens.size()) > config.blockSize)
        return makeError("the prompt is " + std::to_string(tokens.size()) + " tokens, longer than the model's context of "
                         + std::to_string(config.blockSize));

    c10::InferenceMode inference; // no autograd bookkeeping at all: a token costs less
    model.eval();
    const torch::Tensor anyWeight = model.parameters().front();
    KvCache cache(config.nLayer, 1, config.kvHeads(), config.headDim(), config.blockSize, anyWeight.options());
    auto generator = at::detail::createCPUGenerator(o.seed);
    const std::size_t promptLength = tokens.size();
    // The continuation starts after the prompt's last whole character: a prompt cut inside a
    // character (bytes of a longer text) gets that character back whole, completed by the model,
    // rather than a continuation that starts with a stray continuation byte.
    const std::size_t promptWhole = wholeCharacters(tokenizer.decode(tokens));
    GenerateReport report;
    report.promptTokens = int(promptLength);
    report.device = anyWeight.device().str();
    report.stopped = "max tokens";
    std::size_t shown = 0; // bytes of the continuation handed to onText
    const auto started = std::chrono::steady_clock::now();
    auto firstDone = started;

    torch::Tensor input = torch::tensor(std::vector<std::int64_t>(tokens.begin(), tokens.end()), torch::kLong);
    for (int i = 0; i < o.maxTokens; ++i) {
        if (cache.length() + input.size(0) > config.blockSize) {
            report.stopped = "context full";
            break;
        }
        const torch::Tensor logits = model.forwardCached(input.unsqueeze(0).to(anyWeight.device()), cache);
        const std::int64_t next = pick(logits[0][-1].to(torch::kCPU, torch::kFloat), o, generator);
        if (i == 0)
            firstDone = std::chrono::steady_clock::now();
        if (next == tokenizer.endOfText()) {
            report.stopped = "end of text";
            break;
        }
        tokens.push_back(std::int32_t(next));
        ++report.tokens;
        input = torch::tensor({next}, torch::kLong);
        // The continuation is what decoding the whole adds to the prompt's whole characters.
        const std::string all = tokenizer.decode(tokens);
        report.text = all.size() >= promptWhole ? all.substr(promptWhole) : all;
        const std::size_t whole = wholeCharacters(report.text);
        if (onText && whole > shown) {
            const bool goOn = onText(report.text.substr(shown, whole - shown));
            shown = whole;
            if (!goOn) {
                report.stopped = "asked";
                break;
            }
        }
    }
    if (onText && report.stopped != "asked" && report.text.size() > shown)
        onText(report.text.substr(shown));
    const auto done = std::chrono::steady_clock::now();
    report.seconds = std::chrono::duration<double>(done - started).count();
    const double after = std::chrono::duration<double>(done - firstDone).count();
    report.tokensPerSecond = report.tokens > 1 && after > 0.0 ? (report.tokens - 1) / after : 0.0;
    return report;
}

Result<GenerateReport> generateFromState(const std::filesystem::path &state, const std::string &device,
                                         const GenerateOptions &options,
                                         const std::function<bool(const std::string &)> &onText)
{
    Result<torch::Device> where = resolveDevice(device);
    if (!where)
        return where.error();
    Result<LoadedCheckpoint> checkpoint = readCheckpoint(state);
    if (!checkpoint)
        return checkpoint.error();
    Result<Decoder> model = restoredModel(*checkpoint, state);
    if (!model)
        return model.error();
    (*model)->to(*where);
    return generateText(**model, checkpoint->tokenizer, options, onText);
}

} // namespace swarmtrain
