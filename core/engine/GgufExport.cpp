// swarmtrain-cli export --format gguf: one GGUF v3 file that llama.cpp (and Ollama, LM Studio)
// loads, written as llama.cpp's own convert_hf_to_gguf.py writes one from the Hugging Face
// folder ModelExport.cpp makes:
// - header: "GGUF", version 3, the tensor and key counts; then the metadata keys, each a
//   length-prefixed name, a type and a value; then each tensor's name, dimensions (innermost
//   first, the reverse of PyTorch's shape), type and offset; then the tensors, each starting on
//   a multiple of general.alignment (32) from the start of the data;
// - llama: q_proj and k_proj are permuted back from the "rotate half" layout transformers uses to
//   the interleaved pairs llama.cpp rotates (convert_hf_to_gguf.py's permute()); the norms stay
//   float32 whatever the dtype, as llama.cpp's converter keeps them;
// - gpt2: the Linear layout (llama.cpp's attn_qkv, ffn_up... are [out, in] as nanoGPT's are);
// - the SentencePiece vocabulary as tokenizer.ggml.model "llama": each piece's text, score and
//   type, and the <s>, </s> and unknown ids. llama.cpp has no character-level tokenizer, so a
//   model trained with one is refused with the reason.
#include "ModelExport.h"

#include "ExportCommon.h"
#include "SentencePieceModel.h"
#include "Sha256.h"

#include <cstring>

namespace swarmtrain {

namespace {

constexpr std::uint64_t kAlignment = 32;

// GGUF's metadata value types and ggml's tensor types.
enum class Value : std::uint32_t { U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9 };
enum class GgmlType : std::uint32_t { F32 = 0, F16 = 1, BF16 = 30 };

class GgufWriter {
public:
    void u32(const std::string &key, std::uint32_t value) { scalar(key, Value::U32, value); }
    void f32(const std::string &key, float value) { scalar(key, Value::F32, value); }
    void boolean(const std::string &key, bool value) { scalar(key, Value::Bool, std::uint8_t(value)); }
    void string(const std::string &key, const std::string &value)
    {
        header(key, Value::String);
        text(m_metadata, value);
    }
    void strings(const std::string &key, const std::vector<std::string> &values)
    {
        arrayHeader(key, Value::String, values.size());
        for (const std::string &value : values)
            text(m_metadata, value);
    }
    template <typename T> void array(const std::string &key, Value type, const std::vector<T> &values)
    {
        arrayHeader(key, type, values.size());
        for (const T &value : values)
            put(m_metadata, value);
    }

    // `value` is [out, in] or [n] as PyTorch holds it; GGUF lists the dimensions innermost first.
    void tensor(const std::string &name, const torch::Tensor &value, GgmlType type)
    {
        const torch::ScalarType scalar = type == GgmlType::F32   ? torch::kFloat32
                                         : type == GgmlType::F16 ? torch::kFloat16
                                                                 : torch::kBFloat16;
        const torch::Tensor t = value.detach().to(scalar).contiguous();
        text(m_infos, name);
        put(m_infos, std::uint32_t(t.dim()));
        for (std::int64_t d = t.dim() - 1; d >= 0; --d)
            put(m_infos, std::uint64_t(t.size(d)));
        put(m_infos, std::uint32_t(type));
        m_data.resize((m_data.size() + kAlignment - 1) / kAlignment * kAlignment);
        put(m_infos, std::uint64_t(m_data.size()));
        const auto *bytes = static_cast<const std::byte *>(t.data_ptr());
        m_data.insert(m_data.end(), bytes, bytes + t.nbytes());
        ++m_tensors;
    }

    std::vector<std::byte> finish() const
    {
        std::vector<std::byte> file;
        file.reserve(m_metadata.size() + m_infos.size() + m_data.size() + 2 * kAlignment);
        const char magic[] = {'G', 'G', 'U', 'F'};
        file.insert(file.end(), reinterpret_cast<const std::byte *>(magic), reinterpret_cast<const std::byte *>(magic) + 4);
        put(file, std::uint32_t(3));
        put(file, m_tensors);
        put(file, m_keys);
        file.insert(file.end(), m_metadata.begin(), m_metadata.end());
        file.insert(file.end(), m_infos.begin(), m_infos.end());
        file.resize((file.size() + kAlignment - 1) / kAlignment * kAlignment);
        file.insert(file.end(), m_data.begin(), m_data.end());
        return file;
    }

private:
    template <typename T> static void put(std::vector<std::byte> &out, T value)
    {
        const auto *bytes = reinterpret_cast<const std::byte *>(&value); // little-endian, as every supported CPU
        out.insert(out.end(), bytes, bytes + sizeof value);
    }
    static void text(std::vector<std::byte> &out, const std::string &value)
    {
        put(out, std::uint64_t(value.size()));
        const auto *bytes = reinterpret_cast<const std::byte *>(value.data());
        out.insert(out.end(), bytes, bytes + value.size());
    }
    void header(const std::string &key, Value type)
    {
        text(m_metadata, key);
        put(m_metadata, std::uint32_t(type));
        ++m_keys;
    }
    template <typename T> void scalar(const std::string &key, Value type, T value)
    {
        header(key, type);
        put(m_metadata, value);
    }
    void arrayHeader(const std::string &key, Value type, std::size_t count)
    {
        header(key, Value::Array);
        put(m_metadata, std::uint32_t(type));
        put(m_metadata, std::uint64_t(count));
    }

