#include "CorpusFiles.h"
#include "CorpusTokenizer.h"
#include "Sha256.h"
#include "TempDir.h"
#include "TokenShard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace swarmtrain;
using test::TempDir;

namespace {

// Paragraphs of different lengths, each naming its number.
std::vector<std::string> paragraphs(int count)
{
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) {
        std::string text = "document " + std::to_string(i) + ":";
        for (int w = 0; w < 3 + (i * 7) % 23; ++w)
            text += " word" + std::to_string((i * 31 + w) % 97);
        out.push_back(text);
    }
    return out;
}

std::string asText(const std::vector<std::string> &documents)
{
    std::string text;
    for (const std::string &d : documents)
        text += d + "\n\n";
    return text;
}

struct Pass {
    CorpusInputs inputs;
    Tokenizer tokenizer = Tokenizer::byteLevel();
    CorpusReadOptions read;
    ShardingOptions sharding;
    std::vector<std::string> log;

    Result<CorpusManifest> run(const std::filesystem::path &dir, std::uint64_t stopAfter = 0)
    {
        ShardingOptions options = sharding;
        options.stopAfterShards = stopAfter;
        return CorpusTokenizer(inputs, tokenizer, read, options, dir, [this](const std::string &line) { log.push_back(line); })
            .run();
    }
};

Pass passOver(const std::filesystem::path &corpus, std::uint64_t shardTokens = 200)
{
    Pass pass;
    pass.inputs = listCorpusInputs({corpus}).value();
    pass.sharding.shardTokens = shardTokens;
    return pass;
}

std::vector<std::int32_t> tokensOf(const std::filesystem::path &dir, const std::vector<ShardRecord> &shards,
                                   const Tokenizer &tokenizer)
{
    std::vector<std::int32_t> tokens;
    for (const ShardRecord &shard : shards) {
        const Result<TokenShardHeader> header = readTokenShard(
            dir / shard.fileName(), {std::uint32_t(tokenizer.vocabSize()), tokenizer.sha256(), 1 << 30}, tokens);
        EXPECT_TRUE(header.ok()) << header.error().message;
        if (header) {
            EXPECT_EQ(header->tokens, shard.tokens);
            EXPECT_EQ(header->documents, shard.documents);
        }
    }
    return tokens;
}

// Every file of the shards folder, with its SHA-256.
std::map<std::string, std::string> filesOf(const std::filesystem::path &dir)
{
    std::map<std::string, std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
        files[entry.path().filename().string()] = Sha256::hexOfFile(entry.path()).value();
    return files;
}

} // namespace

TEST(CorpusTokenizerTest, EveryTenthDocumentIsHeldOutWholeAndShardsAreFull)
{
    TempDir dir;
    const std::vector<std::string> documents = paragraphs(300);
    Pass pass = passOver(dir.write("corpus.txt", asText(documents)));
    const Result<CorpusManifest> manifest = pass.run(dir.path() / "shards");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;

    std::vector<std::string> train, held;
    for (std::size_t i = 0; i < documents.size(); ++i)
        (i % 10 == 9 ? held : train).push_back(documents[i]);
    const Tokenizer &t = pass.tokenizer;
    EXPECT_EQ(t.decode(tokensOf(dir.path() / "shards", manifest->train, t)), asText(train));
    EXPECT_EQ(t.decode(tokensOf(dir.path() / "shards", manifest->validation, t)), asText(held));

    ASSERT_GT(manifest->train.size(), 10u);
    std::uint64_t documentsInShards = 0;
    for (std::size_t i = 0; i < manifest->train.size(); ++i) {
        if (i + 1 < manifest->train.size()) {
            EXPECT_EQ(manifest->train[i].tokens, 200u) << "shard " << i;
        }
        EXPECT_EQ(manifest->train[i].id, std::string(6 - std::to_string(i).size(), '0') + std::to_string(i));
        EXPECT_EQ(Sha256::hexOfFile(dir.path() / "shards" / manifest->train[i].fileName()).value(), manifest->train[i].sha256);
        documentsInShards += manifest->train[i].documents;
    }
    EXPECT_EQ(documentsInShards, train.size());
    EXPECT_EQ(manifest->documents, documents.size());
    EXPECT_EQ(manifest->validationDocuments, held.size());
    EXPECT_EQ(manifest->validationBytes, asText(held).size());
    EXPECT_EQ(manifest->validationTokens, asText(held).size());
    EXPECT_EQ(manifest->validation.front().id, "validation-000000");
    EXPECT_EQ(manifest->tokenizerSha256, t.sha256());
    EXPECT_EQ(manifest->badRecords, 0u);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "shards" / "journal.jsonl"));
    const CorpusManifest reread = CorpusManifest::read(dir.path() / "shards" / "manifest.json").value();
    EXPECT_EQ(reread.toJson(), manifest->toJson());
}

