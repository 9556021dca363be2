#include "SwarmState.h"
#include "TempDir.h"
#include "TinyGpt.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

class SwarmStateTest : public ::testing::Test {
protected:
    test::TempDir dir;
    Tokenizer tokenizer = Tokenizer::buildCharacter(test::generatedText(2000)).value();
    ModelConfig config = test::tinyGptConfig(tokenizer.vocabSize(), 2, 2, 16, 8);
    std::filesystem::path file = dir.path() / "state.safetensors";
};

} // namespace

TEST_F(SwarmStateTest, InitialStateIsRoundZeroWithTheModelsParameters)
{
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    const Result<SwarmStateInfo> info = inspectSwarmState(file);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->round, 0);
    EXPECT_EQ(info->parameterCount, config.parameterCount());
    EXPECT_EQ(info->config.toJson(), config.toJson());
    EXPECT_EQ(info->parametersHash.size(), 64u);
}

TEST_F(SwarmStateTest, TheSeedDecidesTheParameters)
{
    const std::filesystem::path other = dir.path() / "other.safetensors";
    const std::filesystem::path again = dir.path() / "again.safetensors";
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    ASSERT_TRUE(writeInitialSwarmState(again, config, tokenizer, 3).ok());
    ASSERT_TRUE(writeInitialSwarmState(other, config, tokenizer, 4).ok());
    EXPECT_EQ(inspectSwarmState(file)->parametersHash, inspectSwarmState(again)->parametersHash);
    EXPECT_NE(inspectSwarmState(file)->parametersHash, inspectSwarmState(other)->parametersHash);
}

TEST_F(SwarmStateTest, ATamperedFileIsRefused)
{
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(std::streamoff(std::filesystem::file_size(file) - 100));
        f.put('\x7f');
    }
    const Result<SwarmStateInfo> info = inspectSwarmState(file);
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message.find("SHA-256"), std::string::npos) << info.error().message;
}

TEST_F(SwarmStateTest, LossOfAFreshModelIsNearUniformAndRepeatable)
{
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    const std::vector<std::int32_t> tokens = tokenizer.encode(test::generatedText(500, 9)).value();
    const Result<double> loss = swarmStateLoss(file, tokens, 4, 3, 11);
    ASSERT_TRUE(loss.ok()) << loss.error().message;
    EXPECT_NEAR(*loss, std::log(double(tokenizer.vocabSize())), 0.5);
    EXPECT_EQ(*loss, *swarmStateLoss(file, tokens, 4, 3, 11));
}

TEST_F(SwarmStateTest, LossRefusesTokensOutsideTheVocabulary)
{
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    std::vector<std::int32_t> tokens(50, 0);
    tokens[20] = tokenizer.vocabSize();
    EXPECT_FALSE(swarmStateLoss(file, tokens, 2, 1, 1).ok());
}

TEST_F(SwarmStateTest, AFileOfAnotherModelIsRefusedBeforeItsModelIsBuilt)
{
    ASSERT_TRUE(writeInitialSwarmState(file, config, tokenizer, 3).ok());
    ModelConfig swarm = config;
    swarm.nEmbd = 32;
    const Result<SwarmStateInfo> info = inspectSwarmState(file, &swarm);
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message.find("is not the swarm's"), std::string::npos) << info.error().message;
    EXPECT_TRUE(inspectSwarmState(file, &config).ok());
}

TEST_F(SwarmStateTest, AConfigAskingForMoreThanTwoToTheThirtySixParametersIsInvalid)
{
    // Each figure within its own bound; together 2^41 parameters (8 TiB of float32).
    const ModelConfig absurd{ModelFamily::Gpt, 256, 1024, 1, 32768, 32, 0.0, false};
    EXPECT_NE(absurd.validate().find("more than 2^36"), std::string::npos) << absurd.validate();
    EXPECT_FALSE(ModelConfig::fromJson(absurd.toJson()).ok());
    EXPECT_TRUE(config.validate().empty());
}
