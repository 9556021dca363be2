#include "ActivationWire.h"
#include "AdamW.h"
#include "FlatParameters.h"
#include "Decoder.h"
#include "StagePartition.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

#include <map>

using namespace swarmtrain;

namespace {

ModelConfig tinyConfig() { return test::tinyGptConfig(13, 3, 2, 16, 8); }

// The same small shape in each family: GPT, Llama with a tied head (and two query heads per
// key/value head), Llama with its own head.
struct Family {
    const char *name;
    ModelConfig (*make)(int vocab, int layers, int heads, int width, int block);
};
const Family kFamilies[] = {
    {"gpt", [](int v, int l, int h, int w, int b) { return test::tinyGptConfig(v, l, h, w, b); }},
    {"llama_tied", [](int v, int l, int h, int w, int b) { return test::tinyLlamaConfig(v, l, h, h / 2, w, 2 * w, b, true); }},
    {"llama_untied", [](int v, int l, int h, int w, int b) { return test::tinyLlamaConfig(v, l, h, h, w, 3 * w, b, false); }},
};

class DecoderFamilyTest : public ::testing::TestWithParam<Family> {
protected:
    ModelConfig config(int v, int l, int h, int w, int b) const { return GetParam().make(v, l, h, w, b); }
    ModelConfig tiny() const { return config(13, 3, 2, 16, 8); }
};

// A tensor sent to the next stage and decoded there.
torch::Tensor overWire(const torch::Tensor &tensor, WirePrecision precision)
{
    const torch::Tensor sent = tensor.detach().contiguous();
    const std::vector<std::byte> bytes =
        encodeActivations({sent.data_ptr<float>(), std::size_t(sent.numel())}, precision).value();
    std::vector<float> values = decodeActivations(bytes, std::size_t(sent.numel()), precision).value();
    return torch::from_blob(values.data(), sent.sizes(), torch::kFloat).clone();
}

// One microbatch through stage models that each hold only their span of `whole`'s weights,
// activations and gradients crossing the wire between them: every parameter's gradient by
// name (the two copies of the tied embedding added up).
std::map<std::string, torch::Tensor> pipelineGradients(Decoder &whole, const std::vector<StageSpan> &spans,
                                                       const torch::Tensor &tokens, const torch::Tensor &targets,
                                                       WirePrecision precision)
{
    std::vector<Decoder> stages;
    std::map<std::string, torch::Tensor> weights;
    for (const auto &[name, p] : whole->namedParameters())
        weights[name] = p;
    for (const StageSpan &span : spans) {
        stages.emplace_back(whole->config(), span.first, span.last);
        torch::NoGradGuard noGrad;
        for (auto &[name, p] : stages.back()->namedParameters())
            p.copy_(weights.at(name));
    }
    std::vector<StageRun> runs;
    torch::Tensor activation = tokens;
    for (std::size_t i = 0; i < spans.size(); ++i) {
        runs.push_back(stages[i]->runStages(spans[i].first, spans[i].last, activation));
        activation = overWire(runs.back().output, precision);
    }
    DecoderImpl::loss(runs.back().output, targets).backward();
    torch::Tensor grad = runs.back().input.grad();
    for (std::size_t i = spans.size() - 1; i-- > 0;)
        grad = runs[i].backward(overWire(grad, precision));
    EXPECT_FALSE(grad.defined());
    std::map<std::string, torch::Tensor> grads;
    for (Decoder &stage : stages)
        for (const auto &[name, p] : stage->namedParameters())
            grads[name] = grads.count(name) ? grads[name] + p.grad() : p.grad().clone();
    return grads;
}

} // namespace

