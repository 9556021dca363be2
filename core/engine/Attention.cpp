#include "Attention.h"

#include "kernels/CpuKernels.h"
#include "kernels/ParallelFor.h"

#include <cmath>
#include <dlfcn.h>
#include <limits>
#include <torch/version.h>

namespace swarmtrain {

namespace {

// The CBLAS sgemm of the BLAS LibTorch is linked to (OpenBLAS on Debian), found at run time:
// for the many small per-head products ATen's bmm costs more in dispatch than in arithmetic.
using CblasSgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha, const float *a,
                            int lda, const float *b, int ldb, float beta, float *c, int ldc);

CblasSgemm cblasSgemm()
{
    static const auto function = reinterpret_cast<CblasSgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
    return function;
}

// C = op(A) op(B) + beta C on row-major matrices.
void gemmRowMajor(bool transA, bool transB, std::int64_t m, std::int64_t n, std::int64_t k, const float *a,
                  std::int64_t lda, const float *b, std::int64_t ldb, float *c, std::int64_t ldc, float beta = 0.f)
{
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    cblasSgemm()(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans, int(m), int(n), int(k), 1.f, a,
                 int(lda), b, int(ldb), beta, c, int(ldc));
}

// Where the heads of one of Q, K, V (or their gradients) sit: token t of batch row b starts at
// base + (b T + t) rowStride, head h at h x headSize from there.
template <typename Pointer>
struct Heads {
    Pointer base;
    std::int64_t rowStride;

