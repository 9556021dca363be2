#pragma once

#include "Decoder.h"

#include <memory>

// The stages of each family, for DecoderImpl (Decoder.cpp) only: GptStages.cpp and LlamaStages.cpp.
namespace swarmtrain {

// Token ids [B, T] -> activations [B, T, nEmbd].
class EmbeddingStage : public StageImpl {
public:
    virtual torch::Tensor tokenEmbedding() const = 0;
};

// Final norm and output head: activations -> logits [B, T, vocab].
class HeadStage : public StageImpl {
public:
    // A head that reads the embedding stage's tensor gets its own copy of it (the swapped
    // model's device copy, whose embedding and head move to the device at different times).
    virtual void untie() = 0;
};

std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config);
// Transformer block `index` (0-based): activations -> activations.
std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index);
// `tiedWeight` is the embedding stage's token embedding when the model holds both and the head
// is tied (undefined otherwise); a tied head without it gets its own copy of the embedding under
// the tied name, an untied one its own head weight.
std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight);

namespace gpt {
std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config);
std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index);
std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight);
} // namespace gpt

namespace llama {
std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config);
std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index);
std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight);
} // namespace llama

} // namespace swarmtrain
