#include "TextDataset.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

TEST(TextDatasetTest, SplitsNinetyTenAndShiftsTargetsByOne)
{
    std::vector<std::int32_t> tokens(1000);
    for (int i = 0; i < 1000; ++i)
        tokens[i] = i;
    const TextDataset dataset = TextDataset::create(tokens, 8).value();
    EXPECT_EQ(dataset.size(Split::Train), 900u);
    EXPECT_EQ(dataset.size(Split::Val), 100u);

    std::mt19937_64 rng(1);
    std::vector<std::int64_t> x(4 * 8), y(4 * 8);
    dataset.sampleBatch(Split::Val, 4, 8, rng, x.data(), y.data());
    for (int i = 0; i < 32; ++i) {
        EXPECT_GE(x[i], 900);
        EXPECT_EQ(y[i], x[i] + 1);
    }
    for (int b = 0; b < 4; ++b)
        EXPECT_EQ(x[b * 8 + 7], x[b * 8] + 7);
}

TEST(TextDatasetTest, SameSeedSameBatches)
{
    std::vector<std::int32_t> tokens(5000, 0);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        tokens[i] = std::int32_t(i % 97);
    const TextDataset dataset = TextDataset::create(tokens, 16).value();
    std::mt19937_64 a(42), b(42), c(43);
    std::vector<std::int64_t> xa(64), ya(64), xb(64), yb(64), xc(64), yc(64);
    dataset.sampleBatch(Split::Train, 4, 16, a, xa.data(), ya.data());
    dataset.sampleBatch(Split::Train, 4, 16, b, xb.data(), yb.data());
    dataset.sampleBatch(Split::Train, 4, 16, c, xc.data(), yc.data());
    EXPECT_EQ(xa, xb);
    EXPECT_NE(xa, xc);
}

TEST(TextDatasetTest, CorpusShorterThanABlockIsAnError)
{
    const auto dataset = TextDataset::create(std::vector<std::int32_t>(100, 1), 64);
    ASSERT_FALSE(dataset.ok());
    EXPECT_NE(dataset.error().message.find("corpus too short"), std::string::npos);
}

TEST(TextDatasetTest, LoadingExplainsWhatIsWrongWithTheData)
{
    TempDir dir;
    EXPECT_NE(loadTextCorpus(dir.path() / "missing.txt").error().message.find("not found"), std::string::npos);
    EXPECT_NE(loadTextCorpus(dir.write("empty.txt", "")).error().message.find("empty"), std::string::npos);
    EXPECT_NE(loadTextCorpus(dir.write("blob.bin", std::string("ab\0cd", 5))).error().message.find("binary"),
              std::string::npos);
    EXPECT_NE(loadTextCorpus(dir.write("latin1.txt", "caf\xe9")).error().message.find("UTF-8"), std::string::npos);
    const auto ok = loadTextCorpus(dir.write("good.txt", "to be or not to be"));
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->text, "to be or not to be");
}

TEST(TextDatasetTest, FolderJoinsTextFilesAndSkipsBinaryOnes)
{
    TempDir dir;
    dir.write("corpus/b.txt", "second");
    dir.write("corpus/a.txt", "first\n");
    dir.write("corpus/a.dat", std::string("\0\0\1", 3));
    const auto corpus = loadTextCorpus(dir.path() / "corpus");
    ASSERT_TRUE(corpus.ok());
    EXPECT_EQ(corpus->text, "first\nsecond");
    EXPECT_EQ(corpus->files.size(), 2u);
    ASSERT_EQ(corpus->skipped.size(), 1u);
    EXPECT_EQ(corpus->skipped[0].filename(), "a.dat");

    std::filesystem::create_directories(dir.path() / "nothing");
    dir.write("nothing/x.bin", std::string("\0", 1));
    EXPECT_FALSE(loadTextCorpus(dir.path() / "nothing").ok());
}