    Pointer head(std::int64_t b, std::int64_t T, std::int64_t h, std::int64_t hs) const
    {
        return base + b * T * rowStride + h * hs;
    }
};

struct AttentionShape {
    std::int64_t B, T, nHead, nKvHead, hs;
    std::int64_t group() const { return nHead / nKvHead; }
    double scale() const { return 1.0 / std::sqrt(double(hs)); }
};

// The kernel both models share. Work is split by (batch row, key/value head), so the query
// heads that share a key/value head run on one thread and add their K and V gradients in order.
void attentionForward(const AttentionShape &s, Heads<const float *> q, Heads<const float *> k, Heads<const float *> v,
                      float *probsBase, Heads<float *> y)
{
    const std::int64_t T = s.T, hs = s.hs;
    kernels::parallelFor(s.B * s.nKvHead, std::max<std::int64_t>(1, 4 / s.group()), [&](std::int64_t begin, std::int64_t end) {
        std::vector<float> scores(std::size_t(T * T));
        for (std::int64_t bg = begin; bg < end; ++bg) {
            const std::int64_t b = bg / s.nKvHead, g = bg % s.nKvHead;
            const float *kg = k.head(b, T, g, hs);
            const float *vg = v.head(b, T, g, hs);
            for (std::int64_t h = g * s.group(); h < (g + 1) * s.group(); ++h) {
                float *p = probsBase + (b * s.nHead + h) * T * T;
                gemmRowMajor(false, true, T, T, hs, q.head(b, T, h, hs), q.rowStride, kg, k.rowStride, scores.data(), T);
                kernels::causalSoftmaxForward(scores.data(), p, T, T, float(s.scale()));
                gemmRowMajor(false, false, T, hs, T, p, T, vg, v.rowStride, y.head(b, T, h, hs), y.rowStride);
            }
        }
    });
}

void attentionBackward(const AttentionShape &s, Heads<const float *> q, Heads<const float *> k, Heads<const float *> v,
                       const float *probsBase, Heads<const float *> gy, Heads<float *> gq, Heads<float *> gk,
                       Heads<float *> gv)
{
    const std::int64_t T = s.T, hs = s.hs;
    const float scale = float(s.scale());
    kernels::parallelFor(s.B * s.nKvHead, std::max<std::int64_t>(1, 4 / s.group()), [&](std::int64_t begin, std::int64_t end) {
        std::vector<float> gradProbs(std::size_t(T * T)), gradScores(std::size_t(T * T));
        float *gp = gradProbs.data();
        float *gs = gradScores.data();
        for (std::int64_t bg = begin; bg < end; ++bg) {
            const std::int64_t b = bg / s.nKvHead, g = bg % s.nKvHead;
            const float *kg = k.head(b, T, g, hs);
            const float *vg = v.head(b, T, g, hs);
            float *gkg = gk.head(b, T, g, hs);
            float *gvg = gv.head(b, T, g, hs);
            for (std::int64_t h = g * s.group(); h < (g + 1) * s.group(); ++h) {
                const float beta = h == g * s.group() ? 0.f : 1.f; // the group's first head writes, the rest add
                const float *qh = q.head(b, T, h, hs);
                const float *p = probsBase + (b * s.nHead + h) * T * T;
                const float *gyh = gy.head(b, T, h, hs);
                gemmRowMajor(false, true, T, T, hs, gyh, gy.rowStride, vg, v.rowStride, gp, T);                 // dP = dY V^T
                gemmRowMajor(true, false, T, hs, T, p, T, gyh, gy.rowStride, gvg, gv.rowStride, beta);         // dV += P^T dY
                kernels::causalSoftmaxBackward(p, gp, gs, T, T, scale);                                        // dS (scaled)
                gemmRowMajor(false, false, T, hs, T, gs, T, kg, k.rowStride, gq.head(b, T, h, hs), gq.rowStride); // dQ = dS K
                gemmRowMajor(true, false, T, hs, T, gs, T, qh, q.rowStride, gkg, gk.rowStride, beta);         // dK += dS^T Q
            }
        }
    });
}

// GPT: Q, K, V read in place from the fused projection qkv [B, T, 3C] (row stride 3C), y
// written in place (row stride C), and the gradient written into one [B, T, 3C] tensor.
class FusedAttentionFunction : public torch::autograd::Function<FusedAttentionFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &qkvInput, std::int64_t nHead)
    {
        const torch::Tensor qkv = qkvInput.contiguous();
        const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3;
        const AttentionShape s{B, T, nHead, nHead, C / nHead};
        torch::Tensor probs = torch::empty({B, nHead, T, T}, qkv.options());
        torch::Tensor y = torch::empty({B, T, C}, qkv.options());
        const float *base = qkv.data_ptr<float>();
        attentionForward(s, {base, 3 * C}, {base + C, 3 * C}, {base + 2 * C, 3 * C}, probs.data_ptr<float>(),
                         {y.data_ptr<float>(), C});
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
        const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3;
        const AttentionShape s{B, T, nHead, nHead, C / nHead};
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gradQkv = torch::empty_like(qkv);
        const float *base = qkv.data_ptr<float>();
        float *gradBase = gradQkv.data_ptr<float>();
        attentionBackward(s, {base, 3 * C}, {base + C, 3 * C}, {base + 2 * C, 3 * C}, probs.data_ptr<float>(),
                          {gradY.data_ptr<float>(), C}, {gradBase, 3 * C}, {gradBase + C, 3 * C},
                          {gradBase + 2 * C, 3 * C});
        return {gradQkv, torch::Tensor()};
    }
};

