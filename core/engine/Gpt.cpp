#include "Gpt.h"

#include "kernels/CpuKernels.h"
#include "kernels/ParallelFor.h"

#include <cmath>
#include <dlfcn.h>
#include <limits>
#include <map>
#include <torch/version.h>

namespace swarmtrain {

namespace {

class GeluFunction : public torch::autograd::Function<GeluFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &input)
    {
        const torch::Tensor x = input.contiguous();
        ctx->save_for_backward({x});
        torch::Tensor y = torch::empty_like(x);
        const float *in = x.data_ptr<float>();
        float *out = y.data_ptr<float>();
        kernels::parallelFor(x.numel(), 1 << 14, [&](std::int64_t begin, std::int64_t end) {
            kernels::geluForward(in + begin, out + begin, end - begin);
        });
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const torch::Tensor x = ctx->get_saved_variables()[0];
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gradX = torch::empty_like(x);
        const float *in = x.data_ptr<float>();
        const float *gy = gradY.data_ptr<float>();
        float *gx = gradX.data_ptr<float>();
        kernels::parallelFor(x.numel(), 1 << 14, [&](std::int64_t begin, std::int64_t end) {
            kernels::geluBackward(in + begin, gy + begin, gx + begin, end - begin);
        });
        return {gradX};
    }
};

class CausalSoftmaxFunction : public torch::autograd::Function<CausalSoftmaxFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &scores, double scale)
    {
        const torch::Tensor in = scores.contiguous();
        torch::Tensor probs = torch::empty_like(in);
        const std::int64_t t = in.size(-1), rows = in.numel() / t;
        const float *src = in.data_ptr<float>();
        float *dst = probs.data_ptr<float>();
        // Chunks of whole [t, t] matrices, so each row's position in its matrix is r mod t.
        kernels::parallelFor(rows / t, 16, [&](std::int64_t begin, std::int64_t end) {
            kernels::causalSoftmaxForward(src + begin * t * t, dst + begin * t * t, (end - begin) * t, t, float(scale));
        });
        ctx->save_for_backward({probs});
        ctx->saved_data["scale"] = scale;
        return probs;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const torch::Tensor probs = ctx->get_saved_variables()[0];
        const torch::Tensor gradProbs = gradOutputs[0].contiguous();
        const double scale = ctx->saved_data["scale"].toDouble();
        torch::Tensor gradScores = torch::empty_like(probs);
        const std::int64_t t = probs.size(-1), rows = probs.numel() / t;
        const float *p = probs.data_ptr<float>();
        const float *gp = gradProbs.data_ptr<float>();
        float *gs = gradScores.data_ptr<float>();
        kernels::parallelFor(rows / t, 16, [&](std::int64_t begin, std::int64_t end) {
            kernels::causalSoftmaxBackward(p + begin * t * t, gp + begin * t * t, gs + begin * t * t,
                                           (end - begin) * t, t, float(scale));
        });
        return {gradScores, torch::Tensor()};
    }
};

// softmax(scale * scores) over the last axis with future positions masked out.
torch::Tensor causalSoftmax(const torch::Tensor &scores, double scale)
{
    if (scores.device().is_cpu() && scores.scalar_type() == torch::kFloat)
        return CausalSoftmaxFunction::apply(scores, scale);
    const std::int64_t t = scores.size(-1);
    const torch::Tensor future = torch::ones({t, t}, scores.options().dtype(torch::kBool)).triu(1);
    return torch::softmax((scores * scale).masked_fill(future, -std::numeric_limits<float>::infinity()), -1);
}

// The CBLAS sgemm of the BLAS LibTorch is linked to (OpenBLAS on Debian), found at run time:
// for the many small per-head products ATen's bmm costs more in dispatch than in arithmetic.
using CblasSgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                            int lda, const float *b, int ldb, float beta, float *c, int ldc);

CblasSgemm cblasSgemm()
{
    static const auto function = reinterpret_cast<CblasSgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
    return function;
}

