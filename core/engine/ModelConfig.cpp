#include "ModelConfig.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace swarmtrain {

namespace {

using Json = nlohmann::json;

// Field readers that bound a value before it becomes an int: a JSON number may be anything.
class FieldReader {
public:
    explicit FieldReader(const Json &json) : m_json(json) {}

    bool has(const char *key) const { return m_json.contains(key) && !m_json.at(key).is_null(); }

    int integer(const char *key, std::int64_t min, std::int64_t max)
    {
        if (!m_error.empty())
            return 0;
        if (!m_json.contains(key))
            return fail(key, "is missing"), 0;
        const Json &value = m_json.at(key);
        if (!value.is_number_integer())
            return fail(key, "must be a whole number"), 0;
        // Unsigned numbers beyond int64 are refused before the signed read.
        if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(max))
            return fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max)), 0;
        const std::int64_t v = value.get<std::int64_t>();
        if (v < min || v > max)
            return fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max)), 0;
        return int(v);
    }

    double number(const char *key, double min, double max, bool minExclusive = false)
    {
        if (!m_error.empty())
            return 0.0;
        if (!m_json.contains(key))
            return fail(key, "is missing"), 0.0;
        const Json &value = m_json.at(key);
        if (!value.is_number())
            return fail(key, "must be a number"), 0.0;
        const double v = value.get<double>();
        if (!std::isfinite(v) || v > max || (minExclusive ? v <= min : v < min))
            return fail(key, "is out of range"), 0.0;
        return v;
    }

    bool boolean(const char *key)
    {
        if (!m_error.empty())
            return false;
        if (!m_json.contains(key) || !m_json.at(key).is_boolean())
            return fail(key, "must be true or false"), false;
        return m_json.at(key).get<bool>();
    }

    void fail(const std::string &key, const std::string &why)
    {
        if (m_error.empty())
            m_error = key + " " + why;
    }
    const std::string &error() const { return m_error; }

private:
    const Json &m_json;
    std::string m_error;
};

ModelConfig readGpt(FieldReader &r)
{
    ModelConfig c;
    c.family = ModelFamily::Gpt;
    c.vocabSize = r.integer("vocab_size", 1, 1 << 24);
    c.nLayer = r.integer("n_layer", 1, 1024);
    c.nHead = r.integer("n_head", 1, 1024);
    c.nEmbd = r.integer("n_embd", 1, 65536);
    c.blockSize = r.integer("block_size", 1, 1 << 20);
    c.dropout = r.number("dropout", 0.0, 0.999);
    c.bias = r.boolean("bias");
    c.nKvHead = c.nHead;
    c.intermediateSize = 4 * c.nEmbd;
    return c;
}

ModelConfig readLlama(FieldReader &r, const Json &json)
{
    ModelConfig c;
    c.family = ModelFamily::Llama;
    c.vocabSize = r.integer("vocab_size", 1, 1 << 24);
    c.nLayer = r.integer("num_hidden_layers", 1, 1024);
    c.nHead = r.integer("num_attention_heads", 1, 1024);
    // Hugging Face's defaults where a config leaves a field out.
    c.nKvHead = r.has("num_key_value_heads") ? r.integer("num_key_value_heads", 1, 1024) : c.nHead;
    c.nEmbd = r.integer("hidden_size", 1, 65536);
    c.intermediateSize = r.integer("intermediate_size", 1, 1 << 20);
    c.blockSize = r.integer("max_position_embeddings", 1, 1 << 20);
    c.rmsNormEps = r.has("rms_norm_eps") ? r.number("rms_norm_eps", 0.0, 0.1, /*minExclusive=*/true) : 1e-6;
    c.ropeTheta = r.has("rope_theta") ? r.number("rope_theta", 1.0, 1e12, /*minExclusive=*/true) : 10000.0;
    c.tieEmbeddings = r.has("tie_word_embeddings") ? r.boolean("tie_word_embeddings") : false;
    // What this engine does not build is refused, not silently ignored.
    if (r.has("hidden_act") && json.at("hidden_act") != "silu")
        r.fail("hidden_act", "must be silu (SwiGLU)");
    for (const char *flag : {"attention_bias", "mlp_bias"}) {
        if (r.has(flag) && json.at(flag) != false)
            r.fail(flag, "must be false: Llama-family models here have no biases");
    }
    if (r.has("rope_scaling"))
        r.fail("rope_scaling", "is not supported (must be null)");
    if (r.has("head_dim") && c.nHead > 0 && json.at("head_dim") != c.nEmbd / c.nHead)
        r.fail("head_dim", "must be hidden_size / num_attention_heads");
    return c;
}

} // namespace

const char *modelFamilyName(ModelFamily family) { return family == ModelFamily::Llama ? "llama" : "gpt"; }

std::optional<ModelFamily> parseModelFamily(const std::string &name)
{
    if (name == "gpt")
        return ModelFamily::Gpt;
    if (name == "llama")
        return ModelFamily::Llama;
    return std::nullopt;
}

