#include "ShardManifest.h"
#include "TempDir.h"
#include "Tokenizer.h"

#include <fstream>
#include <gtest/gtest.h>

#include <set>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

// Text full of 2-, 3- and 4-byte characters, so most byte offsets fall inside one.
std::string multiByteText(std::size_t characters)
{
    const char *pieces[] = {"a", "é", "€", "😀", " ", "ß", "\n"};
    std::string text;
    for (std::size_t i = 0; i < characters; ++i)
        text += pieces[(i * 7 + i / 3) % std::size(pieces)];
    return text;
}

std::string readAll(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST(ShardManifestTest, CutsOnUtf8BoundariesAndKeepsEveryByte)
{
    TempDir dir;
    const std::string text = multiByteText(5000);
    Result<ShardManifest> manifest = ShardManifest::openOrCreate(dir.path(), text, 61);
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    std::string joined;
    for (const ShardInfo &shard : manifest->shards()) {
        const std::string piece = readAll(manifest->shardPath(shard));
        EXPECT_EQ(piece.size(), shard.bytes);
        EXPECT_LE(piece.size(), 61u + 3u);
        EXPECT_EQ(firstInvalidUtf8(piece), std::string::npos) << "shard " << shard.id << " cuts a character";
        joined += piece;
    }
    EXPECT_EQ(firstInvalidUtf8(manifest->validationText()), std::string::npos);
    EXPECT_EQ(joined + manifest->validationText(), text);
    // About the last tenth is held back for validation.
    EXPECT_NEAR(double(manifest->validationText().size()) / double(text.size()), 0.1, 0.01);
}

TEST(ShardManifestTest, ShardSmallerThanACharacterStillAdvances)
{
    const std::string text = "😀😀😀";
    const std::vector<std::size_t> ends = ShardManifest::cutPoints(text, 1);
    EXPECT_EQ(ends, (std::vector<std::size_t>{4, 8, 12}));
}

TEST(ShardManifestTest, ReopenReusesAndVerifies)
{
    TempDir dir;
    const std::string text = swarmtrain::test::generatedText(20000);
    Result<ShardManifest> first = ShardManifest::openOrCreate(dir.path(), text, 4096);
    ASSERT_TRUE(first.ok());
    Result<ShardManifest> again = ShardManifest::openOrCreate(dir.path(), text, 4096);
    ASSERT_TRUE(again.ok()) << again.error().message;
    ASSERT_EQ(again->shards().size(), first->shards().size());
    EXPECT_EQ(again->shards().back().sha256, first->shards().back().sha256);
    EXPECT_EQ(again->validationText(), first->validationText());
    ASSERT_NE(again->find("000001"), nullptr);
    EXPECT_EQ(again->find("../manifest"), nullptr);
}

TEST(ShardManifestTest, TamperedShardIsAnError)
{
    TempDir dir;
    const std::string text = swarmtrain::test::generatedText(20000);
    Result<ShardManifest> manifest = ShardManifest::openOrCreate(dir.path(), text, 4096);
    ASSERT_TRUE(manifest.ok());
    const std::filesystem::path shard = manifest->shardPath(manifest->shards()[1]);
    std::string content = readAll(shard);
    content[10] = content[10] == 'x' ? 'y' : 'x';
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << content;
    Result<ShardManifest> reopened = ShardManifest::openOrCreate(dir.path(), text, 4096);
    ASSERT_FALSE(reopened.ok());
    EXPECT_NE(reopened.error().message.find("000001.txt"), std::string::npos) << reopened.error().message;
}

TEST(ShardManifestTest, DifferentDataOrShardSizeIsAnError)
{
    TempDir dir;
    const std::string text = swarmtrain::test::generatedText(20000);
    ASSERT_TRUE(ShardManifest::openOrCreate(dir.path(), text, 4096).ok());
    Result<ShardManifest> otherText = ShardManifest::openOrCreate(dir.path(), text + "more", 4096);
    ASSERT_FALSE(otherText.ok());
    EXPECT_NE(otherText.error().message.find("differs"), std::string::npos);
    EXPECT_FALSE(ShardManifest::openOrCreate(dir.path(), text, 8192).ok());
}

TEST(ShardManifestTest, DamagedManifestIsAnError)
{
    TempDir dir;
    ASSERT_TRUE(ShardManifest::openOrCreate(dir.path(), swarmtrain::test::generatedText(20000), 4096).ok());
    std::ofstream(dir.path() / "shards" / "manifest.json", std::ios::trunc) << "{\"version\": 1, \"shards\": [";
    Result<ShardManifest> reopened = ShardManifest::open(dir.path());
    ASSERT_FALSE(reopened.ok());
    EXPECT_NE(reopened.error().message.find("manifest"), std::string::npos) << reopened.error().message;
}

TEST(ShardManifestTest, FourPeersCoverEveryShardAndEachPeerGetsTwoGroups)
{
    std::vector<ShardInfo> shards(20);
    for (std::size_t i = 0; i < shards.size(); ++i)
        shards[i].id = std::to_string(i);
    std::set<std::string> covered;
    for (std::int64_t ordinal = 0; ordinal < 4; ++ordinal) {
        const std::vector<std::string> mine = dealShards(ordinal, shards);
        EXPECT_GE(mine.size(), 4u) << "two of eight groups of 20 shards";
        covered.insert(mine.begin(), mine.end());
    }
    EXPECT_EQ(covered.size(), shards.size());
    EXPECT_EQ(dealShards(8, shards), dealShards(0, shards)) << "the ninth peer shares the first one's groups";
    EXPECT_EQ(dealShards(0, std::vector<ShardInfo>(1, ShardInfo{"only", 1, ""})), std::vector<std::string>{"only"});
    EXPECT_TRUE(dealShards(3, {}).empty());
}
