#include "CorpusFiles.h"
#include "LlmcBinHeader.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

Result<LlmcBinHeader> decode(const std::string &file)
{
    return decodeLlmcBinHeader(std::as_bytes(std::span(file.data(), file.size())), file.size());
}

std::string errorOf(const std::string &file)
{
    const Result<LlmcBinHeader> header = decode(file);
    EXPECT_FALSE(header.ok());
    return header ? std::string() : header.error().message;
}

} // namespace

TEST(LlmcBinHeaderTest, ReadsVersionsOneAndTwo)
{
    const Result<LlmcBinHeader> v1 = decode(test::llmcBin({1, 2, 3}, 1));
    ASSERT_TRUE(v1.ok()) << v1.error().message;
    EXPECT_EQ(v1->tokens, 3u);
    EXPECT_EQ(v1->tokenBytes, 2u);
    const Result<LlmcBinHeader> v2 = decode(test::llmcBin({1, 70000}, 2));
    ASSERT_TRUE(v2.ok());
    EXPECT_EQ(v2->tokens, 2u);
    EXPECT_EQ(v2->tokenBytes, 4u);
    EXPECT_EQ(decode(test::llmcBin({}, 1))->tokens, 0u);
}

TEST(LlmcBinHeaderTest, AHeaderThatLiesIsRefusedSayingHow)
{
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 1, std::nullopt, 20240521)).find("magic"), std::string::npos);
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 3)).find("version 3"), std::string::npos);
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 0)).find("version 0"), std::string::npos);
    // A count larger than the file: nothing is read or allocated from it.
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 1, 2'000'000'000)).find("claims 2000000000 tokens, but the file holds 2"),
              std::string::npos);
    EXPECT_NE(errorOf(test::llmcBin({1, 2, 3}, 1, 2)).find("6 bytes follow"), std::string::npos);
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 1, -5)).find("negative"), std::string::npos);
    EXPECT_NE(errorOf(test::llmcBin({1, 2}, 1) + "x").find("bytes follow"), std::string::npos) << "an odd byte";
    EXPECT_NE(errorOf(std::string(1000, '\0')).find("shorter"), std::string::npos);
}
