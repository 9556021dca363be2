#include "LossScaler.h"

#include <gtest/gtest.h>

#include <limits>

using namespace swarmtrain;

TEST(LossScalerTest, UnscalesFiniteGradients)
{
    LossScaler scaler(true, {1024.0, 2.0, 0.5, 3});
    torch::Tensor grads = torch::tensor({1024.0f, -2048.0f, 512.0f});
    EXPECT_TRUE(scaler.unscale(grads));
    EXPECT_TRUE(torch::equal(grads, torch::tensor({1.0f, -2.0f, 0.5f})));
}

TEST(LossScalerTest, OverflowSkipsTheStepAndBacksOff)
{
    LossScaler scaler(true, {1024.0, 2.0, 0.5, 3});
    for (const float bad : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
        torch::Tensor grads = torch::tensor({1.0f, bad});
        const bool finite = scaler.unscale(grads);
        EXPECT_FALSE(finite);
        scaler.update(finite);
    }
    EXPECT_EQ(scaler.scale(), 256.0);
    EXPECT_EQ(scaler.skippedSteps(), 2);
}

TEST(LossScalerTest, GrowsAfterCleanStepsInARowOnly)
{
    LossScaler scaler(true, {1024.0, 2.0, 0.5, 3});
    scaler.update(true);
    scaler.update(true);
    scaler.update(false); // the run of clean steps starts again
    EXPECT_EQ(scaler.scale(), 512.0);
    scaler.update(true);
    scaler.update(true);
    EXPECT_EQ(scaler.scale(), 512.0);
    scaler.update(true);
    EXPECT_EQ(scaler.scale(), 1024.0);
}

// Small gradients that float16 flushes to zero survive when the loss is scaled first.
TEST(LossScalerTest, ScalingKeepsSmallFloat16GradientsAlive)
{
    const torch::Tensor tiny = torch::full({4}, 1e-8f);
    EXPECT_TRUE(torch::equal(tiny.to(torch::kHalf).to(torch::kFloat), torch::zeros({4})));
    LossScaler scaler(true, {65536.0, 2.0, 0.5, 2000});
    torch::Tensor scaled = (tiny * scaler.scale()).to(torch::kHalf).to(torch::kFloat);
    EXPECT_TRUE(scaler.unscale(scaled));
    EXPECT_TRUE(torch::allclose(scaled, tiny, 1e-2, 0.0));
}

TEST(LossScalerTest, DisabledScalerChangesNothing)
{
    LossScaler scaler(false);
    torch::Tensor grads = torch::tensor({3.0f, std::numeric_limits<float>::infinity()});
    EXPECT_EQ(scaler.scale(), 1.0);
    EXPECT_TRUE(scaler.unscale(grads));
    EXPECT_EQ(grads[0].item<float>(), 3.0f);
    scaler.update(false);
    EXPECT_EQ(scaler.scale(), 1.0);
    EXPECT_EQ(scaler.skippedSteps(), 0);
}
