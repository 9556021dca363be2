#include "ModelConfig.h"
#include "TinyGpt.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// Hugging Face's LlamaConfig of SmolLM-135M, as a host would paste it.
constexpr const char *kSmolLm = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "bos_token_id": 0, "eos_token_id": 0,
  "hidden_act": "silu", "hidden_size": 576, "initializer_range": 0.02, "intermediate_size": 1536,
  "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 9,
  "num_hidden_layers": 30, "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": null, "rope_theta": 10000.0, "tie_word_embeddings": true, "torch_dtype": "float32",
  "transformers_version": "4.40.0", "use_cache": true, "vocab_size": 49152})";

TEST(ModelConfigTest, ReadsAHuggingFaceLlamaConfig)
{
    const Result<ModelConfig> c = ModelConfig::fromJson(kSmolLm);
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_TRUE(c->isLlama());
    EXPECT_EQ(c->nEmbd, 576);
    EXPECT_EQ(c->nHead, 9);
    EXPECT_EQ(c->nKvHead, 3);
    EXPECT_EQ(c->nLayer, 30);
    EXPECT_EQ(c->intermediateSize, 1536);
    EXPECT_EQ(c->blockSize, 2048);
    EXPECT_EQ(c->vocabSize, 49152);
    EXPECT_TRUE(c->tieEmbeddings);
    // SmolLM-135M: 134,515,008 parameters (the tied head counted once).
    EXPECT_EQ(c->parameterCount(), 134515008);
    EXPECT_EQ(c->tiedEmbeddingName(), "model.embed_tokens.weight");
}

TEST(ModelConfigTest, RoundTripsBothFamiliesThroughJson)
{
    const ModelConfig gpt = test::tinyGptConfig(65, 4, 4, 128, 64);
    ModelConfig llama = test::tinyLlamaConfig(4096, 6, 8, 2, 256, 688, 512, false);
    llama.ropeTheta = 500000.0;
    llama.rmsNormEps = 1e-6;
    for (const ModelConfig &config : {gpt, llama}) {
        const Result<ModelConfig> back = ModelConfig::fromJson(config.toJson());
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(*back, config);
        EXPECT_EQ(back->toJson(), config.toJson());
    }
    // The GPT's JSON is what nanoGPT's GPTConfig and older SwarmTrain states hold.
    EXPECT_EQ(gpt.toJson().find("family"), std::string::npos);
    EXPECT_EQ(gpt.tiedEmbeddingName(), "transformer.wte.weight");
    EXPECT_EQ(llama.tiedEmbeddingName(), "");
}

TEST(ModelConfigTest, CountsLlamaParametersAsTheLayersHold)
{
    // Per block: q and o C x C, k and v C x (kv x hs), three C x I, two norms.
    const ModelConfig c = test::tinyLlamaConfig(100, 2, 4, 2, 32, 88, 16, true);
    const std::int64_t block = 2 * 32 * 32 + 2 * 32 * 16 + 3 * 32 * 88 + 2 * 32;
    EXPECT_EQ(c.blockParameterCount(), block);
    EXPECT_EQ(c.parameterCount(), 100 * 32 + 2 * block + 32);
    ModelConfig untied = c;
    untied.tieEmbeddings = false;
    EXPECT_EQ(untied.parameterCount(), c.parameterCount() + 100 * 32);
    // The untied embedding is a lookup: no FLOPs; its head is a matmul.
    EXPECT_DOUBLE_EQ(untied.flopsPerToken(), c.flopsPerToken());
}

TEST(ModelConfigTest, RefusesConfigsItCannotBuildNamingTheField)
{
    const auto refused = [](const std::string &json) {
        const Result<ModelConfig> c = ModelConfig::fromJson(json);
        return c.ok() ? std::string("accepted") : c.error().message;
    };
    const std::string base = R"("model_type": "llama", "vocab_size": 100, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 64)";
    EXPECT_EQ(refused("{" + base + "}"), "accepted");
    EXPECT_NE(refused("{" + base + R"(, "num_key_value_heads": 3})").find("num_key_value_heads (3) must divide"), std::string::npos);
    EXPECT_NE(refused("{" + base + R"(, "num_key_value_heads": 8})").find("num_key_value_heads"), std::string::npos);
    // Sizes that overflow 32 bits, or whose product would, are refused before anything is built.
    EXPECT_NE(refused(R"({"model_type": "llama", "vocab_size": 100, "hidden_size": 4294967360, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 64})")
                  .find("hidden_size must be between"),
              std::string::npos);
    EXPECT_NE(refused(R"({"model_type": "llama", "vocab_size": 16777216, "hidden_size": 65536, "intermediate_size": 1048576,
        "num_hidden_layers": 1024, "num_attention_heads": 1024, "max_position_embeddings": 64})")
                  .find("more than 2^36"),
              std::string::npos);
    EXPECT_NE(refused(R"({"model_type": "llama", "vocab_size": 1e30, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 64})")
                  .find("vocab_size must be a whole number"),
              std::string::npos);
    EXPECT_NE(refused("{" + base + R"(, "hidden_act": "gelu"})").find("hidden_act"), std::string::npos);
    EXPECT_NE(refused("{" + base + R"(, "attention_bias": true})").find("attention_bias"), std::string::npos);
    EXPECT_NE(refused("{" + base + R"(, "rope_scaling": {"type": "linear", "factor": 2.0}})").find("rope_scaling"),
              std::string::npos);
    EXPECT_NE(refused("{" + base + R"(, "rms_norm_eps": 0})").find("rms_norm_eps"), std::string::npos);
    EXPECT_NE(refused(R"({"model_type": "mistral"})").find("model_type"), std::string::npos);
    EXPECT_NE(refused(R"({"family": "llama", "vocab_size": 100})").find("is missing"), std::string::npos);
    // An odd head size cannot be rotated in pairs.
    EXPECT_NE(refused(R"({"model_type": "llama", "vocab_size": 100, "hidden_size": 60, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 64})")
                  .find("must be even"),
              std::string::npos);
    EXPECT_NE(refused("[1, 2]").find("not a JSON object"), std::string::npos);
}

TEST(ModelConfigTest, FitsTheVocabularyToTheTokenizer)
{
    ModelConfig c = test::tinyLlamaConfig(0, 1, 2, 2, 16, 32, 8);
    ASSERT_TRUE(fitVocabulary(c, 1000).ok());
    EXPECT_EQ(c.vocabSize, 1000);
    c.vocabSize = 1024; // padded to a multiple of 64
    EXPECT_TRUE(fitVocabulary(c, 1000).ok());
    c.vocabSize = 999;
    const Result<void> smaller = fitVocabulary(c, 1000);
    ASSERT_FALSE(smaller.ok());
    EXPECT_NE(smaller.error().message.find("smaller than the tokenizer's 1000"), std::string::npos);
    c.vocabSize = 32000;
    const Result<void> larger = fitVocabulary(c, 1000);
    ASSERT_FALSE(larger.ok());
    EXPECT_NE(larger.error().message.find("larger than the tokenizer's 1000"), std::string::npos);
}

} // namespace
