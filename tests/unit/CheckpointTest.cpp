#include "Checkpoint.h"
#include "FileIo.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

struct Trained {
    ModelConfig config;
    Decoder model{nullptr};
    std::unique_ptr<FlatParameters> flat;
    std::unique_ptr<AdamW> optimizer;
    Tokenizer tokenizer = Tokenizer::buildCharacter("abcdefghij klm").value();

    Trained()
    {
        config.vocabSize = tokenizer.vocabSize();
        config.nLayer = 2;
        config.nHead = 2;
        config.nEmbd = 8;
        config.blockSize = 5;
        model = Decoder(config);
        flat = std::make_unique<FlatParameters>(model->namedParameters());
        optimizer = std::make_unique<AdamW>(*flat, AdamWOptions{});
        const torch::Tensor x = torch::randint(0, config.vocabSize, {2, 5}, torch::kLong);
        DecoderImpl::loss(model->forward(x), x).backward();
        optimizer->step(1e-2, 1.0);
    }
};

} // namespace

TEST(CheckpointTest, RoundTripsModelOptimizerTokenizerAndState)
{
    test::TempDir dir;
    Trained trained;
    const TrainingState state{17, "rng-state", "/data/x.txt", 2.5};
    ASSERT_TRUE(saveCheckpoint(checkpointFile(dir.path()), *trained.model, trained.optimizer.get(),
                               trained.tokenizer, state)
                    .ok());

    const Result<LoadedCheckpoint> loaded = readCheckpoint(checkpointFile(dir.path()));
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->state.iter, 17);
    EXPECT_EQ(loaded->state.dataRngState, "rng-state");
    EXPECT_EQ(loaded->config.toJson(), trained.config.toJson());
    EXPECT_EQ(loaded->tokenizer.vocabulary(), trained.tokenizer.vocabulary());

    Decoder restored(loaded->config);
    FlatParameters flat(restored->namedParameters());
    AdamW optimizer(flat, {});
    ASSERT_TRUE(restoreModel(*loaded, *restored).ok());
    ASSERT_TRUE(restoreOptimizer(*loaded, flat, optimizer).ok());
    EXPECT_TRUE(torch::equal(flat.values(), trained.flat->values()));
    EXPECT_TRUE(torch::equal(optimizer.expAvgSq(), trained.optimizer->expAvgSq()));
    EXPECT_EQ(optimizer.stepCount(), 1);
}

TEST(CheckpointTest, DamagedFilesAreRefused)
{
    test::TempDir dir;
    Trained trained;
    const auto file = checkpointFile(dir.path());
    ASSERT_TRUE(saveCheckpoint(file, *trained.model, trained.optimizer.get(), trained.tokenizer, {}).ok());
    const std::vector<std::byte> good = readFileBytes(file, 1 << 30).value();

    std::vector<std::byte> flipped = good;
    flipped[good.size() - 100] ^= std::byte{0x10};
    ASSERT_TRUE(writeFileAtomically(file, flipped).ok());
    const auto tampered = readCheckpoint(file);
    ASSERT_FALSE(tampered.ok());
    EXPECT_NE(tampered.error().message.find("SHA-256"), std::string::npos);

    ASSERT_TRUE(writeFileAtomically(file, std::span(good).first(good.size() / 2)).ok());
    EXPECT_FALSE(readCheckpoint(file).ok());
}
