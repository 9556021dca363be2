#include "ModelExport.h"

#include "ExportCommon.h"
#include "SentencePieceModel.h"
#include "Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <fcntl.h>
#include <optional>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace swarmtrain {

namespace {

using Json = nlohmann::ordered_json;

Json idOrNull(std::optional<int> id) { return id ? Json(*id) : Json(nullptr); }

Json configJson(const ModelConfig &c, const SpecialTokens &specials, const std::string &dtype)
{
    if (c.isLlama()) {
        return Json{{"architectures", {"LlamaForCausalLM"}},
                    {"model_type", "llama"},
                    {"vocab_size", c.vocabSize},
                    {"hidden_size", c.nEmbd},
                    {"intermediate_size", c.intermediateSize},
                    {"num_hidden_layers", c.nLayer},
                    {"num_attention_heads", c.nHead},
                    {"num_key_value_heads", c.nKvHead},
                    {"head_dim", c.headDim()},
                    {"hidden_act", "silu"},
                    {"max_position_embeddings", c.blockSize},
                    {"rms_norm_eps", c.rmsNormEps},
                    {"rope_theta", c.ropeTheta},
                    {"rope_scaling", nullptr},
                    {"attention_bias", false},
                    {"attention_dropout", 0.0},
                    {"mlp_bias", false},
                    {"tie_word_embeddings", c.tieEmbeddings},
                    {"initializer_range", 0.02},
                    {"pretraining_tp", 1},
                    {"use_cache", true},
                    {"bos_token_id", idOrNull(specials.bos)},
                    {"eos_token_id", idOrNull(specials.eos)},
                    {"torch_dtype", dtype}};
    }
    return Json{{"architectures", {"GPT2LMHeadModel"}},
                {"model_type", "gpt2"},
                {"vocab_size", c.vocabSize},
                {"n_positions", c.blockSize},
                {"n_embd", c.nEmbd},
                {"n_layer", c.nLayer},
                {"n_head", c.nHead},
                {"n_inner", nullptr},
                {"activation_function", "gelu"}, // exact GELU, as nanoGPT's nn.GELU()
                {"layer_norm_epsilon", 1e-5},
                {"resid_pdrop", 0.0},
                {"embd_pdrop", 0.0},
                {"attn_pdrop", 0.0},
                {"scale_attn_weights", true},
                {"tie_word_embeddings", true},
                {"initializer_range", 0.02},
                {"use_cache", true},
                {"bos_token_id", idOrNull(specials.bos)},
                {"eos_token_id", idOrNull(specials.eos)},
                {"torch_dtype", dtype}};
}

// Facts the model card states, each only as the state records it.
struct CardFacts {
    std::string title;
    std::string license;
    std::string architecture;
    std::int64_t parameters = 0;
    std::string stateSha256;
    std::optional<std::int64_t> round;
    std::int64_t tokensTrained = -1;
    std::int64_t iterations = 0;
    double valLoss = 0.0;
};

std::string modelCard(const CardFacts &f, const ModelConfig &c, const Tokenizer &tokenizer, const std::string &dtype)
{
    std::ostringstream card;
    card << "---\nlicense: " << f.license << "\nlibrary_name: transformers\npipeline_tag: text-generation\ntags:\n"
         << "- swarmtrain\n- " << (c.isLlama() ? "llama" : "gpt2") << "\n---\n\n# " << f.title << "\n\n"
         << "A " << f.architecture << " trained with SwarmTrain, on volunteers' computers";
    if (f.round)
        card << " in a SwarmTrain swarm (this is its state after round " << *f.round << ")";
    card << ".\n\n| | |\n|---|---|\n"
         << "| Architecture | " << f.architecture << ": " << c.nLayer << " layers, width " << c.nEmbd << ", "
         << c.nHead << " attention heads";
    if (c.isLlama())
        card << " (" << c.nKvHead << " key/value), SwiGLU of " << c.intermediateSize << ", RoPE base " << c.ropeTheta;
    card << ", context " << c.blockSize << " tokens |\n"
         << "| Parameters | " << f.parameters << " |\n"
         << "| Tensors | " << dtype << " |\n"
         << "| Tokenizer | ";
    if (tokenizer.kind() == TokenizerKind::SentencePiece)
        card << "SentencePiece, " << tokenizer.vocabSize() << " pieces (tokenizer.model, SHA-256 " << tokenizer.sha256()
             << ")";
    else
        card << tokenizerKindName(tokenizer.kind()) << "-level, " << tokenizer.vocabSize()
             << " tokens (swarmtrain_vocabulary.json; no Hugging Face tokenizer reads it)";
    card << " |\n";
    if (f.round)
        card << "| Swarm round | " << *f.round << " |\n";
    if (f.tokensTrained >= 0)
        card << "| Tokens trained | " << f.tokensTrained << " |\n";
    else
        card << "| Training iterations | " << f.iterations << " |\n";
    if (f.valLoss > 0.0 && std::isfinite(f.valLoss))
        card << "| Validation loss | " << f.valLoss << " nats a token, as recorded with the state |\n";
    card << "| Exported from | a SwarmTrain state whose SHA-256 is " << f.stateSha256 << " |\n\n"
         << "Load it with `transformers`:\n\n```python\nfrom transformers import AutoModelForCausalLM\n"
         << "model = AutoModelForCausalLM.from_pretrained(\"path/to/this/folder\")\n```\n";
    return card.str();
}

// The tokenizer's files, by name.
std::vector<std::pair<std::string, std::string>> tokenizerFiles(const Tokenizer &tokenizer, const SpecialTokens &specials,
                                                                int contextTokens)
{
    if (const SentencePieceModel *sp = tokenizer.sentencePiece()) {
        const auto textOf = [&](std::optional<int> id) {
            return id ? Json(sp->pieces()[std::size_t(*id)].text) : Json(nullptr);
        };
        const Json special{{"bos_token", textOf(specials.bos)}, {"eos_token", textOf(specials.eos)},
                           {"unk_token", specials.unkText}};
        // SentencePiece is loaded by LlamaTokenizer as it was trained: it adds no <s> (the swarm
        // trains without one), and its own space mark before the text only where the model does.
        Json config{{"tokenizer_class", "LlamaTokenizer"},
                    {"model_max_length", contextTokens},
                    {"add_bos_token", false},
                    {"add_eos_token", false},
                    {"add_prefix_space", sp->addsDummyPrefix()},
                    {"legacy", false},
                    {"clean_up_tokenization_spaces", false},
                    {"sp_model_kwargs", Json::object()}};
        config.update(special);
        return {{"tokenizer.model", sp->bytes()},
                {"tokenizer_config.json", config.dump(2) + "\n"},
                {"special_tokens_map.json", special.dump(2) + "\n"}};
    }
    Json tokens = Json::array();
    if (tokenizer.kind() == TokenizerKind::Byte) {
        for (int byte = 0; byte < 256; ++byte)
            tokens.push_back(byte);
    } else {
        for (char32_t codePoint : tokenizer.vocabulary()) {
            std::string text;
            appendUtf8(text, codePoint);
            tokens.push_back(text);
        }
    }
    const Json vocabulary{{"kind", tokenizerKindName(tokenizer.kind())},
                          {"about", tokenizer.kind() == TokenizerKind::Byte
                                        ? "token id n is the byte n"
                                        : "token id n is the n-th character of tokens"},
                          {"tokens", tokens}};
    return {{"swarmtrain_vocabulary.json", vocabulary.dump() + "\n"}};
}

std::span<const std::byte> bytesOf(const std::string &text) { return std::as_bytes(std::span(text)); }

// A folder written beside its destination and renamed into place; removed unless kept.
class PartialFolder {
public:
    explicit PartialFolder(std::filesystem::path out)
        : m_out(std::move(out))
        , m_path(m_out.parent_path() / ("." + m_out.filename().string() + ".partial-" + std::to_string(::getpid())))
    {
    }
    ~PartialFolder()
    {
        std::error_code ignored;
        if (!m_kept)
            std::filesystem::remove_all(m_path, ignored);
    }