TEST(CorpusTokenizerTest, APassStoppedAfterAnyShardResumesToTheSameShards)
{
    TempDir dir;
    Pass pass = passOver(dir.write("corpus.txt", asText(paragraphs(200))), 300);
    const Result<CorpusManifest> whole = pass.run(dir.path() / "whole");
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    const std::map<std::string, std::string> expected = filesOf(dir.path() / "whole");
    const std::size_t shards = whole->train.size() + whole->validation.size();
    ASSERT_GT(shards, 8u);
    for (std::uint64_t stop = 1; stop < shards; ++stop) {
        const std::filesystem::path out = dir.path() / ("stopped-" + std::to_string(stop));
        const Result<CorpusManifest> stopped = pass.run(out, stop);
        ASSERT_FALSE(stopped.ok());
        EXPECT_NE(stopped.error().message.find("stopped after " + std::to_string(stop)), std::string::npos);
        EXPECT_TRUE(std::filesystem::exists(out / "journal.jsonl"));
        EXPECT_FALSE(std::filesystem::exists(out / "manifest.json"));
        // Stopped once more along the way, then to the end.
        const Result<CorpusManifest> again = pass.run(out, 2);
        if (!again.ok()) {
            ASSERT_TRUE(pass.run(out).ok());
        }
        EXPECT_EQ(filesOf(out), expected) << "stopped after " << stop << " shards";
    }
    EXPECT_TRUE(std::any_of(pass.log.begin(), pass.log.end(),
                            [](const std::string &line) { return line.find("resuming") != std::string::npos; }));
}

TEST(CorpusTokenizerTest, AKillBetweenAShardAndItsJournalLineLosesNothing)
{
    TempDir dir;
    Pass pass = passOver(dir.write("corpus.txt", asText(paragraphs(200))), 300);
    ASSERT_TRUE(pass.run(dir.path() / "whole").ok());
    const std::filesystem::path out = dir.path() / "killed";
    ASSERT_FALSE(pass.run(out, 5).ok());
    // The fifth shard's journal line never made it to the disk, and a temp file was left behind.
    std::ifstream in(out / "journal.jsonl");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    in.close();
    ASSERT_EQ(lines.size(), 6u);
    std::ofstream(out / "journal.jsonl", std::ios::trunc) << lines[0] << "\n" << lines[1] << "\n" << lines[2] << "\n"
                                                          << lines[3] << "\n" << lines[4] << "\n";
    std::ofstream(out / ".000005.tokens.tmp-abc123") << "half a shard";
    ASSERT_TRUE(pass.run(out).ok());
    EXPECT_EQ(filesOf(out), filesOf(dir.path() / "whole"));
}

TEST(CorpusTokenizerTest, OtherDataStartsThePassOver)
{
    TempDir dir;
    Pass first = passOver(dir.write("a/corpus.txt", asText(paragraphs(200))), 300);
    ASSERT_FALSE(first.run(dir.path() / "out", 3).ok());
    Pass second = passOver(dir.write("b/corpus.txt", asText(paragraphs(250))), 300);
    ASSERT_TRUE(second.run(dir.path() / "out").ok());
    ASSERT_TRUE(second.run(dir.path() / "fresh").ok());
    EXPECT_EQ(filesOf(dir.path() / "out"), filesOf(dir.path() / "fresh"));
}

TEST(CorpusTokenizerTest, TheValidationSplitStopsAtItsBound)
{
    TempDir dir;
    const std::vector<std::string> documents = paragraphs(400);
    Pass pass = passOver(dir.write("corpus.txt", asText(documents)));
    pass.sharding.maxValidationTokens = 1000;
    const Result<CorpusManifest> manifest = pass.run(dir.path() / "shards");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    EXPECT_GE(manifest->validationTokens, 1000u);
    EXPECT_LT(manifest->validationTokens, 1000u + 300u);
    EXPECT_LT(manifest->validationDocuments, 40u);
    EXPECT_EQ(manifest->validationTokens + manifest->trainTokens(), asText(documents).size());
}

TEST(CorpusTokenizerTest, TooFewDocumentsForAValidationSplitIsAnError)
{
    TempDir dir;
    Pass pass = passOver(dir.write("short.txt", asText(paragraphs(9))));
    const Result<CorpusManifest> manifest = pass.run(dir.path() / "shards");
    ASSERT_FALSE(manifest.ok());
    EXPECT_NE(manifest.error().message.find("9 documents"), std::string::npos) << manifest.error().message;
}

TEST(CorpusTokenizerTest, SentencePieceDocumentsEndWithItsEndOfText)
{
    TempDir dir;
    const std::vector<std::string> documents = paragraphs(120);
    std::size_t line = 0;
    SentencePieceTraining training;
    training.vocabSize = 300;
    const Result<std::string> model = trainSentencePiece(training, [&](std::string &out) {
        if (line >= documents.size())
            return false;
        out = documents[line++];
        return true;
    });
    ASSERT_TRUE(model.ok()) << model.error().message;
    Pass pass = passOver(dir.write("corpus.jsonl.gz", test::gzipBytes([&] {
                             std::string lines;
                             for (const std::string &d : documents)
                                 lines += "{\"text\": \"" + d + "\"}\n";
                             return lines;
                         }())),
                         100);
    pass.tokenizer = Tokenizer::fromSentencePiece(*model).value();
    const Result<CorpusManifest> manifest = pass.run(dir.path() / "shards");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    const std::vector<std::int32_t> held = tokensOf(dir.path() / "shards", manifest->validation, pass.tokenizer);
    const std::int32_t eos = pass.tokenizer.endOfText();
    ASSERT_GE(eos, 0);
    EXPECT_EQ(std::count(held.begin(), held.end(), eos), 12);
    EXPECT_EQ(held.back(), eos);
    std::uint64_t bytes = 0;
    auto begin = held.begin();
    for (std::size_t i = 9; i < documents.size(); i += 10) {
        bytes += documents[i].size();
        const auto end = std::find(begin, held.end(), eos);
        EXPECT_EQ(pass.tokenizer.decode(std::vector<std::int32_t>(begin, end)), documents[i]);
        begin = end + 1;
    }
    EXPECT_EQ(manifest->validationBytes, bytes) << "an end of text decodes to no bytes";
    EXPECT_EQ(manifest->tokenizerKind, "sentencepiece");
}