// Llama: separate Q [B, T, nHead hs], K and V [B, T, nKvHead hs].
class GroupedAttentionFunction : public torch::autograd::Function<GroupedAttentionFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &qInput,
                                 const torch::Tensor &kInput, const torch::Tensor &vInput, std::int64_t nHead,
                                 std::int64_t nKvHead)
    {
        const torch::Tensor q = qInput.contiguous(), k = kInput.contiguous(), v = vInput.contiguous();
        const std::int64_t B = q.size(0), T = q.size(1), width = q.size(2), kvWidth = k.size(2);
        const AttentionShape s{B, T, nHead, nKvHead, width / nHead};
        torch::Tensor probs = torch::empty({B, nHead, T, T}, q.options());
        torch::Tensor y = torch::empty({B, T, width}, q.options());
        attentionForward(s, {q.data_ptr<float>(), width}, {k.data_ptr<float>(), kvWidth}, {v.data_ptr<float>(), kvWidth},
                         probs.data_ptr<float>(), {y.data_ptr<float>(), width});
        ctx->save_for_backward({q, k, v, probs});
        ctx->saved_data["nHead"] = nHead;
        ctx->saved_data["nKvHead"] = nKvHead;
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::tensor_list gradOutputs)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &probs = saved[3];
        const std::int64_t nHead = ctx->saved_data["nHead"].toInt(), nKvHead = ctx->saved_data["nKvHead"].toInt();
        const std::int64_t B = q.size(0), T = q.size(1), width = q.size(2), kvWidth = k.size(2);
        const AttentionShape s{B, T, nHead, nKvHead, width / nHead};
        const torch::Tensor gradY = gradOutputs[0].contiguous();
        torch::Tensor gq = torch::empty_like(q), gk = torch::empty_like(k), gv = torch::empty_like(v);
        attentionBackward(s, {q.data_ptr<float>(), width}, {k.data_ptr<float>(), kvWidth}, {v.data_ptr<float>(), kvWidth},
                          probs.data_ptr<float>(), {gradY.data_ptr<float>(), width}, {gq.data_ptr<float>(), width},
                          {gk.data_ptr<float>(), kvWidth}, {gv.data_ptr<float>(), kvWidth});
        return {gq, gk, gv, torch::Tensor(), torch::Tensor()};
    }
};

bool fusedKernelApplies(const torch::Tensor &x, double dropout)
{
    return x.device().is_cpu() && x.scalar_type() == torch::kFloat && dropout == 0.0 && cblasSgemm();
}

// Attention on heads [B, nHead, T, hs] (k and v already repeated to nHead) -> [B, T, nHead hs].
torch::Tensor attendHeads(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v, double dropout)
{
    const std::int64_t B = q.size(0), nHead = q.size(1), T = q.size(2), hs = q.size(3);
#if TORCH_VERSION_MAJOR >= 2
    // LibTorch 2 has the fused scaled-dot-product attention (flash or memory-efficient kernels on
    // GPUs); Debian's 1.13 does not, and takes the composite below.
    return at::scaled_dot_product_attention(q, k, v, {}, dropout, /*is_causal=*/true).transpose(1, 2).reshape({B, T, nHead * hs});
#endif
    torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(hs)));
    const torch::Tensor future = torch::ones({T, T}, q.options().dtype(torch::kBool)).triu(1);
    torch::Tensor att = torch::softmax(scores.masked_fill(future, -std::numeric_limits<float>::infinity()), -1);
    if (dropout > 0.0)
        att = torch::dropout(att, dropout, true);
    return torch::matmul(att, v).transpose(1, 2).reshape({B, T, nHead * hs});
}

} // namespace

torch::Tensor causalSelfAttention(const torch::Tensor &qkv, std::int64_t nHead, double dropout)
{
    if (fusedKernelApplies(qkv, dropout))
        return FusedAttentionFunction::apply(qkv, nHead);
    const std::int64_t B = qkv.size(0), T = qkv.size(1), C = qkv.size(2) / 3, hs = C / nHead;
    const torch::Tensor heads = qkv.view({B, T, 3, nHead, hs}).permute({2, 0, 3, 1, 4});
    return attendHeads(heads[0], heads[1], heads[2], dropout);
}

torch::Tensor groupedQueryAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                                    std::int64_t nHead, std::int64_t nKvHead)
{
    if (fusedKernelApplies(q, 0.0))
        return GroupedAttentionFunction::apply(q, k, v, nHead, nKvHead);
    const std::int64_t B = q.size(0), T = q.size(1), hs = q.size(2) / nHead, group = nHead / nKvHead;
    const auto heads = [&](const torch::Tensor &x, std::int64_t n) { return x.view({B, T, n, hs}).transpose(1, 2); };
    torch::Tensor kh = heads(k, nKvHead), vh = heads(v, nKvHead);
    if (group > 1) {
        kh = kh.repeat_interleave(group, 1);
        vh = vh.repeat_interleave(group, 1);
    }
    return attendHeads(heads(q, nHead), kh, vh, 0.0);
}

} // namespace swarmtrain