    std::vector<std::byte> m_metadata, m_infos, m_data;
    std::uint64_t m_keys = 0, m_tensors = 0;
};

// convert_hf_to_gguf.py's permute(): rows of each head from halves [x0..x(d/2-1), y0..] back to
// interleaved pairs [x0, y0, x1, y1, ...].
torch::Tensor interleaveRotaryPairs(const torch::Tensor &w, std::int64_t heads)
{
    return w.reshape({heads, 2, w.size(0) / heads / 2, w.size(1)}).transpose(1, 2).reshape(w.sizes());
}

// llama.cpp's tensor names for each of transformers' (Llama, GPT-2), and how the weight changes.
struct GgufTensor {
    std::string name;
    torch::Tensor value;
};

std::vector<GgufTensor> llamaTensors(const ModelConfig &c, const std::vector<NamedTensor> &hf)
{
    static const std::pair<const char *, const char *> layer[] = {
        {"input_layernorm.weight", "attn_norm.weight"},      {"self_attn.q_proj.weight", "attn_q.weight"},
        {"self_attn.k_proj.weight", "attn_k.weight"},        {"self_attn.v_proj.weight", "attn_v.weight"},
        {"self_attn.o_proj.weight", "attn_output.weight"},   {"post_attention_layernorm.weight", "ffn_norm.weight"},
        {"mlp.gate_proj.weight", "ffn_gate.weight"},         {"mlp.up_proj.weight", "ffn_up.weight"},
        {"mlp.down_proj.weight", "ffn_down.weight"}};
    std::vector<GgufTensor> out;
    for (const auto &[name, value] : hf) {
        if (name == "model.embed_tokens.weight") {
            out.push_back({"token_embd.weight", value});
        } else if (name == "model.norm.weight") {
            out.push_back({"output_norm.weight", value});
        } else if (name == "lm_head.weight") {
            out.push_back({"output.weight", value});
        } else {
            int index = -1, consumed = 0;
            if (std::sscanf(name.c_str(), "model.layers.%d.%n", &index, &consumed) != 1 || consumed == 0)
                continue;
            const std::string rest = name.substr(std::size_t(consumed));
            for (const auto &[hfName, ggufName] : layer) {
                if (rest != hfName)
                    continue;
                torch::Tensor w = value;
                if (rest == "self_attn.q_proj.weight")
                    w = interleaveRotaryPairs(w, c.nHead);
                else if (rest == "self_attn.k_proj.weight")
                    w = interleaveRotaryPairs(w, c.nKvHead);
                out.push_back({"blk." + std::to_string(index) + "." + ggufName, w});
            }
        }
    }
    return out;
}

std::vector<GgufTensor> gpt2Tensors(const std::vector<NamedTensor> &hf)
{
    static const std::pair<const char *, const char *> layer[] = {
        {"ln_1.", "attn_norm."}, {"attn.c_attn.", "attn_qkv."}, {"attn.c_proj.", "attn_output."},
        {"ln_2.", "ffn_norm."},  {"mlp.c_fc.", "ffn_up."},      {"mlp.c_proj.", "ffn_down."}};
    std::vector<GgufTensor> out;
    for (const auto &[name, value] : hf) {
        if (name == "transformer.wte.weight") {
            out.push_back({"token_embd.weight", value});
        } else if (name == "transformer.wpe.weight") {
            out.push_back({"position_embd.weight", value});
        } else if (name.starts_with("transformer.ln_f.")) {
            out.push_back({"output_norm." + name.substr(17), value});
        } else {
            int index = -1, consumed = 0;
            if (std::sscanf(name.c_str(), "transformer.h.%d.%n", &index, &consumed) != 1 || consumed == 0)
                continue;
            const std::string rest = name.substr(std::size_t(consumed));
            for (const auto &[hfPrefix, ggufPrefix] : layer) {
                if (!rest.starts_with(hfPrefix))
                    continue;
                const std::string suffix = rest.substr(std::strlen(hfPrefix));
                // Conv1D's [in, out] back to [out, in].
                const bool conv1d = suffix == "weight" && value.dim() == 2;
                out.push_back({"blk." + std::to_string(index) + "." + ggufPrefix + suffix, conv1d ? value.t() : value});
            }
        }
    }
    return out;
}

void writeVocabulary(GgufWriter &gguf, const SentencePieceModel &sp, const SpecialTokens &special, int vocabSize)
{
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;
    for (const SentencePiece &piece : sp.pieces()) {
        tokens.push_back(piece.text);
        scores.push_back(piece.score);
        types.push_back(std::int32_t(piece.type));
    }
    // Rows of a vocabulary padded past the tokenizer's (ModelConfig.h) get pieces no text makes.
    for (int id = int(tokens.size()); id < vocabSize; ++id) {
        tokens.push_back("[PAD" + std::to_string(id) + "]");
        scores.push_back(-1e9f);
        types.push_back(SentencePiece::Unused);
    }
    gguf.string("tokenizer.ggml.model", "llama");
    gguf.strings("tokenizer.ggml.tokens", tokens);
    gguf.array("tokenizer.ggml.scores", Value::F32, scores);
    gguf.array("tokenizer.ggml.token_type", Value::I32, types);
    if (special.bos)
        gguf.u32("tokenizer.ggml.bos_token_id", std::uint32_t(*special.bos));
    if (special.eos)
        gguf.u32("tokenizer.ggml.eos_token_id", std::uint32_t(*special.eos));
    if (special.unk)
        gguf.u32("tokenizer.ggml.unknown_token_id", std::uint32_t(*special.unk));
    // As the swarm trains: no <s> before the text, and SentencePiece's space mark only where the model adds one.
    gguf.boolean("tokenizer.ggml.add_bos_token", false);
    gguf.boolean("tokenizer.ggml.add_eos_token", false);
    gguf.boolean("tokenizer.ggml.add_space_prefix", sp.addsDummyPrefix());
}

} // namespace

Result<ExportReport> exportGguf(const ExportOptions &o)
{
    Result<ExportStart> start = startExport(o);
    if (!start)
        return start.error();
    const std::filesystem::path &out = start->out;
    ExportSource *source = &start->source;
    // llama.cpp's tensor type and LLAMA_FTYPE_ALL_F32, MOSTLY_F16 or MOSTLY_BF16.
    const auto [matrices, fileType] = start->dtype == DType::BF16  ? std::pair(GgmlType::BF16, 32u)
                                      : start->dtype == DType::F16 ? std::pair(GgmlType::F16, 1u)
                                                                   : std::pair(GgmlType::F32, 0u);
    const ModelConfig &c = source->checkpoint.config;
    const SentencePieceModel *sp = source->checkpoint.tokenizer.sentencePiece();
    if (!sp)
        return makeError(o.state.string() + ": its model reads " + tokenizerKindName(source->checkpoint.tokenizer.kind())
                         + " tokens, and llama.cpp has no such tokenizer; export it with --format hf, or train "
                           "with a SentencePiece tokenizer");

    GgufWriter gguf;
    const std::string arch = c.isLlama() ? "llama" : "gpt2";
    gguf.string("general.architecture", arch);
    gguf.string("general.name", o.name.empty() ? out.stem().string() : o.name);
    gguf.string("general.license", o.license);
    gguf.u32("general.file_type", fileType);
    gguf.u32("general.alignment", std::uint32_t(kAlignment));
    gguf.u32(arch + ".context_length", std::uint32_t(c.blockSize));
    gguf.u32(arch + ".embedding_length", std::uint32_t(c.nEmbd));
    gguf.u32(arch + ".block_count", std::uint32_t(c.nLayer));
    gguf.u32(arch + ".feed_forward_length", std::uint32_t(c.isLlama() ? c.intermediateSize : 4 * c.nEmbd));
    gguf.u32(arch + ".attention.head_count", std::uint32_t(c.nHead));
    if (c.isLlama()) {
        gguf.u32("llama.attention.head_count_kv", std::uint32_t(c.nKvHead));
        gguf.f32("llama.rope.freq_base", float(c.ropeTheta));
        gguf.u32("llama.rope.dimension_count", std::uint32_t(c.headDim()));
        gguf.f32("llama.attention.layer_norm_rms_epsilon", float(c.rmsNormEps));
        gguf.u32("llama.vocab_size", std::uint32_t(c.vocabSize));
    } else {
        gguf.f32("gpt2.attention.layer_norm_epsilon", 1e-5f);
    }
    writeVocabulary(gguf, *sp, specialTokensOf(source->checkpoint.tokenizer), c.vocabSize);

    torch::NoGradGuard noGrad;
    const std::vector<NamedTensor> hf = huggingFaceTensors(*source->model);
    for (const auto &[name, value] : c.isLlama() ? llamaTensors(c, hf) : gpt2Tensors(hf))
        gguf.tensor(name, value, value.dim() == 1 ? GgmlType::F32 : matrices);

    const std::vector<std::byte> bytes = gguf.finish();
    if (Result<void> written = writeExportFile(out, bytes); !written)
        return written.error();
    return ExportReport{out, arch, c.parameterCount(), {{out.filename().string(), bytes.size(), Sha256::hexOf(bytes)}}};
}

} // namespace swarmtrain