// C = op(A) op(B) on row-major matrices.
void gemmRowMajor(bool transA, bool transB, std::int64_t m, std::int64_t n, std::int64_t k, const float *a,
                  std::int64_t lda, const float *b, std::int64_t ldb, float *c, std::int64_t ldc)
{
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    cblasSgemm()(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans, int(m), int(n), int(k), 1.f, a,
                 int(lda), b, int(ldb), 0.f, c, int(ldc));
}

// Causal self-attention core on the fused projection: qkv [B, T, 3C] -> y [B, T, C]. Each
// head's Q, K, V are read in place from qkv (row stride 3C) and y is written in place (row
// stride C), so no permute or transpose copies; scale, mask and softmax are one kernel.
class CausalAttentionFunction : public torch::autograd::Function<CausalAttentionFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &qkvInput,
                                 std::int64_t nHead)
    {
        const torch::Tensor qkv = qkvInput.contiguous();
        const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3, hs = C / nHead;
        const double scale = 1.0 / std::sqrt(double(hs));
        torch::Tensor probs = torch::empty({B, nHead, T, T}, qkv.options());
        torch::Tensor y = torch::empty({B, T, C}, qkv.options());
        const float *base = qkv.data_ptr<float>();
        float *probsBase = probs.data_ptr<float>();
        float *yBase = y.data_ptr<float>();
        // The per-head products are too small for BLAS to split, so the heads are split instead.
        kernels::parallelFor(B * nHead, 4, [&](std::int64_t begin, std::int64_t end) {
            std::vector<float> scores(std::size_t(T * T));
            for (std::int64_t bh = begin; bh < end; ++bh) {
                const std::int64_t b = bh / nHead, h = bh % nHead;
                const float *q = base + b * T * 3 * C + h * hs;
                const float *k = q + C;
                const float *v = q + 2 * C;
                float *p = probsBase + bh * T * T;
                gemmRowMajor(false, true, T, T, hs, q, 3 * C, k, 3 * C, scores.data(), T);
                kernels::causalSoftmaxForward(scores.data(), p, T, T, float(scale));
                gemmRowMajor(false, false, T, hs, T, p, T, v, 3 * C, yBase + b * T * C + h * hs, C);
            }
        });
        ctx->save_for_backward({qkv, probs});
        ctx->saved_data["nHead"] = nHead;
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &qkv = saved[0], &probs = saved[1];
        const std::int64_t nHead = ctx->saved_data["nHead"].toInt();
        const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3, hs = C / nHead;
        const double scale = 1.0 / std::sqrt(double(hs));
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gradQkv = torch::empty_like(qkv);
        const float *base = qkv.data_ptr<float>();
        const float *probsBase = probs.data_ptr<float>();
        const float *gradYBase = gradY.data_ptr<float>();
        float *gradBase = gradQkv.data_ptr<float>();
        kernels::parallelFor(B * nHead, 4, [&](std::int64_t begin, std::int64_t end) {
            std::vector<float> gradProbs(std::size_t(T * T)), gradScores(std::size_t(T * T));
            float *gp = gradProbs.data();
            float *gs = gradScores.data();
            for (std::int64_t bh = begin; bh < end; ++bh) {
                const std::int64_t b = bh / nHead, h = bh % nHead;
                const float *q = base + b * T * 3 * C + h * hs;
                const float *k = q + C;
                const float *v = q + 2 * C;
                const float *p = probsBase + bh * T * T;
                const float *gy = gradYBase + b * T * C + h * hs;
                float *gq = gradBase + b * T * 3 * C + h * hs;
                float *gk = gq + C;
                float *gv = gq + 2 * C;
                gemmRowMajor(false, true, T, T, hs, gy, C, v, 3 * C, gp, T);   // dP = dY V^T
                gemmRowMajor(true, false, T, hs, T, p, T, gy, C, gv, 3 * C);   // dV = P^T dY
                kernels::causalSoftmaxBackward(p, gp, gs, T, T, float(scale));      // dS (scaled)
                gemmRowMajor(false, false, T, hs, T, gs, T, k, 3 * C, gq, 3 * C); // dQ = dS K
                gemmRowMajor(true, false, T, hs, T, gs, T, q, 3 * C, gk, 3 * C);  // dK = dS^T Q
            }
        });
        return {gradQkv, torch::Tensor()};
    }
};

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

