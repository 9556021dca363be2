#include "PipelineStage.h"
#include "StagePartition.h"
#include "SwarmState.h"
#include "TempDir.h"
#include "TinyGpt.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
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

namespace {

// Stages of `config` split in `count`, each stepped once with a gradient that depends only on
// each parameter's name and index, so the tied embedding's two copies stay equal.
std::vector<std::unique_ptr<PipelineStage>> steppedStages(const ModelConfig &config, int count)
{
    std::vector<std::unique_ptr<PipelineStage>> stages;
    Result<std::vector<StageSpan>> spans = partitionStages(config, count);
    EXPECT_TRUE(spans.ok()) << spans.error().message;
    for (const StageSpan &span : spans ? *spans : std::vector<StageSpan>{}) {
        Result<std::unique_ptr<PipelineStage>> created = PipelineStage::create(config, span, {});
        EXPECT_TRUE(created.ok()) << created.error().message;
        if (!created)
            break;
        std::unique_ptr<PipelineStage> stage = std::move(*created);
        std::vector<float> gradient;
        for (const auto &[name, size] : stage->parameterLayout()) {
            const float scale = float(std::hash<std::string>{}(name) % 97) / 97.0f - 0.5f;
            for (std::int64_t i = 0; i < size; ++i)
                gradient.push_back(scale * float((i % 7) - 3));
        }
        EXPECT_TRUE(stage->step(gradient, 1e-2, 0.0).ok());
        stages.push_back(std::move(stage));
    }
    return stages;
}

std::vector<std::vector<std::byte>> statesOf(const std::vector<std::unique_ptr<PipelineStage>> &stages)
{
    std::vector<std::vector<std::byte>> states;
    for (const auto &stage : stages)
        states.push_back(stage->exportState());
    return states;
}

// writeSwarmStateFromStages over states held in memory.
Result<void> writeFromStates(const std::filesystem::path &file, const ModelConfig &config, const Tokenizer &tokenizer,
                             const std::vector<std::vector<std::byte>> &states, std::int64_t round)
{
    return writeSwarmStateFromStages(file, config, tokenizer, int(states.size()),
                                     [&](int stage) -> Result<std::vector<std::byte>> { return states.at(std::size_t(stage)); },
                                     round);
}

} // namespace

// A pipeline swarm's model (issue 44): its stages' states put together make a state file whose
// every stage part hashes to the stage's own hash, with the steps done as its round and the
// stages' optimizer steps as its schedule step; both families, the Llama with a tied embedding
// split across the first and last stages.
TEST_F(SwarmStateTest, AWholeModelPutTogetherFromItsStagesHoldsEachStagesParameters)
{
    for (const ModelConfig &model : {config, test::tinyLlamaConfig(tokenizer.vocabSize(), 3, 4, 2, 16, 40, 8, true)}) {
        const std::vector<std::unique_ptr<PipelineStage>> stages = steppedStages(model, 3);
        ASSERT_TRUE(writeFromStates(file, model, tokenizer, statesOf(stages), 7).ok());
        const Result<std::vector<std::string>> hashes = swarmStateStageHashes(file, 3);
        ASSERT_TRUE(hashes.ok()) << hashes.error().message;
        for (std::size_t s = 0; s < stages.size(); ++s) {
            EXPECT_EQ((*hashes)[s], stages[s]->hash()) << "stage " << s;
            EXPECT_EQ(stageStateHash(model, stages[s]->span(), stages[s]->exportState()).value(), stages[s]->hash());
        }
        const Result<SwarmStateInfo> info = inspectSwarmState(file, &model);
        ASSERT_TRUE(info.ok()) << info.error().message;
        EXPECT_EQ(info->round, 7);
        EXPECT_EQ(info->parameterCount, model.parameterCount());
        std::filesystem::remove(file);
    }
}

// Bad stage states: one of another stage's size, one whose tied embedding copy differs from the
// first stage's, one that is not a stage state at all; each refused with its reason, no file
// left.
TEST_F(SwarmStateTest, StageStatesThatDoNotFitTogetherAreRefused)
{
    const ModelConfig llama = test::tinyLlamaConfig(tokenizer.vocabSize(), 3, 4, 2, 16, 40, 8, true);
    const std::vector<std::unique_ptr<PipelineStage>> stages = steppedStages(llama, 3);
    std::vector<std::vector<std::byte>> states = statesOf(stages);

    std::vector<std::vector<std::byte>> swapped = states;
    std::swap(swapped[0], swapped[1]);
    Result<void> written = writeFromStates(file, llama, tokenizer, swapped, 1);
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message.find("stage 0"), std::string::npos) << written.error().message;

    // The last stage's copy of the embedding, one step further on its own.
    std::unique_ptr<PipelineStage> last = PipelineStage::create(llama, stages[2]->span(), {}).value();
    ASSERT_TRUE(last->importState(states[2]).ok());
    ASSERT_TRUE(last->step(std::vector<float>(std::size_t(last->parameterCount()), 0.5f), 1e-2, 0.0).ok());
    std::vector<std::vector<std::byte>> diverged = states;
    diverged[2] = last->exportState();
    written = writeFromStates(file, llama, tokenizer, diverged, 1);
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message.find("differ"), std::string::npos) << written.error().message;

    std::vector<std::byte> garbage(states[1].size(), std::byte{0x42});
    const Result<std::string> hash = stageStateHash(llama, stages[1]->span(), garbage);
    ASSERT_FALSE(hash.ok());
    EXPECT_NE(hash.error().message.find("not a stage state"), std::string::npos) << hash.error().message;
    EXPECT_FALSE(std::filesystem::exists(file));
}
