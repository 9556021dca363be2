#include "AdamW.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <functional>

using namespace swarmtrain;

namespace {

ModelConfig tinyConfig() { return test::tinyGptConfig(11, 2, 2, 8, 6); }

} // namespace

TEST(AdamWTest, OnlyTwoDimensionalWeightsDecay)
{
    torch::manual_seed(0);
    Decoder model(tinyConfig());
    FlatParameters flat(model->namedParameters());
    std::int64_t decayed = 0;
    for (const auto &slot : flat.slots()) {
        EXPECT_EQ(slot.decay, slot.parameter.dim() >= 2) << slot.name;
        if (slot.decay) {
            EXPECT_LT(slot.offset, flat.decayCount()) << slot.name;
            decayed += slot.numel;
        } else {
            EXPECT_GE(slot.offset, flat.decayCount()) << slot.name;
        }
    }
    EXPECT_EQ(decayed, flat.decayCount());
    EXPECT_EQ(flat.numel(), tinyConfig().parameterCount());

    // With zero gradients, AdamW only decays: 2-D weights shrink, LayerNorm gains do not.
    const torch::Tensor before = flat.values().clone();
    AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.5});
    optimizer.step(0.1, 0.0);
    const torch::Tensor after = flat.values();
    const std::int64_t d = flat.decayCount();
    EXPECT_TRUE(torch::allclose(after.narrow(0, 0, d), before.narrow(0, 0, d) * (1 - 0.1 * 0.5)));
    EXPECT_TRUE(torch::equal(after.narrow(0, d, flat.numel() - d), before.narrow(0, d, flat.numel() - d)));
}

TEST(AdamWTest, MatchesLibTorchAdamWWithClipping)
{
    torch::manual_seed(3);
    Decoder mine(tinyConfig());
    torch::manual_seed(3);
    Decoder reference(tinyConfig());
    FlatParameters flat(mine->namedParameters());
    AdamW optimizer(flat, {0.9, 0.99, 1e-8, 0.1});

    std::vector<torch::Tensor> decay, noDecay;
    for (auto &[name, p] : reference->namedParameters())
        (p.dim() >= 2 ? decay : noDecay).push_back(p);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                   torch::optim::AdamWOptions(1e-2).betas({0.9, 0.99}).weight_decay(0.1)));
    groups.emplace_back(noDecay, std::make_unique<torch::optim::AdamWOptions>(
                                     torch::optim::AdamWOptions(1e-2).betas({0.9, 0.99}).weight_decay(0.0)));
    torch::optim::AdamW torchAdamW(groups, torch::optim::AdamWOptions(1e-2));

    for (int step = 0; step < 5; ++step) {
        const torch::Tensor x = torch::randint(0, 11, {3, 6}, torch::kLong);
        const torch::Tensor y = torch::randint(0, 11, {3, 6}, torch::kLong);
        DecoderImpl::loss(mine->forward(x), y).backward();
        optimizer.step(1e-2, 0.5);
        flat.zeroGrad();

        DecoderImpl::loss(reference->forward(x), y).backward();
        torch::nn::utils::clip_grad_norm_(reference->parameters(), 0.5);
        torchAdamW.step();
        torchAdamW.zero_grad();
    }
    const auto a = mine->namedParameters(), b = reference->namedParameters();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(torch::allclose(a[i].second, b[i].second, 1e-4, 1e-6)) << a[i].first;
}

// The tensor-operation update GPUs run gives the fused CPU kernel's numbers.
TEST(AdamWTest, TensorOperationPathMatchesTheFusedKernel)
{
    std::vector<torch::Tensor> results;
    for (const bool fused : {true, false}) {
        torch::manual_seed(0);
        Decoder model(tinyConfig());
        FlatParameters flat(model->namedParameters());
        AdamWOptions options{0.9, 0.95, 1e-8, 0.1};
        options.fusedCpuKernel = fused;
        AdamW optimizer(flat, options);
        for (int step = 0; step < 5; ++step) {
            flat.grads().copy_(torch::randn({flat.numel()}));
            optimizer.step(1e-2, 1.0);
        }
        results.push_back(flat.values().clone());
        results.push_back(optimizer.expAvgSq().clone());
    }
    EXPECT_TRUE(torch::allclose(results[0], results[2], 1e-5, 1e-7));
    EXPECT_TRUE(torch::allclose(results[1], results[3], 1e-5, 1e-9));
    EXPECT_FALSE(torch::equal(results[0], torch::zeros_like(results[0])));
}