std::string ModelConfig::validate() const
{
    if (vocabSize <= 0 || vocabSize > 1 << 24)
        return "vocabulary size must be between 1 and 16777216";
    if (nLayer <= 0 || nLayer > 1024)
        return "n-layer must be between 1 and 1024";
    if (nHead <= 0 || nHead > 1024)
        return "n-head must be between 1 and 1024";
    if (nEmbd <= 0 || nEmbd > 65536)
        return "n-embd must be between 1 and 65536";
    if (nEmbd % nHead != 0)
        return "n-embd (" + std::to_string(nEmbd) + ") must be divisible by n-head (" + std::to_string(nHead) + ")";
    if (blockSize <= 0 || blockSize > 1 << 20)
        return "block-size must be between 1 and 1048576";
    if (!(dropout >= 0.0 && dropout < 1.0))
        return "dropout must be in [0, 1)";
    if (isLlama()) {
        if (nKvHead <= 0 || nKvHead > nHead || nHead % nKvHead != 0)
            return "num_key_value_heads (" + std::to_string(nKvHead) + ") must divide num_attention_heads ("
                   + std::to_string(nHead) + ")";
        if (headDim() % 2 != 0)
            return "the head size (hidden_size / num_attention_heads = " + std::to_string(headDim())
                   + ") must be even for rotary embeddings";
        if (intermediateSize <= 0 || intermediateSize > 1 << 20)
            return "intermediate_size must be between 1 and 1048576";
        if (!(rmsNormEps > 0.0 && rmsNormEps <= 0.1))
            return "rms_norm_eps must be in (0, 0.1]";
        if (!(ropeTheta > 1.0 && ropeTheta <= 1e12))
            return "rope_theta must be in (1, 1e12]";
        if (dropout != 0.0 || bias)
            return "Llama-family models have no dropout and no biases";
    }
    // Each figure alone is bounded above; together they still must not ask for more than 2^36
    // parameters (256 GiB of float32), which no PC or swarm here trains.
    if (parameterCount() > std::int64_t(1) << 36)
        return "the model would have " + std::to_string(parameterCount()) + " parameters, more than 2^36";
    return {};
}

std::string ModelConfig::toJson() const
{
    if (!isLlama()) {
        return Json{
            {"vocab_size", vocabSize}, {"n_layer", nLayer}, {"n_head", nHead}, {"n_embd", nEmbd},
            {"block_size", blockSize}, {"dropout", dropout}, {"bias", bias},
        }.dump();
    }
    return Json{
        {"family", "llama"},
        {"vocab_size", vocabSize},
        {"hidden_size", nEmbd},
        {"intermediate_size", intermediateSize},
        {"num_hidden_layers", nLayer},
        {"num_attention_heads", nHead},
        {"num_key_value_heads", nKvHead},
        {"max_position_embeddings", blockSize},
        {"rms_norm_eps", rmsNormEps},
        {"rope_theta", ropeTheta},
        {"tie_word_embeddings", tieEmbeddings},
    }.dump();
}

Result<ModelConfig> ModelConfig::fromJson(const std::string &text)
{
    const Json json = Json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return makeError("model config is not a JSON object");
    ModelFamily family = ModelFamily::Gpt;
    if (json.contains("family")) {
        const std::optional<ModelFamily> named = json.at("family").is_string()
                                                     ? parseModelFamily(json.at("family").get<std::string>())
                                                     : std::nullopt;
        if (!named)
            return makeError("model config: family must be gpt or llama");
        family = *named;
    } else if (json.contains("model_type")) {
        if (json.at("model_type") != "llama")
            return makeError("model config: model_type " + json.at("model_type").dump() + " is not supported (llama is)");
        family = ModelFamily::Llama;
    }
    FieldReader reader(json);
    const ModelConfig config = family == ModelFamily::Llama ? readLlama(reader, json) : readGpt(reader);
    if (!reader.error().empty())
        return makeError("model config: " + reader.error());
    if (const std::string why = config.validate(); !why.empty())
        return makeError("model config is invalid: " + why);
    return config;
}

std::string ModelConfig::tiedEmbeddingName() const
{
    if (untiedHead())
        return {};
    return isLlama() ? "model.embed_tokens.weight" : "transformer.wte.weight";
}

std::int64_t ModelConfig::blockParameterCount() const
{
    const std::int64_t c = nEmbd;
    if (!isLlama())
        return 12 * c * c + (bias ? 13 * c : 2 * c);
    const std::int64_t kv = std::int64_t(kvHeads()) * headDim();
    return 2 * c * c + 2 * c * kv + 3 * c * std::int64_t(intermediateSize) + 2 * c;
}

std::int64_t ModelConfig::parameterCount() const
{
    const std::int64_t c = nEmbd;
    const std::int64_t tokenEmbedding = std::int64_t(vocabSize) * c;
    if (!isLlama())
        return tokenEmbedding + std::int64_t(blockSize) * c + nLayer * blockParameterCount() + (bias ? 2 * c : c);
    return tokenEmbedding * (tieEmbeddings ? 1 : 2) + nLayer * blockParameterCount() + c;
}

double ModelConfig::flopsPerToken() const
{
    // The weights a token's matmuls read: not the learned positions (GPT) nor, when the head has
    // its own weight, the token embedding (a lookup).
    const std::int64_t lookups = isLlama() ? (tieEmbeddings ? 0 : std::int64_t(vocabSize) * nEmbd)
                                           : std::int64_t(blockSize) * nEmbd;
    return 6.0 * double(parameterCount() - lookups) + 12.0 * nLayer * nEmbd * blockSize;
}

Result<void> fitVocabulary(ModelConfig &model, int tokenizerVocabulary)
{
    if (model.vocabSize == 0) {
        model.vocabSize = tokenizerVocabulary;
        return {};
    }
    if (model.vocabSize < tokenizerVocabulary) {
        return makeError("the model's vocab_size (" + std::to_string(model.vocabSize) + ") is smaller than the tokenizer's "
                         + std::to_string(tokenizerVocabulary) + " tokens: some tokens would have no embedding");
    }
    const int padded = (tokenizerVocabulary + 63) / 64 * 64;
    if (model.vocabSize > padded) {
        return makeError("the model's vocab_size (" + std::to_string(model.vocabSize) + ") is larger than the tokenizer's "
                         + std::to_string(tokenizerVocabulary) + " tokens (padded to a multiple of 64: "
                         + std::to_string(padded) + "): the rows beyond would never train");
    }
    return {};
}

} // namespace swarmtrain
