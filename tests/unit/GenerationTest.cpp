// Generation on a key/value cache (KvCache.h, Generation.h): the cached forward gives the logits
// of the whole-window forward at every position, for both families, grouped-query attention
// included; greedy generation is the whole-window argmax, token for token; and the edges: a
// prompt longer than the context, an empty prompt, a full context, streaming and stopping.
#include "Decoder.h"
#include "Generation.h"
#include "KvCache.h"
#include "TinyGpt.h"
#include "Tokenizer.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

Decoder scrambled(const ModelConfig &config)
{
    torch::manual_seed(11);
    Decoder model(config);
    torch::NoGradGuard noGrad;
    for (auto &[name, p] : model->namedParameters()) {
        const bool norm = name.ends_with("norm.weight") || (name.find(".ln_") != std::string::npos && name.ends_with(".weight"));
        p.copy_(norm ? 1.0 + 0.3 * torch::randn_like(p) : 0.1 * torch::randn_like(p));
    }
    model->eval();
    return model;
}

struct Case {
    const char *name;
    ModelConfig config;
};

void PrintTo(const Case &c, std::ostream *out) { *out << c.name; }

class CachedForwardTest : public ::testing::TestWithParam<Case> {};

TEST_P(CachedForwardTest, GivesTheWholeWindowsLogitsAtEveryPosition)
{
    const ModelConfig &c = GetParam().config;
    Decoder model = scrambled(c);
    torch::NoGradGuard noGrad;
    const torch::Tensor tokens = torch::randint(0, c.vocabSize, {1, c.blockSize}, torch::kLong);
    const torch::Tensor whole = model->forward(tokens);
    KvCache cache(c.nLayer, 1, c.kvHeads(), c.headDim(), c.blockSize, torch::TensorOptions().dtype(torch::kFloat));
    // A prompt of 7 positions in one pass, then one position at a time, then the rest at once.
    std::vector<torch::Tensor> pieces{model->forwardCached(tokens.narrow(1, 0, 7), cache)};
    for (std::int64_t t = 7; t < c.blockSize - 5; ++t)
        pieces.push_back(model->forwardCached(tokens.narrow(1, t, 1), cache));
    pieces.push_back(model->forwardCached(tokens.narrow(1, c.blockSize - 5, 5), cache));
    EXPECT_EQ(cache.length(), c.blockSize);
    const torch::Tensor cached = torch::cat(pieces, 1);
    EXPECT_LE((cached - whole).abs().max().item<double>(), 1e-5);
    EXPECT_GT(whole.abs().max().item<double>(), 0.5); // logits worth comparing
    // Full: one more position is refused.
    EXPECT_THROW(model->forwardCached(tokens.narrow(1, 0, 1), cache), c10::Error);
}

INSTANTIATE_TEST_SUITE_P(Families, CachedForwardTest,
                         ::testing::Values(Case{"gpt", test::tinyGptConfig(67, 2, 4, 32, 40)},
                                           Case{"llama_gqa", test::tinyLlamaConfig(67, 2, 4, 2, 32, 64, 40)},
                                           Case{"llama_mqa_untied", test::tinyLlamaConfig(67, 2, 4, 1, 32, 64, 40, false)}),
                         [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.name); });

// Greedy continuation by recomputing the whole window each token: what the cache must reproduce.
std::vector<std::int32_t> greedyByWholeWindow(DecoderImpl &model, std::vector<std::int32_t> tokens, int count)
{
    torch::NoGradGuard noGrad;
    std::vector<std::int32_t> out;
    for (int i = 0; i < count; ++i) {
        const torch::Tensor input = torch::tensor(std::vector<std::int64_t>(tokens.begin(), tokens.end())).unsqueeze(0);
        tokens.push_back(std::int32_t(model.forward(input)[0][-1].argmax().item<std::int64_t>()));
        out.push_back(tokens.back());
    }
    return out;
}

