#include "ByteOrder.h"
#include "TempDir.h"
#include "TokenShard.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace swarmtrain;
using test::TempDir;

namespace {

const std::string kSha(64, 'a');

TokenShardHeader headerFor(std::uint32_t vocab, std::uint64_t documents = 1)
{
    TokenShardHeader header;
    header.vocabSize = vocab;
    header.documents = documents;
    parseSha256Hex(kSha, header.tokenizerSha256);
    return header;
}

TokenShardExpectation expectation(std::uint32_t vocab) { return {vocab, kSha, 1 << 20}; }

std::string decodeError(const std::vector<std::byte> &bytes, const TokenShardExpectation &expected)
{
    std::vector<std::int32_t> tokens;
    const Result<TokenShardHeader> header = decodeTokenShard(bytes, expected, tokens);
    EXPECT_FALSE(header.ok());
    EXPECT_TRUE(tokens.empty());
    return header ? std::string() : header.error().message;
}

} // namespace

TEST(TokenShardTest, RoundTripsSixteenAndThirtyTwoBitTokens)
{
    for (const std::uint32_t vocab : {256u, 65536u, 65537u, 200000u}) {
        const std::vector<std::int32_t> tokens = {0, 1, std::int32_t(vocab - 1), 255, 7};
        const std::vector<std::byte> bytes = encodeTokenShard(headerFor(vocab, 2), tokens);
        const std::uint32_t width = vocab <= 65536 ? 2 : 4;
        EXPECT_EQ(bytes.size(), TokenShardHeader::kBytes + tokens.size() * width);
        std::vector<std::int32_t> back = {99};
        const Result<TokenShardHeader> header = decodeTokenShard(bytes, expectation(vocab), back);
        ASSERT_TRUE(header.ok()) << header.error().message;
        EXPECT_EQ(header->tokenBytes, width);
        EXPECT_EQ(header->tokens, tokens.size());
        EXPECT_EQ(header->documents, 2u);
        back.erase(back.begin()); // appended after what was there
        EXPECT_EQ(back, tokens);
    }
}

TEST(TokenShardTest, AFileIsCheckedBeforeItsTokensAreRead)
{
    TempDir dir;
    const std::vector<std::int32_t> tokens(300'000, 5);
    const std::vector<std::byte> bytes = encodeTokenShard(headerFor(512), tokens);
    const auto file = dir.path() / "000000.tokens";
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    std::vector<std::int32_t> read;
    ASSERT_TRUE(readTokenShard(file, expectation(512), read).ok());
    EXPECT_EQ(read, tokens);
    std::vector<std::int32_t> none;
    const Result<TokenShardHeader> otherTokenizer = readTokenShard(file, {512, std::string(64, 'b'), 1 << 20}, none);
    ASSERT_FALSE(otherTokenizer.ok());
    EXPECT_NE(otherTokenizer.error().message.find("000000.tokens"), std::string::npos);
    EXPECT_NE(otherTokenizer.error().message.find("tokenizer SHA-256"), std::string::npos);
    EXPECT_FALSE(readTokenShard(file, {512, kSha, 1000}, none).ok()) << "more tokens than the reader's bound";
    EXPECT_TRUE(none.empty());
}

TEST(TokenShardTest, EveryLyingFieldIsRefusedByName)
{
    const std::vector<std::byte> good = encodeTokenShard(headerFor(1000, 3), std::vector<std::int32_t>{1, 2, 3, 4});
    auto with = [&](std::size_t at, std::uint64_t value, int bytes) {
        std::vector<std::byte> copy = good;
        if (bytes == 4)
            byteorder::putU32(copy.data() + at, std::uint32_t(value));
        else
            byteorder::putU64(copy.data() + at, value);
        return copy;
    };
    const TokenShardExpectation expected = expectation(1000);
    std::vector<std::byte> badMagic = good;
    badMagic[0] = std::byte('X');
    EXPECT_NE(decodeError(badMagic, expected).find("magic"), std::string::npos);
    EXPECT_NE(decodeError(with(8, 2, 4), expected).find("format version"), std::string::npos);
    EXPECT_NE(decodeError(with(12, 64, 4), expected).find("header size"), std::string::npos);
    EXPECT_NE(decodeError(with(16, 4, 4), expected).find("token width"), std::string::npos);
    EXPECT_NE(decodeError(with(20, 999, 4), expected).find("vocabulary size is 999, not the swarm's 1000"),
              std::string::npos);
    EXPECT_NE(decodeError(with(20, 0, 4), expected).find("vocabulary size"), std::string::npos);
    EXPECT_NE(decodeError(with(24, 5, 8), expected).find("token count"), std::string::npos);
    EXPECT_NE(decodeError(with(24, std::uint64_t(1) << 62, 8), expected).find("token count"), std::string::npos);
    EXPECT_NE(decodeError(with(24, 0, 8), expected).find("token count"), std::string::npos);
    EXPECT_NE(decodeError(with(32, 5, 8), expected).find("document count"), std::string::npos);
    EXPECT_NE(decodeError(with(100, 1, 4), expected).find("reserved"), std::string::npos);
    std::vector<std::byte> otherSha = good;
    otherSha[40] = std::byte(0);
    EXPECT_NE(decodeError(otherSha, expected).find("tokenizer SHA-256"), std::string::npos);
    std::vector<std::byte> outside = good;
    byteorder::putU32(outside.data() + 128, 0xffff); // the first token (uint16), 65535 >= 1000
    EXPECT_NE(decodeError(outside, expected).find("token 0 (65535) is outside the vocabulary"), std::string::npos);
    std::vector<std::byte> extra = good;
    extra.push_back(std::byte(0));
    EXPECT_NE(decodeError(extra, expected).find("token count"), std::string::npos);
    EXPECT_NE(decodeError(std::vector<std::byte>(good.begin(), good.begin() + 100), expected).find("shorter"),
              std::string::npos);
    EXPECT_NE(decodeError(std::vector<std::byte>(good.begin(), good.end() - 2), expected).find("token count"),
              std::string::npos);
}

TEST(TokenShardTest, Sha256HexParsesOnlyLowercaseDigits)
{
    std::array<std::uint8_t, 32> digest{};
    EXPECT_TRUE(parseSha256Hex("00ff" + std::string(60, '1'), digest));
    EXPECT_EQ(digest[1], 0xff);
    EXPECT_FALSE(parseSha256Hex("00FF" + std::string(60, '1'), digest));
    EXPECT_FALSE(parseSha256Hex(std::string(63, '1'), digest));
    EXPECT_FALSE(parseSha256Hex(std::string(63, '1') + "g", digest));
}
