// nanoGPT's GPT as engine stages: token + learned position embeddings, pre-LayerNorm blocks
// (causal self-attention on a fused projection, a 4x GELU MLP), final LayerNorm and a head tied
// to the token embedding. Parameter names are nanoGPT's state-dict names.
#include "Attention.h"
#include "KvCache.h"
#include "Layers.h"
#include "Stages.h"

namespace swarmtrain::gpt {

namespace {

// LayerNorm with an optional bias (torch::nn::LayerNorm has no switch for it).
class LayerNormImpl : public torch::nn::Module {
public:
    LayerNormImpl(int width, bool bias)
        : m_weight(register_parameter("weight", torch::ones({width})))
    {
        if (bias)
            m_bias = register_parameter("bias", torch::zeros({width}));
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        return torch::layer_norm(x, {m_weight.size(0)}, m_weight, m_bias, 1e-5);
    }

private:
    torch::Tensor m_weight;
    torch::Tensor m_bias;
};
TORCH_MODULE(LayerNorm);

torch::nn::Linear makeLinear(int in, int out, bool bias)
{
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

torch::Tensor dropoutIfTraining(const torch::Tensor &x, double p, bool training)
{
    return p > 0.0 ? torch::dropout(x, p, training) : x;
}

class CausalSelfAttentionImpl : public torch::nn::Module {
public:
    explicit CausalSelfAttentionImpl(const ModelConfig &c)
        : m_nHead(c.nHead)
        , m_dropout(c.dropout)
        , m_attn(register_module("c_attn", makeLinear(c.nEmbd, 3 * c.nEmbd, c.bias)))
        , m_proj(register_module("c_proj", makeLinear(c.nEmbd, c.nEmbd, c.bias)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        const double attentionDropout = is_training() ? m_dropout : 0.0;
        const torch::Tensor y = causalSelfAttention(linearRows(x, m_attn), m_nHead, attentionDropout);
        return dropoutIfTraining(linearRows(y, m_proj), m_dropout, is_training());
    }

    // Block `block`'s attention for new positions after the cache's.
    torch::Tensor forwardCached(const torch::Tensor &x, KvCache &cache, int block)
    {
        const std::int64_t B = x.size(0), T = x.size(1), C = x.size(2), hs = C / m_nHead;
        const std::vector<torch::Tensor> qkv = linearRows(x, m_attn).split(C, -1);
        const auto heads = [&](const torch::Tensor &t) { return t.view({B, T, m_nHead, hs}).transpose(1, 2); };
        const auto [keys, values] = cache.append(block, heads(qkv[1]), heads(qkv[2]));
        return linearRows(cachedAttention(heads(qkv[0]), keys, values), m_proj);
    }

    torch::nn::Linear &projection() { return m_proj; }

private:
    std::int64_t m_nHead;
    double m_dropout;
    torch::nn::Linear m_attn;
    torch::nn::Linear m_proj;
};
TORCH_MODULE(CausalSelfAttention);

class MlpImpl : public torch::nn::Module {
public:
    explicit MlpImpl(const ModelConfig &c)
        : m_dropout(c.dropout)
        , m_fc(register_module("c_fc", makeLinear(c.nEmbd, 4 * c.nEmbd, c.bias)))
        , m_proj(register_module("c_proj", makeLinear(4 * c.nEmbd, c.nEmbd, c.bias)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        return dropoutIfTraining(linearRows(fastGelu(linearRows(x, m_fc)), m_proj), m_dropout, is_training());
    }

    torch::nn::Linear &projection() { return m_proj; }

private:
    double m_dropout;
    torch::nn::Linear m_fc;
    torch::nn::Linear m_proj;
};
TORCH_MODULE(Mlp);

class GptEmbedding : public EmbeddingStage {
public:
    explicit GptEmbedding(const ModelConfig &c)
        : m_dropout(c.dropout)
        , m_wte(register_module("wte", torch::nn::Embedding(c.vocabSize, c.nEmbd)))
        , m_wpe(register_module("wpe", torch::nn::Embedding(c.blockSize, c.nEmbd)))
    {
    }

    torch::Tensor forward(const torch::Tensor &tokens) override
    {
        const torch::Tensor positions = torch::arange(tokens.size(1), tokens.options().dtype(torch::kLong));
        return dropoutIfTraining(m_wte->forward(tokens) + m_wpe->forward(positions), m_dropout, is_training());
    }

    torch::Tensor forwardCached(const torch::Tensor &tokens, KvCache &cache) override
    {
        const torch::Tensor positions =
            torch::arange(cache.length(), cache.length() + tokens.size(1), tokens.options().dtype(torch::kLong));
        return m_wte->forward(tokens) + m_wpe->forward(positions);
    }

    std::string parameterName(const std::string &key) const override { return "transformer." + key; }
    torch::Tensor tokenEmbedding() const override { return m_wte->weight; }

private:
    double m_dropout;
    torch::nn::Embedding m_wte;
    torch::nn::Embedding m_wpe;
};

class GptBlock : public StageImpl {
public:
    GptBlock(const ModelConfig &c, int index)
        : m_index(index)
        , m_ln1(register_module("ln_1", LayerNorm(c.nEmbd, c.bias)))
        , m_attn(register_module("attn", CausalSelfAttention(c)))
        , m_ln2(register_module("ln_2", LayerNorm(c.nEmbd, c.bias)))
        , m_mlp(register_module("mlp", Mlp(c)))
    {
    }

    torch::Tensor forward(const torch::Tensor &input) override
    {
        const torch::Tensor x = input + m_attn->forward(m_ln1->forward(input));
        return x + m_mlp->forward(m_ln2->forward(x));
    }

    torch::Tensor forwardCached(const torch::Tensor &input, KvCache &cache) override
    {
        const torch::Tensor x = input + m_attn->forwardCached(m_ln1->forward(input), cache, m_index);
        return x + m_mlp->forward(m_ln2->forward(x));
    }

    std::string parameterName(const std::string &key) const override
    {
        return "transformer.h." + std::to_string(m_index) + "." + key;
    }

    std::vector<torch::Tensor> residualProjections() override
    {
        return {m_attn->projection()->weight, m_mlp->projection()->weight};
    }

private:
    int m_index;
    LayerNorm m_ln1;
    CausalSelfAttention m_attn;
    LayerNorm m_ln2;
    Mlp m_mlp;
};

// Final LayerNorm and the output head. The head's weight is the token embedding (tied), a
// shared tensor rather than a parameter of this stage, so it is stored and updated once; without
// the embedding stage, its own copy, a parameter under the tied name.
class GptHead : public HeadStage {
public:
    GptHead(const ModelConfig &c, const torch::Tensor &tiedWeight)
        : m_lnF(register_module("ln_f", LayerNorm(c.nEmbd, c.bias)))
    {
        if (tiedWeight.defined()) {
            m_weight = tiedWeight;
        } else {
            m_ownWeight = register_module("wte", torch::nn::Embedding(c.vocabSize, c.nEmbd));
            m_weight = m_ownWeight->weight;
        }
    }

    torch::Tensor forward(const torch::Tensor &x) override { return linearRows(m_lnF->forward(x), m_weight); }
    std::string parameterName(const std::string &key) const override { return "transformer." + key; }

    std::vector<std::pair<std::string, torch::Tensor>> weights() override
    {
        std::vector<std::pair<std::string, torch::Tensor>> named = StageImpl::weights();
        if (!m_ownWeight)
            named.emplace_back("transformer.wte.weight", m_weight);
        return named;
    }

    void untie() override
    {
        if (!m_ownWeight)
            m_weight = m_weight.detach().clone().requires_grad_(true);
    }

private:
    LayerNorm m_lnF;
    torch::nn::Embedding m_ownWeight{nullptr};
    torch::Tensor m_weight;
};

} // namespace

std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config)
{
    return std::make_shared<GptEmbedding>(config);
}

std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index)
{
    return std::make_shared<GptBlock>(config, index);
}

std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight)
{
    return std::make_shared<GptHead>(config, tiedWeight);
}

} // namespace swarmtrain::gpt
