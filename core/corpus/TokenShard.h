#pragma once

#include "Result.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// A token shard: what the coordinator's tokenizing pass writes and peers download. A 128-byte
// little-endian header, then the tokens:
//   0  8 bytes  magic "SWTOKENS"
//   8  uint32   format version (1)
//  12  uint32   header bytes (128)
//  16  uint32   bytes a token: 2 (uint16) when the vocabulary fits 65536 ids, else 4 (uint32)
//  20  uint32   vocabulary size
//  24  uint64   token count
//  32  uint64   document count (documents whose end falls in this shard)
//  40  32 bytes the tokenizer's SHA-256
//  72  56 bytes zero
// Documents are separated by the tokenizer's end of text, or by "\n\n" encoded where it has none.
struct TokenShardHeader {
    static constexpr std::size_t kBytes = 128;
    static constexpr std::uint32_t kVersion = 1;

    std::uint32_t tokenBytes = 2;
    std::uint32_t vocabSize = 0;
    std::uint64_t tokens = 0;
    std::uint64_t documents = 0;
    std::array<std::uint8_t, 32> tokenizerSha256{};
};

// What a reader demands of a shard before it allocates anything: the swarm's tokenizer and
// vocabulary, and a bound on the tokens.
struct TokenShardExpectation {
    std::uint32_t vocabSize = 0;
    std::string tokenizerSha256; // hex
    std::uint64_t maxTokens = std::uint64_t(1) << 31;
};

std::uint32_t tokenBytesFor(std::uint32_t vocabSize);
// Parses 64 hex digits; false when `hex` is not that.
bool parseSha256Hex(const std::string &hex, std::array<std::uint8_t, 32> &out);

// The shard's bytes; `tokens` must fit `header` (its count and vocabulary).
std::vector<std::byte> encodeTokenShard(TokenShardHeader header, std::span<const std::int32_t> tokens);

// Checks every header field against the shard's size and the expectation, naming the field
// and the bound it broke.
Result<TokenShardHeader> decodeTokenShardHeader(std::span<const std::byte> header, std::uint64_t shardBytes,
                                                const TokenShardExpectation &expected);
// The header, then each token against the vocabulary; the tokens are appended to `out`.
Result<TokenShardHeader> decodeTokenShard(std::span<const std::byte> shard, const TokenShardExpectation &expected,
                                          std::vector<std::int32_t> &out);
// A shard file: its header is read and checked before the tokens are read into `out`.
Result<TokenShardHeader> readTokenShard(const std::filesystem::path &file, const TokenShardExpectation &expected,
                                        std::vector<std::int32_t> &out);

} // namespace swarmtrain