namespace {

// Five steps of random gradients; `stepInParts` does each step's updates after beginStep().
using StepInParts = std::function<void(AdamW &, FlatParameters &, const kernels::AdamWStep &)>;

torch::Tensor trainInParts(const StepInParts &stepInParts, torch::Tensor *expAvgSq = nullptr)
{
    torch::manual_seed(0);
    Decoder model(tinyConfig());
    FlatParameters flat(model->namedParameters());
    AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.1});
    for (int step = 0; step < 5; ++step) {
        flat.grads().copy_(torch::randn({flat.numel()}));
        if (stepInParts)
            stepInParts(optimizer, flat, optimizer.beginStep(1e-2, 1.0).update);
        else
            optimizer.step(1e-2, 1.0);
    }
    EXPECT_EQ(optimizer.stepCount(), 5);
    if (expAvgSq)
        *expAvgSq = optimizer.expAvgSq().clone();
    return flat.values().clone();
}

// Ranges that straddle the end of the decayed parameters, and a slot-by-slot split.
std::vector<std::pair<std::int64_t, std::int64_t>> unevenRanges(FlatParameters &flat)
{
    const std::int64_t d = flat.decayCount(), n = flat.numel();
    return {{0, d - 7}, {d - 7, 12}, {d + 5, n - d - 5}};
}

} // namespace

TEST(AdamWTest, StepInRangesOnTheHostIsStepBitForBit)
{
    torch::Tensor wholeSq, rangesSq, slotsSq;
    const torch::Tensor whole = trainInParts({}, &wholeSq);
    const torch::Tensor ranges = trainInParts(
        [](AdamW &optimizer, FlatParameters &flat, const kernels::AdamWStep &update) {
            for (const auto &[offset, numel] : unevenRanges(flat))
                optimizer.stepOnHost(update, optimizer.range(offset, numel));
        },
        &rangesSq);
    const torch::Tensor slots = trainInParts(
        [](AdamW &optimizer, FlatParameters &flat, const kernels::AdamWStep &update) {
            for (auto slot = flat.slots().rbegin(); slot != flat.slots().rend(); ++slot)
                optimizer.stepOnHost(update, optimizer.range(slot->offset, slot->numel));
        },
        &slotsSq);
    EXPECT_TRUE(torch::equal(ranges, whole));
    EXPECT_TRUE(torch::equal(rangesSq, wholeSq));
    EXPECT_TRUE(torch::equal(slots, whole));
    EXPECT_TRUE(torch::equal(slotsSq, wholeSq));
}

// What restartRange() promises: the range steps as a new optimizer over it would (its own step
// count, so its own bias corrections), the rest as if nothing had happened.
TEST(AdamWTest, ARestartedRangeStepsAsANewOptimizerWhileTheRestRunOn)
{
    torch::manual_seed(5);
    Decoder restarted(tinyConfig()), continued(tinyConfig()), fresh(tinyConfig());
    FlatParameters a(restarted->namedParameters()), b(continued->namedParameters()), c(fresh->namedParameters());
    b.values().copy_(a.values());
    const AdamWOptions options{0.9, 0.99, 1e-8, 0.1};
    AdamW optA(a, options), optB(b, options);
    torch::manual_seed(6);
    std::vector<torch::Tensor> grads;
    for (int i = 0; i < 6; ++i)
        grads.push_back(torch::randn({a.numel()}));
    const auto step = [](FlatParameters &flat, AdamW &optimizer, const torch::Tensor &grad) {
        flat.grads().copy_(grad);
        optimizer.step(1e-2, 0.0);
    };
    for (int i = 0; i < 3; ++i) {
        step(a, optA, grads[std::size_t(i)]);
        step(b, optB, grads[std::size_t(i)]);
    }
    c.values().copy_(b.values());
    AdamW optC(c, options); // a new optimizer, from where the others stand
    const std::int64_t begin = a.slots()[1].offset, end = a.numel() - 3;
    optA.restartRange(begin, end);
    for (int i = 3; i < 6; ++i) {
        step(a, optA, grads[std::size_t(i)]);
        step(b, optB, grads[std::size_t(i)]);
        step(c, optC, grads[std::size_t(i)]);
    }
    const auto part = [](const torch::Tensor &t, std::int64_t from, std::int64_t to) { return t.narrow(0, from, to - from); };
    EXPECT_TRUE(torch::equal(part(a.values(), begin, end), part(c.values(), begin, end)));
    EXPECT_TRUE(torch::equal(part(optA.expAvgSq(), begin, end), part(optC.expAvgSq(), begin, end)));
    EXPECT_TRUE(torch::equal(part(a.values(), 0, begin), part(b.values(), 0, begin)));
    EXPECT_TRUE(torch::equal(part(a.values(), end, a.numel()), part(b.values(), end, a.numel())));
    EXPECT_TRUE(torch::equal(part(optA.expAvg(), end, a.numel()), part(optB.expAvg(), end, a.numel())));
    // The restarted range did move, and not as the continued optimizer moved it.
    EXPECT_FALSE(torch::equal(part(a.values(), begin, end), part(b.values(), begin, end)));
    EXPECT_EQ(optA.stepCount(), 6);

    // restore() forgets the range: every element steps with the restored step count again.
    optA.restore(optB.stepCount(), optB.expAvg(), optB.expAvgSq());
    a.values().copy_(b.values());
    step(a, optA, grads[0]);
    step(b, optB, grads[0]);
    EXPECT_TRUE(torch::equal(a.values(), b.values()));
}

