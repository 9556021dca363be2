#pragma once

#include "Result.h"

#include <cstdint>
#include <optional>
#include <string>

namespace swarmtrain {

// The two decoder families the engine builds. GPT is nanoGPT's (the demo, the parity tests);
// Llama is the family of the open models people use (Llama, Mistral, Qwen, SmolLM).
enum class ModelFamily { Gpt, Llama };

const char *modelFamilyName(ModelFamily family);
std::optional<ModelFamily> parseModelFamily(const std::string &name);

// A decoder-only language model's architecture. Declarative: a swarm ships this, never code.
//
// GPT (nanoGPT's GPTConfig): learned positions, LayerNorm, a 4x GELU MLP, optional biases,
// dropout, the output head tied to the token embedding. Its JSON uses nanoGPT's names.
//
// Llama (Hugging Face's LlamaConfig, whose field names and meanings its JSON uses, so a host can
// paste one): RMSNorm with rmsNormEps, rotary positions with ropeTheta, grouped-query attention
// with nKvHead key/value heads, a SwiGLU MLP of intermediateSize, no biases, tied or untied
// embeddings. blockSize is max_position_embeddings: the context the swarm trains at.
struct ModelConfig {
    ModelFamily family = ModelFamily::Gpt;
    int vocabSize = 0;
    int nLayer = 4;
    int nHead = 4;
    int nEmbd = 128;
    int blockSize = 64;
    // GPT only.
    double dropout = 0.0;
    bool bias = false;
    // Llama only.
    int nKvHead = 4;
    int intermediateSize = 352;
    double rmsNormEps = 1e-5;
    double ropeTheta = 10000.0;
    bool tieEmbeddings = true;

    bool isLlama() const { return family == ModelFamily::Llama; }
    int headDim() const { return nEmbd / nHead; }
    // Key/value heads: nKvHead for Llama, every head for GPT.
    int kvHeads() const { return isLlama() ? nKvHead : nHead; }
    // The head has its own weight, not the token embedding's (an untied Llama).
    bool untiedHead() const { return isLlama() && !tieEmbeddings; }
    // The name of the token embedding a tied head reads (nanoGPT's transformer.wte.weight,
    // Hugging Face's model.embed_tokens.weight); empty when the head has its own weight.
    std::string tiedEmbeddingName() const;

    // Why the config cannot build a model, or an empty string. Every size is bounded alone and
    // the products are computed in 64 bits, so nothing overflows before the totals are checked.
    std::string validate() const;
    std::string toJson() const;
    // A config as toJson() writes it; for Llama also a Hugging Face config.json (its extra keys,
    // such as architectures or torch_dtype, are ignored; model_type must be llama).
    static Result<ModelConfig> fromJson(const std::string &json);

    // Parameters in the model (a tied output head counted once).
    std::int64_t parameterCount() const;
    // Parameters of one transformer block.
    std::int64_t blockParameterCount() const;
    // Training FLOPs per token (forward + backward), as in the PaLM appendix / nanoGPT's MFU:
    // 6 per weight of the matmuls, 12 x layers x width x context for attention.
    double flopsPerToken() const;

    // The same architecture: the fields of this family (toJson's) agree.
    bool operator==(const ModelConfig &other) const { return toJson() == other.toJson(); }
};

// The model's vocabulary against the tokenizer's: a config without one takes the tokenizer's;
// one smaller leaves token ids without an embedding row, and one larger than the tokenizer's
// rounded up to a multiple of 64 (the padding GPUs like) holds rows no token ever trains.
Result<void> fitVocabulary(ModelConfig &model, int tokenizerVocabulary);

} // namespace swarmtrain
