#pragma once

#include "ModelConfig.h"
#include "StageGate.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace swarmtrain {

class KvCache; // KvCache.h

// One pipeline stage: the embedding, one transformer block, or the head.
class StageImpl : public torch::nn::Module {
public:
    virtual torch::Tensor forward(const torch::Tensor &input) = 0;
    // forward() for a generation's new positions after the cache's (no dropout, no autograd):
    // blocks read and extend `cache`, the GPT embedding starts its positions there; the rest
    // have no positions and run forward().
    virtual torch::Tensor forwardCached(const torch::Tensor &input, KvCache &cache) { (void)cache; return forward(input); }
    // The model's state-dict name of the stage's own parameter `key`: nanoGPT's names for GPT
    // (transformer.h.0.attn.c_attn.weight), Hugging Face's for Llama (model.layers.0.mlp.up_proj.weight).
    virtual std::string parameterName(const std::string &key) const = 0;
    // Every tensor the stage's forward reads, with the model's names: its own parameters and,
    // for a tied head, the token embedding (so a stage moved to another device takes it along).
    virtual std::vector<std::pair<std::string, torch::Tensor>> weights();
    // The weights whose initial values are scaled down by 1/sqrt(2 x layers) (GPT-2's residual
    // projections); none for Llama.
    virtual std::vector<torch::Tensor> residualProjections() { return {}; }
};

// The activations of one run through a contiguous range of stages, as its own autograd
// graph: the boundary input is a leaf, so backward() hands back its gradient, which the
// previous range (on this peer or another) continues from.
struct StageRun {
    torch::Tensor input;
    torch::Tensor output;

    // Backpropagates `gradOutput` through the range; returns the input's gradient
    // (undefined when the range starts at the embedding, whose input is token ids).
    torch::Tensor backward(const torch::Tensor &gradOutput);
};

// A decoder-only language model of either family (ModelConfig.h) as a list of stages:
// embedding, nLayer blocks, head. The head reads the token embedding when tied (always for GPT).
class DecoderImpl : public torch::nn::Module {
public:
    explicit DecoderImpl(const ModelConfig &config);
    // Only engine stages first..last (a pipeline stage's share, StagePartition.h), which keep
    // their whole-model indices. A tied head held without the embedding has its own copy of the
    // token embedding under the tied name (tiedEmbeddingName); the two copies' gradients add up
    // to the tied one.
    DecoderImpl(const ModelConfig &config, int first, int last);

    const ModelConfig &config() const { return m_config; }
    int firstStage() const { return m_first; }
    int lastStage() const { return m_first + stageCount() - 1; }
    int stageCount() const { return int(m_stages.size()); }
    // By whole-model index.
    StageImpl &stage(int index) { return *m_stages.at(std::size_t(index - m_first)); }

    // Token ids [B, T] -> logits [B, T, vocab].
    torch::Tensor forward(const torch::Tensor &tokens);
    // The same for T new tokens after the cache's positions, which it extends (a whole model
    // only): generation's forward, each token costing one position's work.
    torch::Tensor forwardCached(const torch::Tensor &tokens, KvCache &cache);
    // Runs stages first..last (inclusive) on `input`, continuing the caller's autograd graph.
    torch::Tensor forwardStages(int first, int last, torch::Tensor input);
    // Runs stages first..last with a detached input, for stage-by-stage training.
    StageRun runStages(int first, int last, const torch::Tensor &input);

    // Gives this model (a span, or the whole) the values DecoderImpl(config) holds when built right
    // after torch::manual_seed(seed). The stages this span lacks are built one at a time and
    // their random draws made into scratch, so a pipeline stage never holds the whole model; a
    // head without the embedding gets the embedding's values for its copy.
    void initializeAsWhole(std::uint64_t seed);

    // Every parameter once (a tied head weight is the embedding's), with the model's names.
    std::vector<std::pair<std::string, torch::Tensor>> namedParameters();

    // Gives the head its own copy of the token embedding instead of sharing the embedding
    // stage's tensor. A swapped copy of the model needs this: its embedding and head move to
    // the device at different times. Their two gradients add up to the tied one.
    void untieHead();

    // Called between stages of every forward and backward pass (StageGate.h); empty: none.
    void setStageGate(StageGate gate) { m_gate = std::move(gate); }

    static torch::Tensor loss(const torch::Tensor &logits, const torch::Tensor &targets);

private:
    ModelConfig m_config;
    int m_first = 0;
    std::vector<std::shared_ptr<StageImpl>> m_stages;
    StageGate m_gate;
};
TORCH_MODULE(Decoder);

} // namespace swarmtrain
