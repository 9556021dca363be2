#include "Attention.h"
#include "Layers.h"
#include "kernels/CpuKernels.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(CpuKernelsTest, ErfMatchesTheStandardLibrary)
{
    std::vector<float> x, y(2001);
    for (int i = -1000; i <= 1000; ++i)
        x.push_back(float(i) / 150.f);
    kernels::erfApprox(x.data(), y.data(), std::int64_t(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_NEAR(y[i], std::erf(x[i]), 4e-7) << "x = " << x[i];
}

TEST(CpuKernelsTest, GeluForwardAndBackwardMatchLibTorch)
{
    torch::manual_seed(0);
    const torch::Tensor x = (torch::randn({4097}) * 3).requires_grad_(true);
    const torch::Tensor reference = torch::gelu(x);
    const torch::Tensor gradOut = torch::randn({4097});
    const torch::Tensor referenceGrad = torch::autograd::grad({reference}, {x}, {gradOut})[0];

    const torch::Tensor mine = fastGelu(x);
    const torch::Tensor mineGrad = torch::autograd::grad({mine}, {x}, {gradOut})[0];
    EXPECT_TRUE(torch::allclose(mine, reference, 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(mineGrad, referenceGrad, 1e-5, 1e-5));
    EXPECT_FALSE(torch::allclose(mine, torch::relu(x), 1e-5, 1e-6)); // the check can fail
}

TEST(CpuKernelsTest, CausalSoftmaxMatchesMaskedSoftmaxAndItsGradient)
{
    torch::manual_seed(1);
    const std::int64_t t = 7;
    const torch::Tensor scores = torch::randn({3, t, t}).requires_grad_(true);
    const double scale = 0.35;
    const torch::Tensor future = torch::ones({t, t}, torch::kBool).triu(1);
    const torch::Tensor reference = torch::softmax((scores * scale).masked_fill(future, -INFINITY), -1);

    std::vector<float> probs(3 * t * t), grads(3 * t * t);
    const torch::Tensor in = scores.detach().contiguous();
    kernels::causalSoftmaxForward(in.data_ptr<float>(), probs.data(), 3 * t, t, float(scale));
    const torch::Tensor mine = torch::from_blob(probs.data(), {3, t, t}).clone();
    EXPECT_TRUE(torch::allclose(mine, reference, 1e-5, 1e-6));
    EXPECT_EQ(mine[0][2][3].item<float>(), 0.f);

    const torch::Tensor gradOut = torch::randn({3, t, t});
    const torch::Tensor referenceGrad = torch::autograd::grad({reference}, {scores}, {gradOut})[0];
    const torch::Tensor p = mine.contiguous(), g = gradOut.contiguous();
    kernels::causalSoftmaxBackward(p.data_ptr<float>(), g.data_ptr<float>(), grads.data(), 3 * t, t, float(scale));
    EXPECT_TRUE(torch::allclose(torch::from_blob(grads.data(), {3, t, t}), referenceGrad, 1e-4, 1e-6));
}

TEST(CpuKernelsTest, FusedAttentionMatchesLibTorchAttention)
{
    torch::manual_seed(2);
    const std::int64_t B = 3, T = 9, C = 12, nHead = 3, hs = C / nHead;
    const torch::Tensor qkv = torch::randn({B, T, 3 * C}).requires_grad_(true);
    const torch::Tensor gradOut = torch::randn({B, T, C});

    const torch::Tensor mine = causalSelfAttention(qkv, nHead, 0.0);
    const torch::Tensor mineGrad = torch::autograd::grad({mine}, {qkv}, {gradOut})[0];

    const auto parts = qkv.split(C, 2);
    const auto heads = [&](const torch::Tensor &t) { return t.view({B, T, nHead, hs}).transpose(1, 2); };
    const torch::Tensor q = heads(parts[0]), k = heads(parts[1]), v = heads(parts[2]);
    const torch::Tensor future = torch::ones({T, T}, torch::kBool).triu(1);
    const torch::Tensor att = torch::softmax(
        torch::matmul(q, k.transpose(-2, -1)).div(std::sqrt(double(hs))).masked_fill(future, -INFINITY), -1);
    const torch::Tensor reference = torch::matmul(att, v).transpose(1, 2).reshape({B, T, C});
    const torch::Tensor referenceGrad = torch::autograd::grad({reference}, {qkv}, {gradOut})[0];

    EXPECT_TRUE(torch::allclose(mine, reference, 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(mineGrad, referenceGrad, 1e-4, 1e-6));
    EXPECT_GT(mineGrad.abs().sum().item<double>(), 0.0);
}
