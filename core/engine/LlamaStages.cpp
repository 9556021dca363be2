// The Llama family as engine stages, with Hugging Face's LlamaForCausalLM parameter names:
// model.embed_tokens, model.layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
// post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm and lm_head (untied only).
// Rotary embeddings use the "rotate half" layout transformers expects of those weights.
#include "Attention.h"
#include "KvCache.h"
#include "Layers.h"
#include "Stages.h"

namespace swarmtrain::llama {

namespace {

torch::nn::Linear makeLinear(std::int64_t in, std::int64_t out)
{
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

class RmsNormImpl : public torch::nn::Module {
public:
    RmsNormImpl(int width, double eps)
        : m_weight(register_parameter("weight", torch::ones({width})))
        , m_eps(eps)
    {
    }

    torch::Tensor forward(const torch::Tensor &x) { return rmsNorm(x, m_weight, m_eps); }

private:
    torch::Tensor m_weight;
    double m_eps;
};
TORCH_MODULE(RmsNorm);

class AttentionImpl : public torch::nn::Module {
public:
    explicit AttentionImpl(const ModelConfig &c)
        : m_nHead(c.nHead)
        , m_nKvHead(c.nKvHead)
        , m_rotary(RotaryTable::get(c.headDim(), c.ropeTheta, c.blockSize))
        , m_q(register_module("q_proj", makeLinear(c.nEmbd, std::int64_t(c.nHead) * c.headDim())))
        , m_k(register_module("k_proj", makeLinear(c.nEmbd, std::int64_t(c.nKvHead) * c.headDim())))
        , m_v(register_module("v_proj", makeLinear(c.nEmbd, std::int64_t(c.nKvHead) * c.headDim())))
        , m_o(register_module("o_proj", makeLinear(std::int64_t(c.nHead) * c.headDim(), c.nEmbd)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        const torch::Tensor q = applyRotary(linearRows(x, m_q), *m_rotary);
        const torch::Tensor k = applyRotary(linearRows(x, m_k), *m_rotary);
        return linearRows(groupedQueryAttention(q, k, linearRows(x, m_v), m_nHead, m_nKvHead), m_o);
    }

    // Block `block`'s attention for new positions after the cache's, rotated by their positions.
    torch::Tensor forwardCached(const torch::Tensor &x, KvCache &cache, int block)
    {
        const std::int64_t B = x.size(0), T = x.size(1), hs = m_rotary->headSize();
        const auto heads = [&](const torch::Tensor &t, std::int64_t n) { return t.view({B, T, n, hs}).transpose(1, 2); };
        const torch::Tensor q = applyRotary(linearRows(x, m_q), *m_rotary, cache.length());
        const torch::Tensor k = applyRotary(linearRows(x, m_k), *m_rotary, cache.length());
        const auto [keys, values] = cache.append(block, heads(k, m_nKvHead), heads(linearRows(x, m_v), m_nKvHead));
        return linearRows(cachedAttention(heads(q, m_nHead), keys, values), m_o);
    }

private:
    std::int64_t m_nHead;
    std::int64_t m_nKvHead;
    std::shared_ptr<const RotaryTable> m_rotary;
    torch::nn::Linear m_q, m_k, m_v, m_o;
};
TORCH_MODULE(Attention);

class MlpImpl : public torch::nn::Module {
public:
    explicit MlpImpl(const ModelConfig &c)
        : m_gate(register_module("gate_proj", makeLinear(c.nEmbd, c.intermediateSize)))
        , m_up(register_module("up_proj", makeLinear(c.nEmbd, c.intermediateSize)))
        , m_down(register_module("down_proj", makeLinear(c.intermediateSize, c.nEmbd)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        return linearRows(torch::silu(linearRows(x, m_gate)) * linearRows(x, m_up), m_down);
    }

private:
    torch::nn::Linear m_gate, m_up, m_down;
};
TORCH_MODULE(Mlp);

class LlamaEmbedding : public EmbeddingStage {
public:
    explicit LlamaEmbedding(const ModelConfig &c)
        : m_tokens(register_module("embed_tokens", torch::nn::Embedding(c.vocabSize, c.nEmbd)))
    {
    }

    torch::Tensor forward(const torch::Tensor &tokens) override { return m_tokens->forward(tokens); }
    std::string parameterName(const std::string &key) const override { return "model." + key; }
    torch::Tensor tokenEmbedding() const override { return m_tokens->weight; }

private:
    torch::nn::Embedding m_tokens;
};

class LlamaBlock : public StageImpl {
public:
    LlamaBlock(const ModelConfig &c, int index)
        : m_index(index)
        , m_inputNorm(register_module("input_layernorm", RmsNorm(c.nEmbd, c.rmsNormEps)))
        , m_attention(register_module("self_attn", Attention(c)))
        , m_postNorm(register_module("post_attention_layernorm", RmsNorm(c.nEmbd, c.rmsNormEps)))
        , m_mlp(register_module("mlp", Mlp(c)))
    {
    }

    torch::Tensor forward(const torch::Tensor &input) override
    {
        const torch::Tensor x = input + m_attention->forward(m_inputNorm->forward(input));
        return x + m_mlp->forward(m_postNorm->forward(x));
    }

    torch::Tensor forwardCached(const torch::Tensor &input, KvCache &cache) override
    {
        const torch::Tensor x = input + m_attention->forwardCached(m_inputNorm->forward(input), cache, m_index);
        return x + m_mlp->forward(m_postNorm->forward(x));
    }

    std::string parameterName(const std::string &key) const override
    {
        return "model.layers." + std::to_string(m_index) + "." + key;
    }

private:
    int m_index;
    RmsNorm m_inputNorm;
    Attention m_attention;
    RmsNorm m_postNorm;
    Mlp m_mlp;
};

// model.norm and the output head: lm_head.weight when untied; when tied, the embedding stage's
// tensor, or without that stage its own copy under model.embed_tokens.weight.
class LlamaHead : public HeadStage {
public:
    LlamaHead(const ModelConfig &c, const torch::Tensor &tiedWeight)
        : m_norm(register_module("norm", RmsNorm(c.nEmbd, c.rmsNormEps)))
    {
        if (!c.tieEmbeddings) {
            m_own = register_module("lm_head", torch::nn::Embedding(c.vocabSize, c.nEmbd));
            m_weight = m_own->weight;
        } else if (tiedWeight.defined()) {
            m_weight = tiedWeight;
        } else {
            m_own = register_module("embed_tokens", torch::nn::Embedding(c.vocabSize, c.nEmbd));
            m_weight = m_own->weight;
        }
    }

    torch::Tensor forward(const torch::Tensor &x) override { return linearRows(m_norm->forward(x), m_weight); }

    std::string parameterName(const std::string &key) const override
    {
        return key.starts_with("lm_head.") ? key : "model." + key;
    }

    std::vector<std::pair<std::string, torch::Tensor>> weights() override
    {
        std::vector<std::pair<std::string, torch::Tensor>> named = StageImpl::weights();
        if (!m_own)
            named.emplace_back("model.embed_tokens.weight", m_weight);
        return named;
    }

    void untie() override
    {
        if (!m_own)
            m_weight = m_weight.detach().clone().requires_grad_(true);
    }

private:
    RmsNorm m_norm;
    torch::nn::Embedding m_own{nullptr}; // an Embedding's [vocab, width] weight is the head's layout too
    torch::Tensor m_weight;
};

} // namespace

std::shared_ptr<EmbeddingStage> makeEmbeddingStage(const ModelConfig &config)
{
    return std::make_shared<LlamaEmbedding>(config);
}

std::shared_ptr<StageImpl> makeBlockStage(const ModelConfig &config, int index)
{
    return std::make_shared<LlamaBlock>(config, index);
}

std::shared_ptr<HeadStage> makeHeadStage(const ModelConfig &config, const torch::Tensor &tiedWeight)
{
    return std::make_shared<LlamaHead>(config, tiedWeight);
}

} // namespace swarmtrain::llama