// Copies of a range stepped with tensor operations (what a device runs) and copied back.
TEST(AdamWTest, TensorOperationsOnCopiedRangesMatchTheFusedStep)
{
    torch::Tensor wholeSq, copiedSq;
    const torch::Tensor whole = trainInParts({}, &wholeSq);
    const torch::Tensor copied = trainInParts(
        [](AdamW &optimizer, FlatParameters &flat, const kernels::AdamWStep &update) {
            for (const auto &[offset, numel] : unevenRanges(flat)) {
                const AdamWRange host = optimizer.range(offset, numel);
                const AdamWRange copy{offset, host.values.clone(), host.grads.clone(), host.expAvg.clone(),
                                      host.expAvgSq.clone()};
                optimizer.stepWithTensorOps(update, copy);
                host.values.copy_(copy.values);
                host.expAvg.copy_(copy.expAvg);
                host.expAvgSq.copy_(copy.expAvgSq);
            }
        },
        &copiedSq);
    EXPECT_TRUE(torch::allclose(copied, whole, 1e-6, 1e-7)) << (copied - whole).abs().max().item<float>();
    EXPECT_TRUE(torch::allclose(copiedSq, wholeSq, 1e-6, 1e-9));
}

// On a GPU the step is PyTorch's fused kernel with the clip scale kept on the device; it must
// apply the host kernel's update (the same steps, clipped, to float32 rounding).
TEST(AdamWTest, CudaFusedStepMatchesTheHostKernel)
{
    if (!torch::cuda::is_available())
        GTEST_SKIP() << "no CUDA device: this build's LibTorch has no CUDA or the machine has no GPU";
    std::vector<torch::Tensor> values, moments;
    for (const bool cuda : {false, true}) {
        torch::manual_seed(0);
        Decoder model(tinyConfig());
        if (cuda)
            model->to(torch::kCUDA);
        FlatParameters flat(model->namedParameters());
        ASSERT_EQ(flat.values().is_cuda(), cuda);
        AdamW optimizer(flat, {0.9, 0.95, 1e-8, 0.1});
        for (int step = 0; step < 5; ++step) {
            // Norms far above 1 in the first steps, so clipping applies; below it in the last.
            const double size = step < 3 ? 1.0 : 1e-4;
            flat.grads().copy_(torch::randn({flat.numel()}) * size);
            optimizer.step(1e-2, 1.0);
        }
        EXPECT_EQ(optimizer.stepCount(), 5);
        values.push_back(flat.values().cpu());
        moments.push_back(optimizer.expAvgSq().cpu());
    }
    EXPECT_TRUE(torch::allclose(values[0], values[1], 1e-5, 1e-7)) << (values[0] - values[1]).abs().max();
    EXPECT_TRUE(torch::allclose(moments[0], moments[1], 1e-4, 1e-12)) << (moments[0] - moments[1]).abs().max();
    EXPECT_FALSE(torch::equal(values[0], torch::zeros_like(values[0])));
}