class CausalSelfAttentionImpl : public torch::nn::Module {
public:
    explicit CausalSelfAttentionImpl(const GptConfig &c)
        : m_nHead(c.nHead)
        , m_dropout(c.dropout)
        , m_attn(register_module("c_attn", makeLinear(c.nEmbd, 3 * c.nEmbd, c.bias)))
        , m_proj(register_module("c_proj", makeLinear(c.nEmbd, c.nEmbd, c.bias)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        const double attentionDropout = is_training() ? m_dropout : 0.0;
        return dropoutIfTraining(m_proj->forward(causalSelfAttention(m_attn->forward(x), m_nHead, attentionDropout)));
    }

    torch::nn::Linear &projection() { return m_proj; }

private:
    torch::Tensor dropoutIfTraining(const torch::Tensor &x)
    {
        return m_dropout > 0.0 ? torch::dropout(x, m_dropout, is_training()) : x;
    }

    std::int64_t m_nHead;
    double m_dropout;
    torch::nn::Linear m_attn;
    torch::nn::Linear m_proj;
};
TORCH_MODULE(CausalSelfAttention);

class MlpImpl : public torch::nn::Module {
public:
    explicit MlpImpl(const GptConfig &c)
        : m_dropout(c.dropout)
        , m_fc(register_module("c_fc", makeLinear(c.nEmbd, 4 * c.nEmbd, c.bias)))
        , m_proj(register_module("c_proj", makeLinear(4 * c.nEmbd, c.nEmbd, c.bias)))
    {
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        torch::Tensor out = m_proj->forward(fastGelu(m_fc->forward(x)));
        return m_dropout > 0.0 ? torch::dropout(out, m_dropout, is_training()) : out;
    }

    torch::nn::Linear &projection() { return m_proj; }

private:
    double m_dropout;
    torch::nn::Linear m_fc;
    torch::nn::Linear m_proj;
};
TORCH_MODULE(Mlp);

class EmbeddingStage : public StageImpl {
public:
    explicit EmbeddingStage(const GptConfig &c)
        : m_dropout(c.dropout)
        , m_wte(register_module("wte", torch::nn::Embedding(c.vocabSize, c.nEmbd)))
        , m_wpe(register_module("wpe", torch::nn::Embedding(c.blockSize, c.nEmbd)))
    {
    }

    torch::Tensor forward(const torch::Tensor &tokens) override
    {
        const torch::Tensor positions = torch::arange(tokens.size(1), tokens.options().dtype(torch::kLong));
        torch::Tensor x = m_wte->forward(tokens) + m_wpe->forward(positions);
        return m_dropout > 0.0 ? torch::dropout(x, m_dropout, is_training()) : x;
    }

    std::string parameterPrefix() const override { return "transformer."; }
    torch::Tensor tokenEmbedding() const { return m_wte->weight; }

private:
    double m_dropout;
    torch::nn::Embedding m_wte;
    torch::nn::Embedding m_wpe;
};

class BlockStage : public StageImpl {
public:
    BlockStage(const GptConfig &c, int index)
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

    std::string parameterPrefix() const override { return "transformer.h." + std::to_string(m_index) + "."; }

    std::vector<torch::Tensor> residualProjections()
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
// shared tensor rather than a parameter of this stage, so it is stored and updated once.
class HeadStage : public StageImpl {
public:
    HeadStage(const GptConfig &c, torch::Tensor tiedWeight)
        : m_lnF(register_module("ln_f", LayerNorm(c.nEmbd, c.bias)))
        , m_weight(std::move(tiedWeight))
    {
    }

    // Without the embedding stage: its own copy of the token embedding, a parameter of this
    // stage under the tied name.
    explicit HeadStage(const GptConfig &c)
        : m_lnF(register_module("ln_f", LayerNorm(c.nEmbd, c.bias)))
        , m_ownWeight(register_module("wte", torch::nn::Embedding(c.vocabSize, c.nEmbd)))
        , m_weight(m_ownWeight->weight)
    {
    }

