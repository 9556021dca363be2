// The token shard reader (core/corpus/TokenShard.h: what a peer reads from a coordinator it may
// not trust) and the llm.c .bin header reader (a host's corpus file), on hostile input. Each
// input is tried as a shard against a fixed expectation and against the one its own header
// names (which lets the fuzzer past the tokenizer and vocabulary checks), and as a .bin header.
// What either accepts must describe exactly the bytes it came with.
#include "FuzzCheck.h"
#include "LlmcBinHeader.h"
#include "TokenShard.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace swarmtrain;
using swarmtrain::fuzz::check;

namespace {

std::string hexOf(const std::uint8_t *digest)
{
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (int i = 0; i < 32; ++i) {
        hex.push_back(digits[digest[i] >> 4]);
        hex.push_back(digits[digest[i] & 15]);
    }
    return hex;
}

// The file reader must agree with the in-memory one on what it accepts.
void readBackFromFile(std::span<const std::byte> bytes, const TokenShardExpectation &expected,
                      const std::vector<std::int32_t> &decoded)
{
    static const std::string file = "/tmp/token-shard-fuzz-" + std::to_string(::getpid()) + ".tokens";
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    std::vector<std::int32_t> read;
    const Result<TokenShardHeader> header = readTokenShard(file, expected, read);
    check(header.ok());
    check(read == decoded);
}

void shard(std::span<const std::byte> bytes, const TokenShardExpectation &expected)
{
    std::vector<std::int32_t> tokens = {7};
    const Result<TokenShardHeader> header = decodeTokenShard(bytes, expected, tokens);
    if (!header) {
        check(!header.error().message.empty());
        check(tokens.size() == 1); // nothing appended
        return;
    }
    check(header->vocabSize == expected.vocabSize);
    check(header->tokenBytes == tokenBytesFor(header->vocabSize));
    check(TokenShardHeader::kBytes + header->tokens * header->tokenBytes == bytes.size());
    check(header->tokens <= expected.maxTokens && header->documents <= header->tokens);
    check(tokens.size() == 1 + header->tokens);
    for (std::size_t i = 1; i < tokens.size(); ++i)
        check(tokens[i] >= 0 && std::uint32_t(tokens[i]) < header->vocabSize);
    tokens.erase(tokens.begin());
    readBackFromFile(bytes, expected, tokens);
}

void llmcHeader(std::span<const std::byte> bytes)
{
    const Result<LlmcBinHeader> header = decodeLlmcBinHeader(bytes, bytes.size());
    if (!header) {
        check(!header.error().message.empty());
        return;
    }
    check(header->version == 1 || header->version == 2);
    check(header->tokenBytes == (header->version == 1 ? 2u : 4u));
    check(LlmcBinHeader::kBytes + header->tokens * header->tokenBytes == bytes.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
    shard(bytes, {256, std::string(64, '0'), 1 << 20});
    if (size >= TokenShardHeader::kBytes) {
        std::uint32_t vocab = 0;
        for (int i = 0; i < 4; ++i)
            vocab |= std::uint32_t(data[20 + i]) << (8 * i);
        shard(bytes, {vocab, hexOf(data + 40), 1 << 16});
    }
    llmcHeader(bytes);
    return 0;
}
