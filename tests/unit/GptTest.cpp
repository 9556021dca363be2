#include "AdamW.h"
#include "FlatParameters.h"
#include "Gpt.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

GptConfig tinyConfig() { return test::tinyGptConfig(13, 3, 2, 16, 8); }

} // namespace

TEST(GptTest, HasNanoGptShapesAndNames)
{
    Gpt model(tinyConfig());
    EXPECT_EQ(model->stageCount(), 5);
    const torch::Tensor logits = model->forward(torch::zeros({2, 8}, torch::kLong));
    EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{2, 8, 13}));
    std::vector<std::string> names;
    std::int64_t count = 0;
    for (const auto &[name, p] : model->namedParameters()) {
        names.push_back(name);
        count += p.numel();
    }
    EXPECT_EQ(names.front(), "transformer.wte.weight");
    EXPECT_NE(std::find(names.begin(), names.end(), "transformer.h.2.attn.c_attn.weight"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "transformer.h.0.mlp.c_proj.weight"), names.end());
    EXPECT_EQ(names.back(), "transformer.ln_f.weight");
    EXPECT_EQ(count, tinyConfig().parameterCount());
}

TEST(GptTest, IsCausal)
{
    torch::manual_seed(0);
    Gpt model(tinyConfig());
    model->eval();
    torch::Tensor tokens = torch::randint(0, 13, {1, 8}, torch::kLong);
    const torch::Tensor before = model->forward(tokens);
    tokens[0][6] = (tokens[0][6].item<std::int64_t>() + 1) % 13;
    const torch::Tensor after = model->forward(tokens);
    EXPECT_TRUE(torch::allclose(before.narrow(1, 0, 6), after.narrow(1, 0, 6)));
    EXPECT_FALSE(torch::allclose(before.narrow(1, 6, 2), after.narrow(1, 6, 2)));
}

// The stage API: training stage by stage, each range its own autograd graph joined by
// activations and their gradients, gives the same losses and parameters as the whole model.
TEST(GptTest, StageByStageTrainingEqualsWholeModelTraining)
{
    torch::manual_seed(5);
    Gpt whole(tinyConfig());
    torch::manual_seed(5);
    Gpt staged(tinyConfig());
    FlatParameters wholeFlat(whole->namedParameters()), stagedFlat(staged->namedParameters());
    AdamW wholeOpt(wholeFlat, {}), stagedOpt(stagedFlat, {});
    const std::vector<std::pair<int, int>> ranges = {{0, 1}, {2, 2}, {3, 4}};

    for (int step = 0; step < 4; ++step) {
        const torch::Tensor x = torch::randint(0, 13, {4, 8}, torch::kLong);
        const torch::Tensor y = torch::randint(0, 13, {4, 8}, torch::kLong);

        const torch::Tensor wholeLoss = GptImpl::loss(whole->forward(x), y);
        wholeLoss.backward();
        wholeOpt.step(3e-3, 1.0);
        wholeFlat.zeroGrad();

        std::vector<StageRun> runs;
        torch::Tensor activation = x;
        for (const auto &[first, last] : ranges) {
            runs.push_back(staged->runStages(first, last, activation));
            activation = runs.back().output.detach();
        }
        const torch::Tensor logits = runs.back().output.detach().requires_grad_(true);
        const torch::Tensor stagedLoss = GptImpl::loss(logits, y);
        stagedLoss.backward();
        torch::Tensor grad = logits.grad();
        for (auto run = runs.rbegin(); run != runs.rend(); ++run)
            grad = run->backward(grad);
        EXPECT_FALSE(grad.defined()); // the embedding's input is token ids
        stagedOpt.step(3e-3, 1.0);
        stagedFlat.zeroGrad();

        EXPECT_NEAR(wholeLoss.item<double>(), stagedLoss.item<double>(), 1e-6) << "step " << step;
    }
    EXPECT_TRUE(torch::allclose(wholeFlat.values(), stagedFlat.values(), 1e-5, 1e-7));
    EXPECT_GT((wholeFlat.values() - torch::zeros_like(wholeFlat.values())).abs().sum().item<double>(), 0.0);
}

TEST(GptTest, TiedHeadSharesTheEmbeddingWeight)
{
    Gpt model(tinyConfig());
    FlatParameters flat(model->namedParameters());
    // Backpropagate through the head stage alone: with the weight tied, its gradient must
    // land on the token embedding, which the head stage does not own.
    const int head = model->stageCount() - 1;
    StageRun run = model->runStages(head, head, torch::randn({2, 8, 16}));
    GptImpl::loss(run.output, torch::randint(0, 13, {2, 8}, torch::kLong)).backward();
    const auto &slot = flat.slots().front();
    ASSERT_EQ(slot.name, "transformer.wte.weight");
    EXPECT_GT(flat.grads().narrow(0, slot.offset, slot.numel).abs().sum().item<double>(), 0.0);
    EXPECT_EQ(flat.numel(), tinyConfig().parameterCount());
}

// The stage gate runs before every stage going forward and again before every stage's
// backward, and a throw from it abandons the pass.
TEST(GptTest, StageGateRunsBetweenStagesBothWays)
{
    torch::manual_seed(0);
    Gpt model(tinyConfig());
    std::vector<std::string> seen;
    int forwardCalls = 0;
    bool inBackward = false;
    model->setStageGate([&] { seen.push_back(inBackward ? "backward" : "forward"); ++forwardCalls; });
    const torch::Tensor tokens = torch::randint(0, 13, {2, 8}, torch::kLong);
    const torch::Tensor loss = GptImpl::loss(model->forward(tokens), tokens);
    EXPECT_EQ(forwardCalls, model->stageCount());
    inBackward = true;
    loss.backward();
    ASSERT_EQ(int(seen.size()), 2 * model->stageCount());
    EXPECT_EQ(seen.back(), "backward");

    model->setStageGate([] { throw StepInterrupted(); });
    EXPECT_THROW(model->forward(tokens), StepInterrupted);
}
