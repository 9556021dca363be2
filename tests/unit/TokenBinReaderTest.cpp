#include "CorpusFiles.h"
#include "TempDir.h"
#include "TokenBinReader.h"

#include <gtest/gtest.h>

using namespace swarmtrain;
using test::TempDir;

namespace {

struct Read {
    std::vector<std::vector<std::int32_t>> documents;
    std::vector<std::string> where;
    std::optional<Error> error;
};

Read readAll(const std::filesystem::path &file, TokenSpace space, BadRecords &bad, std::size_t maxTokens = 1 << 20)
{
    TokenBinReader reader(RawFile::open(file).value(), file.filename().string(), space, bad, maxTokens);
    Read read;
    Document document;
    for (;;) {
        Result<bool> got = reader.next(document);
        if (!got) {
            read.error = got.error();
            return read;
        }
        if (!*got)
            return read;
        EXPECT_TRUE(document.pretokenized);
        EXPECT_TRUE(document.text.empty());
        read.documents.push_back(document.tokens);
        read.where.push_back(document.where);
    }
}

} // namespace

TEST(TokenBinReaderTest, DocumentsAreTheRunsBetweenEndOfTextTokens)
{
    TempDir dir;
    // llm.c puts the separator before each document.
    const auto file = dir.write("a.bin", test::llmcBin({2, 10, 11, 12, 2, 13, 2, 2, 14, 15}));
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readAll(file, TokenSpace{100, 2}, bad);
    ASSERT_FALSE(read.error);
    EXPECT_EQ(read.documents, (std::vector<std::vector<std::int32_t>>{{10, 11, 12}, {13}, {14, 15}}));
    EXPECT_EQ(read.where[1], "a.bin: byte " + std::to_string(1024 + 5 * 2));
    EXPECT_EQ(bad.count(), 0u);
}

TEST(TokenBinReaderTest, WithoutSeparatorsDocumentsArePiecesOfTheBound)
{
    TempDir dir;
    std::vector<std::int32_t> tokens(25);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        tokens[i] = std::int32_t(i);
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readAll(dir.write("b.bin", test::llmcBin(tokens, 2)), TokenSpace{256, -1}, bad, 10);
    ASSERT_FALSE(read.error);
    ASSERT_EQ(read.documents.size(), 3u);
    EXPECT_EQ(read.documents[0].size(), 10u);
    EXPECT_EQ(read.documents[2], (std::vector<std::int32_t>{20, 21, 22, 23, 24}));
}

TEST(TokenBinReaderTest, ATokenOutsideTheVocabularyDropsItsDocumentOnly)
{
    TempDir dir;
    const auto file = dir.write("c.bin", test::llmcBin({2, 10, 11, 2, 12, 999, 13, 2, 14}));
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readAll(file, TokenSpace{100, 2}, bad);
    ASSERT_FALSE(read.error);
    EXPECT_EQ(read.documents, (std::vector<std::vector<std::int32_t>>{{10, 11}, {14}}));
    ASSERT_EQ(bad.count(), 1u);
    EXPECT_NE(bad.first()[0].find("c.bin: byte " + std::to_string(1024 + 5 * 2) + ": token 999"), std::string::npos)
        << bad.first()[0];

    BadRecords refuse(BadRecordPolicy::Refuse, {});
    const Read refused = readAll(file, TokenSpace{100, 2}, refuse);
    ASSERT_TRUE(refused.error);
    EXPECT_NE(refused.error->message.find("token 999"), std::string::npos);
}

TEST(TokenBinReaderTest, AFileWhoseHeaderLiesIsABadRecordAndGivesNothing)
{
    TempDir dir;
    const auto file = dir.write("lying.bin", test::llmcBin({1, 2, 3}, 1, 1'000'000));
    BadRecords bad(BadRecordPolicy::Skip, {});
    const Read read = readAll(file, TokenSpace{100, 2}, bad);
    ASSERT_FALSE(read.error);
    EXPECT_TRUE(read.documents.empty());
    ASSERT_EQ(bad.count(), 1u);
    EXPECT_NE(bad.first()[0].find("lying.bin: byte 0: the header claims 1000000 tokens"), std::string::npos)
        << bad.first()[0];

    BadRecords refuse(BadRecordPolicy::Refuse, {});
    EXPECT_TRUE(readAll(dir.write("tiny.bin", "short"), TokenSpace{100, 2}, refuse).error);
}