    const std::filesystem::path &path() const { return m_path; }

    Result<void> create()
    {
        std::error_code error;
        std::filesystem::remove_all(m_path, error); // a leftover of this pid's, long gone
        if (!std::filesystem::create_directory(m_path, error))
            return makeError("cannot create " + m_path.string() + ": " + (error ? error.message() : "it exists"));
        return {};
    }

    Result<void> write(const std::string &name, std::span<const std::byte> bytes)
    {
        return writeExportFile(m_path / name, bytes);
    }

    Result<void> moveIntoPlace()
    {
        std::error_code error;
        if (std::filesystem::exists(std::filesystem::symlink_status(m_out, error)))
            return makeError(m_out.string() + " appeared while the export was written; nothing was replaced");
        std::filesystem::rename(m_path, m_out, error);
        if (error)
            return makeError("cannot move the export into " + m_out.string() + ": " + error.message());
        m_kept = true;
        // The rename itself reaches the disk with the parent folder's entry.
        if (const int dir = ::open(m_out.parent_path().c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
            (void)::fsync(dir);
            ::close(dir);
        }
        return {};
    }

private:
    std::filesystem::path m_out;
    std::filesystem::path m_path;
    bool m_kept = false;
};

} // namespace

Result<ExportReport> exportHuggingFace(const ExportOptions &o)
{
    Result<ExportStart> start = startExport(o);
    if (!start)
        return start.error();
    const std::filesystem::path &out = start->out;
    ExportSource *source = &start->source;
    const ModelConfig &config = source->checkpoint.config;
    const Tokenizer &tokenizer = source->checkpoint.tokenizer;

    torch::NoGradGuard noGrad;
    const std::vector<NamedTensor> tensors = huggingFaceTensors(*source->model);
    TensorContainerWriter writer;
    writer.setMetadata("format", "pt");
    for (const NamedTensor &t : tensors) {
        const torch::Tensor value = t.value.detach().to(start->scalar).contiguous();
        writer.addTensor(t.name, start->dtype, value.sizes().vec(),
                         {static_cast<const std::byte *>(value.data_ptr()), std::size_t(value.nbytes())});
    }

    const SpecialTokens specials = specialTokensOf(tokenizer);
    CardFacts facts;
    facts.title = o.name.empty() ? out.filename().string() : o.name;
    facts.license = o.license;
    facts.architecture = config.isLlama() ? "LlamaForCausalLM" : "GPT2LMHeadModel";
    facts.parameters = config.parameterCount();
    facts.stateSha256 = source->sha256;
    facts.round = source->round;
    if (o.tokensPerStep > 0 && source->scheduleStep >= 0
        && source->scheduleStep <= std::numeric_limits<std::int64_t>::max() / o.tokensPerStep)
        facts.tokensTrained = source->scheduleStep * o.tokensPerStep;
    facts.iterations = source->checkpoint.state.iter;
    facts.valLoss = source->checkpoint.state.valLoss;

    std::vector<std::pair<std::string, std::string>> files = tokenizerFiles(tokenizer, specials, config.blockSize);
    files.emplace_back("config.json", configJson(config, specials, o.dtype).dump(2) + "\n");
    files.emplace_back("generation_config.json", Json{{"bos_token_id", idOrNull(specials.bos)},
                                                      {"eos_token_id", idOrNull(specials.eos)},
                                                      {"max_length", config.blockSize}}
                                                         .dump(2)
                                                         + "\n");
    files.emplace_back("README.md", modelCard(facts, config, tokenizer, o.dtype));

    PartialFolder folder(out);
    if (Result<void> created = folder.create(); !created)
        return created.error();
    ExportReport report{out, facts.architecture, facts.parameters, {}, facts.tokensTrained};
    {
        const std::vector<std::byte> safetensors = writer.finish();
        if (Result<void> written = folder.write("model.safetensors", safetensors); !written)
            return written.error();
        report.files.push_back({"model.safetensors", safetensors.size(), Sha256::hexOf(safetensors)});
    }
    for (const auto &[name, content] : files) {
        if (Result<void> written = folder.write(name, bytesOf(content)); !written)
            return written.error();
        report.files.push_back({name, content.size(), Sha256::hexOf(bytesOf(content))});
    }
    if (Result<void> moved = folder.moveIntoPlace(); !moved)
        return moved.error();
    std::sort(report.files.begin(), report.files.end(),
              [](const ExportedFile &a, const ExportedFile &b) { return a.name < b.name; });
    return report;
}

std::string exportReportJson(const ExportReport &report)
{
    Json files = Json::array();
    for (const ExportedFile &f : report.files)
        files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"sha256", f.sha256}});
    return Json{{"folder", report.folder.string()},
                {"architecture", report.architecture},
                {"parameters", report.parameters},
                {"files", files}}
        .dump();
}

} // namespace swarmtrain
