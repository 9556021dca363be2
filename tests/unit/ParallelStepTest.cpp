#include "ParallelStep.h"

#include "TinyGpt.h"
#include "kernels/ParallelFor.h"

#include <gtest/gtest.h>

#include <thread>

using namespace swarmtrain;

class ParallelStepTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        torch::manual_seed(7);
        tokens = torch::randint(0, 11, {7, 8}, torch::kLong);
        targets = torch::randint(0, 11, {7, 8}, torch::kLong);
    }
    void TearDown() override { kernels::setParallelThreads(int(std::max(1u, std::thread::hardware_concurrency()))); }

    // Loss and gradients of a fresh model (same seed, same weights) through forwardBackward.
    std::pair<double, std::vector<torch::Tensor>> step(int threads)
    {
        kernels::setParallelThreads(threads);
        torch::manual_seed(3);
        Decoder model(test::tinyGptConfig(11, 2, 2, 16, 8));
        const double loss = forwardBackward(*model, tokens, targets);
        std::vector<torch::Tensor> grads;
        for (const torch::Tensor &p : model->parameters())
            grads.push_back(p.grad().clone());
        return {loss, grads};
    }

    torch::Tensor tokens;
    torch::Tensor targets;
};

TEST_F(ParallelStepTest, SplitBatchGivesTheWholeBatchLossAndGradients)
{
    const auto [wholeLoss, wholeGrads] = step(1);
    for (int threads : {2, 3, 7}) {
        const auto [loss, grads] = step(threads);
        EXPECT_NEAR(loss, wholeLoss, 1e-6) << threads << " threads";
        ASSERT_EQ(grads.size(), wholeGrads.size());
        for (std::size_t i = 0; i < grads.size(); ++i)
            EXPECT_TRUE(torch::allclose(grads[i], wholeGrads[i], 1e-4, 1e-6)) << threads << " threads, parameter " << i;
    }
}

TEST_F(ParallelStepTest, RepeatsBitForBit)
{
    const auto [firstLoss, firstGrads] = step(3);
    const auto [secondLoss, secondGrads] = step(3);
    EXPECT_EQ(firstLoss, secondLoss);
    for (std::size_t i = 0; i < firstGrads.size(); ++i)
        EXPECT_TRUE(torch::equal(firstGrads[i], secondGrads[i])) << "parameter " << i;
}

TEST_F(ParallelStepTest, AddsToGradientsAlreadyThere)
{
    kernels::setParallelThreads(2);
    torch::manual_seed(3);
    Decoder model(test::tinyGptConfig(11, 1, 2, 16, 8));
    forwardBackward(*model, tokens, targets);
    const torch::Tensor once = model->parameters()[0].grad().clone();
    forwardBackward(*model, tokens, targets);
    EXPECT_TRUE(torch::allclose(model->parameters()[0].grad(), 2 * once, 1e-5, 1e-7));
}

TEST_F(ParallelStepTest, AnErrorInAShareReachesTheCaller)
{
    kernels::setParallelThreads(2);
    Decoder model(test::tinyGptConfig(11, 1, 2, 16, 8));
    const torch::Tensor outOfVocabulary = torch::full({4, 8}, 99, torch::kLong);
    EXPECT_THROW(forwardBackward(*model, outOfVocabulary, targets.slice(0, 0, 4)), c10::Error);
}
