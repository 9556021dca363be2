#include "ShardManifest.h"
#include "TempDir.h"
#include "Tokenizer.h"

#include <fstream>
#include <gtest/gtest.h>

#include <set>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

struct Data {
    CorpusInputs inputs;
    Tokenizer tokenizer = Tokenizer::byteLevel();
    ShardingOptions sharding;
    std::vector<std::string> log;

    Result<ShardManifest> openOrCreate(const std::filesystem::path &stateDir)
    {
        return ShardManifest::openOrCreate(stateDir, inputs, tokenizer, {}, sharding,
                                           [this](const std::string &line) { log.push_back(line); });
    }
};

Data dataOf(const TempDir &dir, const std::string &text, std::uint64_t shardTokens = 4096)
{
    Data data;
    data.inputs = listCorpusInputs({dir.write("data.txt", text)}).value();
    data.sharding.shardTokens = shardTokens;
    return data;
}

bool logged(const Data &data, const std::string &what)
{
    return std::any_of(data.log.begin(), data.log.end(),
                       [&](const std::string &line) { return line.find(what) != std::string::npos; });
}

} // namespace

TEST(ShardManifestTest, TheCorpusBecomesTokenShardsAndAValidationSplit)
{
    TempDir dir;
    Data data = dataOf(dir, test::generatedText(60000));
    Result<ShardManifest> manifest = data.openOrCreate(dir.path() / "state");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    ASSERT_GT(manifest->shards().size(), 10u);
    std::uint64_t trainTokens = 0;
    for (const ShardInfo &shard : manifest->shards()) {
        EXPECT_EQ(std::filesystem::file_size(manifest->shardPath(shard)), shard.bytes);
        EXPECT_EQ(manifest->shardPath(shard).extension(), ".tokens");
        trainTokens += shard.tokens;
    }
    EXPECT_EQ(manifest->shards()[0].tokens, 4096u);
    ASSERT_NE(manifest->find("000001"), nullptr);
    EXPECT_EQ(manifest->find("../manifest"), nullptr);
    EXPECT_EQ(manifest->find("validation-000000"), nullptr) << "the held-out split is not served";
    // Every tenth paragraph is held out: about a tenth of the text.
    EXPECT_NEAR(double(manifest->validationTokens()) / double(manifest->validationTokens() + trainTokens), 0.1, 0.04);
    EXPECT_EQ(manifest->validationBytes(), manifest->validationTokens()) << "a byte a token";
    const Result<std::vector<std::int32_t>> validation = manifest->readValidationTokens();
    ASSERT_TRUE(validation.ok()) << validation.error().message;
    EXPECT_EQ(validation->size(), manifest->validationTokens());
    EXPECT_TRUE(logged(data, "tokenizing the corpus"));
}

TEST(ShardManifestTest, ReopenReusesAndVerifies)
{
    TempDir dir;
    Data data = dataOf(dir, test::generatedText(20000));
    Result<ShardManifest> first = data.openOrCreate(dir.path() / "state");
    ASSERT_TRUE(first.ok()) << first.error().message;
    data.log.clear();
    Result<ShardManifest> again = data.openOrCreate(dir.path() / "state");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_FALSE(logged(data, "tokenizing")) << "a finished pass is not run again";
    ASSERT_EQ(again->shards().size(), first->shards().size());
    EXPECT_EQ(again->shards().back().sha256, first->shards().back().sha256);
    EXPECT_EQ(again->validationTokens(), first->validationTokens());
}

TEST(ShardManifestTest, TamperedShardIsAnError)
{
    TempDir dir;
    Data data = dataOf(dir, test::generatedText(20000));
    Result<ShardManifest> manifest = data.openOrCreate(dir.path() / "state");
    ASSERT_TRUE(manifest.ok());
    const std::filesystem::path shard = manifest->shardPath(manifest->shards()[1]);
    std::string content = test::readWholeFile(shard);
    content[200] = char(content[200] ^ 1);
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << content;
    Result<ShardManifest> reopened = data.openOrCreate(dir.path() / "state");
    ASSERT_FALSE(reopened.ok());
    EXPECT_NE(reopened.error().message.find("000001.tokens"), std::string::npos) << reopened.error().message;
}

TEST(ShardManifestTest, DifferentDataShardSizeOrTokenizerIsAnError)
{
    TempDir dir;
    Data data = dataOf(dir, test::generatedText(20000));
    ASSERT_TRUE(data.openOrCreate(dir.path() / "state").ok());
    Data other = dataOf(dir, test::generatedText(20000) + "more");
    Result<ShardManifest> otherText = other.openOrCreate(dir.path() / "state");
    ASSERT_FALSE(otherText.ok());
    EXPECT_NE(otherText.error().message.find("differ"), std::string::npos);
    Data smaller = dataOf(dir, test::generatedText(20000), 1024);
    EXPECT_FALSE(smaller.openOrCreate(dir.path() / "state").ok());
    const Tokenizer characters = Tokenizer::buildCharacter(test::generatedText(20000)).value();
    const Result<ShardManifest> otherTokenizer = ShardManifest::open(dir.path() / "state", characters);
    ASSERT_FALSE(otherTokenizer.ok());
    EXPECT_NE(otherTokenizer.error().message.find("another tokenizer"), std::string::npos);
}

TEST(ShardManifestTest, DamagedOrOlderManifestIsAnError)
{
    TempDir dir;
    Data data = dataOf(dir, test::generatedText(20000));
    ASSERT_TRUE(data.openOrCreate(dir.path() / "state").ok());
    std::ofstream(dir.path() / "state" / "shards" / "manifest.json", std::ios::trunc) << "{\"version\": 2, \"shards\": [";
    Result<ShardManifest> reopened = ShardManifest::open(dir.path() / "state", data.tokenizer);
    ASSERT_FALSE(reopened.ok());
    EXPECT_NE(reopened.error().message.find("manifest"), std::string::npos) << reopened.error().message;
    std::ofstream(dir.path() / "state" / "shards" / "manifest.json", std::ios::trunc)
        << R"({"version": 1, "shard_bytes": 4096, "text_sha256": "x", "shards": []})";
    reopened = ShardManifest::open(dir.path() / "state", data.tokenizer);
    ASSERT_FALSE(reopened.ok());
    EXPECT_NE(reopened.error().message.find("new state dir"), std::string::npos) << reopened.error().message;
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
    EXPECT_EQ(dealShards(0, std::vector<ShardInfo>(1, ShardInfo{"only", 1, "", 1})), std::vector<std::string>{"only"});
    EXPECT_TRUE(dealShards(3, {}).empty());
}