TEST(DecoderTest, HasNanoGptShapesAndNames)
{
    Decoder model(tinyConfig());
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

TEST(DecoderTest, LlamaHasHuggingFaceShapesAndNames)
{
    const ModelConfig config = test::tinyLlamaConfig(13, 2, 4, 2, 16, 40, 8, false);
    Decoder model(config);
    std::map<std::string, std::vector<std::int64_t>> shapes;
    std::int64_t count = 0;
    for (const auto &[name, p] : model->namedParameters()) {
        shapes[name] = p.sizes().vec();
        count += p.numel();
    }
    using Shape = std::vector<std::int64_t>;
    EXPECT_EQ(shapes.at("model.embed_tokens.weight"), (Shape{13, 16}));
    EXPECT_EQ(shapes.at("model.layers.1.self_attn.q_proj.weight"), (Shape{16, 16}));
    EXPECT_EQ(shapes.at("model.layers.1.self_attn.k_proj.weight"), (Shape{8, 16}));
    EXPECT_EQ(shapes.at("model.layers.1.self_attn.v_proj.weight"), (Shape{8, 16}));
    EXPECT_EQ(shapes.at("model.layers.0.self_attn.o_proj.weight"), (Shape{16, 16}));
    EXPECT_EQ(shapes.at("model.layers.0.mlp.gate_proj.weight"), (Shape{40, 16}));
    EXPECT_EQ(shapes.at("model.layers.0.mlp.up_proj.weight"), (Shape{40, 16}));
    EXPECT_EQ(shapes.at("model.layers.0.mlp.down_proj.weight"), (Shape{16, 40}));
    EXPECT_EQ(shapes.at("model.layers.0.input_layernorm.weight"), (Shape{16}));
    EXPECT_EQ(shapes.at("model.layers.0.post_attention_layernorm.weight"), (Shape{16}));
    EXPECT_EQ(shapes.at("model.norm.weight"), (Shape{16}));
    EXPECT_EQ(shapes.at("lm_head.weight"), (Shape{13, 16}));
    EXPECT_EQ(shapes.size(), 1u + 2 * 9 + 2);
    EXPECT_EQ(count, config.parameterCount());
    // Tied: no lm_head, the head reads the embedding.
    Decoder tied(test::tinyLlamaConfig(13, 2, 4, 2, 16, 40, 8, true));
    for (const auto &[name, p] : tied->namedParameters())
        EXPECT_NE(name, "lm_head.weight");
}

TEST_P(DecoderFamilyTest, IsCausal)
{
    torch::manual_seed(0);
    Decoder model(tiny());
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
TEST_P(DecoderFamilyTest, StageByStageTrainingEqualsWholeModelTraining)
{
    torch::manual_seed(5);
    Decoder whole(tiny());
    torch::manual_seed(5);
    Decoder staged(tiny());
    FlatParameters wholeFlat(whole->namedParameters()), stagedFlat(staged->namedParameters());
    AdamW wholeOpt(wholeFlat, {}), stagedOpt(stagedFlat, {});
    const std::vector<std::pair<int, int>> ranges = {{0, 1}, {2, 2}, {3, 4}};

    for (int step = 0; step < 4; ++step) {
        const torch::Tensor x = torch::randint(0, 13, {4, 8}, torch::kLong);
        const torch::Tensor y = torch::randint(0, 13, {4, 8}, torch::kLong);

        const torch::Tensor wholeLoss = DecoderImpl::loss(whole->forward(x), y);
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
        const torch::Tensor stagedLoss = DecoderImpl::loss(logits, y);
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

// Pipeline-stage mode (issue 17): three peers' stage models, each holding only its span, give the
// whole model's gradients for one microbatch: to 1e-5 with float32 on the wire, at cosine 0.99
// or better with 8-bit activations and gradients.
TEST_P(DecoderFamilyTest, AThreeStagePipelineGivesTheWholeModelsGradients)
{
    const ModelConfig config = this->config(13, 4, 2, 32, 16);
    torch::manual_seed(11);
    Decoder whole(config);
    const torch::Tensor tokens = torch::randint(0, 13, {4, 16}, torch::kLong);
    const torch::Tensor targets = torch::randint(0, 13, {4, 16}, torch::kLong);
    DecoderImpl::loss(whole->forward(tokens), targets).backward();
    const std::vector<StageSpan> spans = partitionStages(config, 3).value();
    ASSERT_EQ(spans.size(), 3u);
    ASSERT_GT(spans.front().last, 0) << "the first stage holds more than the embedding";

    const auto exact = pipelineGradients(whole, spans, tokens, targets, WirePrecision::Float32);
    const auto int8 = pipelineGradients(whole, spans, tokens, targets, WirePrecision::Int8);
    std::vector<torch::Tensor> reference, compressed;
    for (const auto &[name, p] : whole->namedParameters()) {
        ASSERT_TRUE(exact.count(name) && int8.count(name)) << name << " held by no stage";
        const double error = (exact.at(name) - p.grad()).norm().item<double>() / p.grad().norm().item<double>();
        EXPECT_LE(error, 1e-5) << name;
        reference.push_back(p.grad().flatten());
        compressed.push_back(int8.at(name).flatten());
    }
    EXPECT_EQ(exact.size(), reference.size()) << "a stage holds a parameter the model lacks";
    const torch::Tensor a = torch::cat(reference), b = torch::cat(compressed);
    const double cosine = (a * b).sum().item<double>() / (a.norm() * b.norm()).item<double>();
    EXPECT_GE(cosine, 0.99);
    EXPECT_LT(cosine, 1.0 - 1e-9) << "8-bit on the wire cannot be exact";
    std::cout << "pipeline gradients (" << GetParam().name << "): 3 stages, 8-bit wire, cosine " << cosine << std::endl;
}

// A stage model holds its span's weights and nothing more.
TEST(DecoderTest, AStageModelHoldsOnlyItsSpan)
{
    const ModelConfig config = tinyConfig();
    Decoder middle(config, 1, 2);
    EXPECT_EQ(middle->firstStage(), 1);
    EXPECT_EQ(middle->lastStage(), 2);
    for (const auto &[name, p] : middle->namedParameters())
        EXPECT_TRUE(name.starts_with("transformer.h.0.") || name.starts_with("transformer.h.1.")) << name;
    Decoder head(config, 4, 4);
    std::vector<std::string> names;
    for (const auto &[name, p] : head->namedParameters())
        names.push_back(name);
    EXPECT_EQ(names, (std::vector<std::string>{"transformer.ln_f.weight", "transformer.wte.weight"}));
    EXPECT_THROW(middle->runStages(0, 1, torch::zeros({1, 8}, torch::kLong)), c10::Error);
    EXPECT_THROW(middle->forward(torch::zeros({1, 8}, torch::kLong)), c10::Error);
    EXPECT_THROW(Decoder(config, 3, 5), c10::Error);
}

// A span initialised as the whole model holds, bit for bit, the whole model's values after the
// same seed, for every partition; the head's own copy of the embedding gets the embedding's.
TEST_P(DecoderFamilyTest, ASpanInitialisedAsTheWholeModelHoldsItsValues)
{
    ModelConfig config = tiny();
    config.bias = !config.isLlama(); // biases are zeroed, not drawn
    torch::manual_seed(7);
    Decoder whole(config);
    std::map<std::string, torch::Tensor> expected;
    for (const auto &[name, p] : whole->namedParameters())
        expected.emplace(name, p);
    for (int count = 1; count <= config.nLayer + 2; ++count) {
        const std::vector<StageSpan> spans = partitionStages(config, count).value();
        for (const StageSpan &span : spans) {
            Decoder stage(config, span.first, span.last);
            stage->initializeAsWhole(7);
            for (const auto &[name, p] : stage->namedParameters())
                EXPECT_TRUE(torch::equal(p, expected.at(name))) << name << " in stages " << span.first << ".." << span.last;
        }
    }
    Decoder otherSeed(config, 1, 1);
    otherSeed->initializeAsWhole(8);
    for (const auto &[name, p] : otherSeed->namedParameters()) {
        if (p.dim() >= 2)
            EXPECT_FALSE(torch::equal(p, expected.at(name))) << name << ": another seed draws other values";
    }
}

TEST(DecoderTest, TiedHeadSharesTheEmbeddingWeight)
{
    Decoder model(tinyConfig());
    FlatParameters flat(model->namedParameters());
    // Backpropagate through the head stage alone: with the weight tied, its gradient must
    // land on the token embedding, which the head stage does not own.
    const int head = model->stageCount() - 1;
    StageRun run = model->runStages(head, head, torch::randn({2, 8, 16}));
    DecoderImpl::loss(run.output, torch::randint(0, 13, {2, 8}, torch::kLong)).backward();
    const auto &slot = flat.slots().front();
    ASSERT_EQ(slot.name, "transformer.wte.weight");
    EXPECT_GT(flat.grads().narrow(0, slot.offset, slot.numel).abs().sum().item<double>(), 0.0);
    EXPECT_EQ(flat.numel(), tinyConfig().parameterCount());
}

// The stage gate runs before every stage going forward and again before every stage's
// backward, and a throw from it abandons the pass.
TEST(DecoderTest, StageGateRunsBetweenStagesBothWays)
{
    torch::manual_seed(0);
    Decoder model(tinyConfig());
    std::vector<std::string> seen;
    int forwardCalls = 0;
    bool inBackward = false;
    model->setStageGate([&] { seen.push_back(inBackward ? "backward" : "forward"); ++forwardCalls; });
    const torch::Tensor tokens = torch::randint(0, 13, {2, 8}, torch::kLong);
    const torch::Tensor loss = DecoderImpl::loss(model->forward(tokens), tokens);
    EXPECT_EQ(forwardCalls, model->stageCount());
    inBackward = true;
    loss.backward();
    ASSERT_EQ(int(seen.size()), 2 * model->stageCount());
    EXPECT_EQ(seen.back(), "backward");

    model->setStageGate([] { throw StepInterrupted(); });
    EXPECT_THROW(model->forward(tokens), StepInterrupted);
}

INSTANTIATE_TEST_SUITE_P(Families, DecoderFamilyTest, ::testing::ValuesIn(kFamilies),
                         [](const ::testing::TestParamInfo<Family> &info) { return std::string(info.param.name); });