TEST(GenerationTest, GreedyGenerationIsTheWholeWindowsArgmaxTokenForToken)
{
    const Tokenizer bytes = Tokenizer::byteLevel();
    for (const ModelConfig &c : {test::tinyGptConfig(256, 2, 4, 32, 48), test::tinyLlamaConfig(256, 2, 4, 2, 32, 64, 48)}) {
        Decoder model = scrambled(c);
        GenerateOptions o;
        o.prompt = "the swarm";
        o.maxTokens = 30;
        o.temperature = 0.0;
        std::string streamed;
        const Result<GenerateReport> r = generateText(*model, bytes, o, [&](const std::string &piece) {
            streamed += piece;
            return true;
        });
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->tokens, 30);
        EXPECT_EQ(r->stopped, "max tokens");
        EXPECT_EQ(r->promptTokens, 9);
        const std::vector<std::int32_t> expected = greedyByWholeWindow(*model, bytes.encode(o.prompt).value(), 30);
        EXPECT_EQ(r->text, bytes.decode(expected)) << modelFamilyName(c.family);
        EXPECT_EQ(streamed, r->text); // the pieces, in order, are the whole
    }
}

TEST(GenerationTest, SamplingIsSeededAndATinyTopPIsGreedy)
{
    const Tokenizer bytes = Tokenizer::byteLevel();
    Decoder model = scrambled(test::tinyLlamaConfig(256, 1, 2, 1, 16, 32, 64));
    GenerateOptions o;
    o.prompt = "a";
    o.maxTokens = 40;
    o.temperature = 1.0;
    o.topK = 0;
    const std::string first = generateText(*model, bytes, o).value().text;
    EXPECT_EQ(generateText(*model, bytes, o).value().text, first);
    o.seed = 2;
    EXPECT_NE(generateText(*model, bytes, o).value().text, first);
    o.topP = 1e-6; // only the most likely token is left
    const std::string nucleus = generateText(*model, bytes, o).value().text;
    o.temperature = 0.0;
    EXPECT_EQ(nucleus, generateText(*model, bytes, o).value().text);
}

TEST(GenerationTest, TheEdges)
{
    const Tokenizer bytes = Tokenizer::byteLevel();
    Decoder model = scrambled(test::tinyGptConfig(256, 1, 2, 16, 16));
    GenerateOptions o;
    o.temperature = 0.0;

    o.prompt = std::string(17, 'x'); // the context is 16
    const Result<GenerateReport> tooLong = generateText(*model, bytes, o);
    ASSERT_FALSE(tooLong.ok());
    EXPECT_NE(tooLong.error().message.find("longer than the model's context of 16"), std::string::npos);

    o.prompt = "";
    const Result<GenerateReport> empty = generateText(*model, bytes, o);
    ASSERT_FALSE(empty.ok()); // bytes have no end of text to start after
    EXPECT_NE(empty.error().message.find("empty"), std::string::npos);

    o.prompt = std::string(10, 'x');
    o.maxTokens = 100;
    const Result<GenerateReport> full = generateText(*model, bytes, o);
    ASSERT_TRUE(full.ok()) << full.error().message;
    EXPECT_EQ(full->stopped, "context full");
    EXPECT_EQ(full->tokens, 7); // positions 10..15 run, and each gives the next token

    o.prompt = "x";
    int pieces = 0;
    const Result<GenerateReport> asked = generateText(*model, bytes, o, [&](const std::string &) { return ++pieces < 3; });
    ASSERT_TRUE(asked.ok());
    EXPECT_EQ(asked->stopped, "asked");
    EXPECT_EQ(pieces, 3);

    // A prompt cut inside a character ("\xC2" is the first of the two bytes of "\u00A3"): the
    // continuation starts with that character's first byte, so it never starts with a stray
    // continuation byte that nothing can show, and the prompt's whole characters plus the
    // continuation are the decoded tokens.
    o.prompt = "price: \xC2";
    o.maxTokens = 4;
    const Result<GenerateReport> cut = generateText(*model, bytes, o);
    ASSERT_TRUE(cut.ok()) << cut.error().message;
    ASSERT_EQ(cut->tokens, 4);
    EXPECT_EQ(cut->text.substr(0, 1), "\xC2");
    EXPECT_EQ(cut->text.size(), 5u);
}

} // namespace