    torch::Tensor forward(const torch::Tensor &x) override { return torch::linear(m_lnF->forward(x), m_weight); }
    std::string parameterPrefix() const override { return "transformer."; }

    std::vector<std::pair<std::string, torch::Tensor>> weights() override
    {
        std::vector<std::pair<std::string, torch::Tensor>> named = StageImpl::weights();
        if (!m_ownWeight)
            named.emplace_back("transformer.wte.weight", m_weight);
        return named;
    }

    void untie()
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

torch::Tensor fastGelu(const torch::Tensor &x)
{
    if (x.device().is_cpu() && x.scalar_type() == torch::kFloat)
        return GeluFunction::apply(x);
    return torch::gelu(x);
}

torch::Tensor causalSelfAttention(const torch::Tensor &qkv, std::int64_t nHead, double dropout)
{
    if (qkv.device().is_cpu() && qkv.scalar_type() == torch::kFloat && dropout == 0.0 && cblasSgemm())
        return CausalAttentionFunction::apply(qkv, nHead);

    const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3, hs = C / nHead;
    const torch::Tensor heads = qkv.view({B, T, 3, nHead, hs}).permute({2, 0, 3, 1, 4});
#if TORCH_VERSION_MAJOR >= 2
    // LibTorch 2 has the fused scaled-dot-product attention (flash or memory-efficient kernels on
    // GPUs); Debian's 1.13 does not, and takes the composite below.
    return at::scaled_dot_product_attention(heads[0], heads[1], heads[2], {}, dropout, /*is_causal=*/true)
        .transpose(1, 2)
        .reshape({B, T, C});
#endif
    const torch::Tensor q = heads[0].reshape({B * nHead, T, hs});
    const torch::Tensor k = heads[1].reshape({B * nHead, T, hs});
    const torch::Tensor v = heads[2].reshape({B * nHead, T, hs});
    torch::Tensor att = causalSoftmax(torch::bmm(q, k.transpose(1, 2)), 1.0 / std::sqrt(double(hs)));
    if (dropout > 0.0)
        att = torch::dropout(att, dropout, true);
    return torch::bmm(att, v).view({B, nHead, T, hs}).transpose(1, 2).reshape({B, T, C});
}

std::vector<std::pair<std::string, torch::Tensor>> StageImpl::weights()
{
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto &item : named_parameters(/*recurse=*/true))
        named.emplace_back(parameterPrefix() + item.key(), item.value());
    return named;
}

torch::Tensor StageRun::backward(const torch::Tensor &gradOutput)
{
    output.backward(gradOutput);
    return input.requires_grad() ? input.grad() : torch::Tensor();
}

GptImpl::GptImpl(const GptConfig &config)
    : GptImpl(config, 0, config.nLayer + 1)
{
}

GptImpl::GptImpl(const GptConfig &config, int first, int last)
    : m_config(config)
    , m_first(first)
{
    TORCH_CHECK(0 <= first && first <= last && last <= config.nLayer + 1, "stage range out of bounds");
    std::shared_ptr<EmbeddingStage> embedding;
    if (first == 0) {
        embedding = std::make_shared<EmbeddingStage>(config);
        m_stages.push_back(register_module("embedding", embedding));
    }
    std::vector<torch::Tensor> residualProjections;
    for (int i = std::max(first, 1) - 1; i < std::min(last, config.nLayer); ++i) {
        auto block = std::make_shared<BlockStage>(config, i);
        for (torch::Tensor &w : block->residualProjections())
            residualProjections.push_back(w);
        m_stages.push_back(register_module("block" + std::to_string(i), block));
    }
    if (last == config.nLayer + 1) {
        auto head = embedding ? std::make_shared<HeadStage>(config, embedding->tokenEmbedding())
                              : std::make_shared<HeadStage>(config);
        m_stages.push_back(register_module("head", head));
    }

    // nanoGPT's initialisation: N(0, 0.02) weights, zero biases, and residual projections
    // scaled by 1/sqrt(2 * n_layer) (GPT-2).
    torch::NoGradGuard noGrad;
    for (auto &[name, p] : namedParameters()) {
        if (name.ends_with(".bias"))
            p.zero_();
        else if (p.dim() >= 2)
            p.normal_(0.0, 0.02);
    }
    for (torch::Tensor &w : residualProjections)
        w.normal_(0.0, 0.02 / std::sqrt(2.0 * config.nLayer));
}

void GptImpl::initializeAsWhole(std::uint64_t seed)
{
    struct Drawn {
        std::string name;
        std::vector<std::int64_t> sizes;
    };
    torch::manual_seed(seed);
    // The whole model's stages in the constructor's order: building each draws what the
    // constructor's does (the modules' default initialisation); their parameters are noted in
    // namedParameters() order, and the blocks' residual projections after them.
    std::vector<Drawn> parameters, residual;
    const torch::Tensor noTiedWeight;
    for (int i = 0; i <= m_config.nLayer + 1; ++i) {
        std::shared_ptr<StageImpl> stage;
        std::vector<torch::Tensor> projections;
        if (i == 0) {
            stage = std::make_shared<EmbeddingStage>(m_config);
        } else if (i <= m_config.nLayer) {
            auto block = std::make_shared<BlockStage>(m_config, i - 1);
            projections = block->residualProjections();
            stage = block;
        } else {
            stage = std::make_shared<HeadStage>(m_config, noTiedWeight);
        }
        for (const auto &item : stage->named_parameters(/*recurse=*/true)) {
            Drawn drawn{stage->parameterPrefix() + item.key(), item.value().sizes().vec()};
            for (const torch::Tensor &projection : projections) {
                if (projection.is_same(item.value()))
                    residual.push_back(drawn);
            }
            parameters.push_back(std::move(drawn));
        }
    }

    // The constructor's initialisation pass, drawn into this span's tensor where it has one.
    std::map<std::string, torch::Tensor> mine;
    for (auto &[name, p] : namedParameters())
        mine.emplace(name, p);
    torch::NoGradGuard noGrad;
    const auto draw = [&](const Drawn &drawn, double std) {
        const auto it = mine.find(drawn.name);
        (it != mine.end() ? it->second : torch::empty(drawn.sizes, torch::kFloat)).normal_(0.0, std);
    };
    for (const Drawn &drawn : parameters) {
        if (drawn.name.ends_with(".bias")) {
            if (const auto it = mine.find(drawn.name); it != mine.end())
                it->second.zero_();
        } else if (drawn.sizes.size() >= 2) {
            draw(drawn, 0.02);
        }
    }
    for (const Drawn &drawn : residual)
        draw(drawn, 0.02 / std::sqrt(2.0 * m_config.nLayer));
}

torch::Tensor GptImpl::forward(const torch::Tensor &tokens) { return forwardStages(0, m_config.nLayer + 1, tokens); }

torch::Tensor GptImpl::forwardStages(int first, int last, torch::Tensor input)
{
    TORCH_CHECK(first >= firstStage() && first <= last && last <= lastStage(), "stage range out of bounds");
    for (int i = first; i <= last; ++i) {
        if (m_gate)
            m_gate();
        input = stage(i).forward(input);
        // The same gate before this stage's backward.
        if (m_gate && input.requires_grad())
            input.register_hook([gate = m_gate](const torch::Tensor &) { gate(); });
    }
    return input;
}

StageRun GptImpl::runStages(int first, int last, const torch::Tensor &input)
{
    StageRun run;
    run.input = input.is_floating_point() ? input.detach().requires_grad_(true) : input;
    run.output = forwardStages(first, last, run.input);
    return run;
}

std::vector<std::pair<std::string, torch::Tensor>> GptImpl::namedParameters()
{
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto &stage : m_stages) {
        for (const auto &item : stage->named_parameters(/*recurse=*/true))
            named.emplace_back(stage->parameterPrefix() + item.key(), item.value());
    }
    return named;
}

void GptImpl::untieHead()
{
    if (lastStage() == m_config.nLayer + 1)
        static_cast<HeadStage &>(*m_stages.back()).untie();
}

torch::Tensor GptImpl::loss(const torch::Tensor &logits, const torch::Tensor &targets)
{
    return torch::cross_entropy_loss(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
}

} // namespace swarmtrain
