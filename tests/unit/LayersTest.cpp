// The Llama layers' fused CPU kernels (Layers.h, Attention.h) against plain LibTorch in double
// precision: values and gradients.
#include "Attention.h"
#include "Layers.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace swarmtrain;

namespace {

// d(sum(f(x) * probe))/dx of each input, as float64, through autograd.
std::vector<torch::Tensor> gradients(const torch::Tensor &y, const std::vector<torch::Tensor> &inputs, const torch::Tensor &probe)
{
    return torch::autograd::grad({(y.to(torch::kDouble) * probe).sum()}, inputs);
}

double maxDiff(const torch::Tensor &a, const torch::Tensor &b)
{
    return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

TEST(LayersTest, RmsNormKernelMatchesTheFormula)
{
    torch::manual_seed(1);
    const torch::Tensor x = torch::randn({3, 70, 48}).requires_grad_(true);
    const torch::Tensor w = (1.0 + 0.3 * torch::randn({48})).requires_grad_(true);
    const torch::Tensor fused = rmsNorm(x, w, 1e-5);

    const torch::Tensor x64 = x.detach().to(torch::kDouble).requires_grad_(true);
    const torch::Tensor w64 = w.detach().to(torch::kDouble).requires_grad_(true);
    const torch::Tensor plain = x64 / torch::sqrt(x64.pow(2).mean(-1, true) + 1e-5) * w64;
    EXPECT_LT(maxDiff(fused, plain), 1e-6);

    const torch::Tensor probe = torch::randn(plain.sizes(), torch::kDouble);
    const auto got = gradients(fused, {x, w}, probe);
    const auto want = gradients(plain, {x64, w64}, probe);
    EXPECT_LT(maxDiff(got[0], want[0]), 1e-5);
    EXPECT_LT(maxDiff(got[1], want[1]), 1e-4); // a sum over 210 rows
}

TEST(LayersTest, RmsNormWeightGradientIsTheSameWhateverTheThreads)
{
    torch::manual_seed(2);
    const torch::Tensor x = torch::randn({4, 100, 32}).requires_grad_(true);
    const torch::Tensor w = torch::randn({32}).requires_grad_(true);
    const torch::Tensor g = torch::randn({4, 100, 32});
    const auto once = torch::autograd::grad({(rmsNorm(x, w, 1e-6) * g).sum()}, {w})[0];
    const auto again = torch::autograd::grad({(rmsNorm(x, w, 1e-6) * g).sum()}, {w})[0];
    EXPECT_TRUE(torch::equal(once, again));
}

TEST(LayersTest, RotaryKernelRotatesEachHalfPairByItsPositionsAngle)
{
    torch::manual_seed(3);
    const std::int64_t B = 2, T = 1100, heads = 3, hs = 8;
    const auto table = RotaryTable::get(hs, 10000.0, 1200);
    const torch::Tensor x = torch::randn({B, T, heads * hs}).requires_grad_(true);
    const torch::Tensor fused = applyRotary(x, *table);

    // x1 cos - x2 sin, x2 cos + x1 sin with angle t / 10000^(2i / hs), in double.
    const torch::Tensor x64 = x.detach().to(torch::kDouble).requires_grad_(true);
    const torch::Tensor inverse = 1.0 / torch::pow(10000.0, torch::arange(0, hs, 2, torch::kDouble) / double(hs));
    const torch::Tensor angles = torch::outer(torch::arange(T, torch::kDouble), inverse).view({1, T, 1, hs / 2});
    const torch::Tensor h = x64.view({B, T, heads, hs});
    const torch::Tensor a = h.narrow(-1, 0, hs / 2), b = h.narrow(-1, hs / 2, hs / 2);
    const torch::Tensor plain =
        torch::cat({a * angles.cos() - b * angles.sin(), b * angles.cos() + a * angles.sin()}, -1).view({B, T, heads * hs});
    EXPECT_LT(maxDiff(fused, plain), 1e-5); // positions past 1,000 too

    const torch::Tensor probe = torch::randn(plain.sizes(), torch::kDouble);
    EXPECT_LT(maxDiff(gradients(fused, {x}, probe)[0], gradients(plain, {x64}, probe)[0]), 1e-5);
}

TEST(LayersTest, RotaryTablesAreSharedAndBounded)
{
    EXPECT_EQ(RotaryTable::get(16, 10000.0, 64), RotaryTable::get(16, 10000.0, 64));
    EXPECT_NE(RotaryTable::get(16, 10000.0, 64), RotaryTable::get(16, 500000.0, 64));
    const auto table = RotaryTable::get(4, 10000.0, 8);
    EXPECT_THROW(applyRotary(torch::zeros({1, 9, 4}), *table), c10::Error);
}

// Grouped-query attention through the kernel and through plain LibTorch in double (keys and
// values repeated to every query head), values and gradients of q, k and v.
void expectGroupedAttentionMatches(std::int64_t nHead, std::int64_t nKvHead)
{
    torch::manual_seed(4 + nKvHead);
    const std::int64_t B = 2, T = 37, hs = 8;
    const torch::Tensor q = torch::randn({B, T, nHead * hs}).requires_grad_(true);
    const torch::Tensor k = torch::randn({B, T, nKvHead * hs}).requires_grad_(true);
    const torch::Tensor v = torch::randn({B, T, nKvHead * hs}).requires_grad_(true);
    const torch::Tensor fused = groupedQueryAttention(q, k, v, nHead, nKvHead);

    std::vector<torch::Tensor> inputs64;
    for (const torch::Tensor &t : {q, k, v})
        inputs64.push_back(t.detach().to(torch::kDouble).requires_grad_(true));
    const auto heads = [&](const torch::Tensor &t, std::int64_t n) { return t.view({B, T, n, hs}).transpose(1, 2); };
    const torch::Tensor qh = heads(inputs64[0], nHead);
    const torch::Tensor kh = heads(inputs64[1], nKvHead).repeat_interleave(nHead / nKvHead, 1);
    const torch::Tensor vh = heads(inputs64[2], nKvHead).repeat_interleave(nHead / nKvHead, 1);
    const torch::Tensor future = torch::ones({T, T}, torch::kBool).triu(1);
    const torch::Tensor scores = torch::matmul(qh, kh.transpose(-2, -1)) / std::sqrt(double(hs));
    const torch::Tensor plain =
        torch::matmul(torch::softmax(scores.masked_fill(future, -INFINITY), -1), vh).transpose(1, 2).reshape({B, T, nHead * hs});
    EXPECT_LT(maxDiff(fused, plain), 1e-5);

    const torch::Tensor probe = torch::randn(plain.sizes(), torch::kDouble);
    const auto got = gradients(fused, {q, k, v}, probe);
    const auto want = gradients(plain, inputs64, probe);
    for (std::size_t i = 0; i < 3; ++i)
        EXPECT_LT(maxDiff(got[i], want[i]), 2e-5) << "gradient of input " << i;
}

TEST(LayersTest, GroupedQueryAttentionKernelMatchesRepeatedKeysAndValues)
{
    expectGroupedAttentionMatches(4, 4); // multi-head
    expectGroupedAttentionMatches(4, 2); // grouped
    expectGroupedAttentionMatches(6, 1); // multi-query
}

} // namespace
