#include "GptConfig.h"

#include <nlohmann/json.hpp>

namespace swarmtrain {

std::string GptConfig::validate() const
{
    if (vocabSize <= 0 || vocabSize > 1 << 24)
        return "vocabulary size must be between 1 and 16777216";
    if (nLayer <= 0 || nLayer > 1024)
        return "n-layer must be between 1 and 1024";
    if (nHead <= 0)
        return "n-head must be positive";
    if (nEmbd <= 0 || nEmbd > 65536)
        return "n-embd must be between 1 and 65536";
    if (nEmbd % nHead != 0)
        return "n-embd (" + std::to_string(nEmbd) + ") must be divisible by n-head (" + std::to_string(nHead) + ")";
    if (blockSize <= 0 || blockSize > 1 << 20)
        return "block-size must be between 1 and 1048576";
    if (!(dropout >= 0.0 && dropout < 1.0))
        return "dropout must be in [0, 1)";
    // Each figure alone is bounded above; together they still must not ask for more than 2^36
    // parameters (256 GiB of float32), which no PC or swarm here trains.
    if (parameterCount() > std::int64_t(1) << 36)
        return "the model would have " + std::to_string(parameterCount()) + " parameters, more than 2^36";
    return {};
}

std::string GptConfig::toJson() const
{
    return nlohmann::json{
        {"vocab_size", vocabSize}, {"n_layer", nLayer}, {"n_head", nHead}, {"n_embd", nEmbd},
        {"block_size", blockSize}, {"dropout", dropout}, {"bias", bias},
    }.dump();
}

Result<GptConfig> GptConfig::fromJson(const std::string &text)
{
    const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object())
        return makeError("model config is not a JSON object");
    GptConfig config;
    try {
        config.vocabSize = json.at("vocab_size").get<int>();
        config.nLayer = json.at("n_layer").get<int>();
        config.nHead = json.at("n_head").get<int>();
        config.nEmbd = json.at("n_embd").get<int>();
        config.blockSize = json.at("block_size").get<int>();
        config.dropout = json.at("dropout").get<double>();
        config.bias = json.at("bias").get<bool>();
    } catch (const nlohmann::json::exception &e) {
        return makeError(std::string("model config is incomplete: ") + e.what());
    }
    if (const std::string why = config.validate(); !why.empty())
        return makeError("model config is invalid: " + why);
    return config;
}

std::int64_t GptConfig::parameterCount() const
{
    const std::int64_t c = nEmbd;
    const std::int64_t perBlock = 12 * c * c + (bias ? 13 * c : 2 * c);
    return std::int64_t(vocabSize) * c + std::int64_t(blockSize) * c + nLayer * perBlock + (bias ? 2 * c : c);
}

double GptConfig::flopsPerToken() const
{
    const double nonEmbedding = double(parameterCount() - std::int64_t(blockSize) * nEmbd);
    return 6.0 * nonEmbedding + 12.0 * nLayer * nEmbd * blockSize;
}

} // namespace swarmtrain
