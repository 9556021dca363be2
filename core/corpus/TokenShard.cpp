#include "TokenShard.h"

#include "ByteOrder.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace swarmtrain {

namespace {

constexpr char kMagic[8] = {'S', 'W', 'T', 'O', 'K', 'E', 'N', 'S'};
constexpr std::size_t kShaAt = 40;
constexpr std::size_t kReservedAt = 72;

std::string hexOf(const std::array<std::uint8_t, 32> &digest)
{
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (std::uint8_t byte : digest) {
        hex.push_back(digits[byte >> 4]);
        hex.push_back(digits[byte & 15]);
    }
    return hex;
}

Error fieldError(const std::string &field, const std::string &why)
{
    return makeError("the token shard's " + field + " " + why);
}

// Reads exactly `size` bytes at the descriptor's position; false at an early end.
Result<bool> readFully(int fd, std::byte *out, std::size_t size, const std::filesystem::path &file)
{
    std::size_t done = 0;
    while (done < size) {
        const ssize_t got = ::read(fd, out + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return makeError("cannot read " + file.string() + ": " + std::strerror(errno));
        if (got == 0)
            return false;
        done += std::size_t(got);
    }
    return true;
}

void decodeTokens(const std::byte *in, std::size_t count, std::uint32_t width, std::int32_t *out)
{
    for (std::size_t i = 0; i < count; ++i) {
        const std::byte *at = in + i * width;
        out[i] = std::int32_t(width == 2 ? std::uint32_t(at[0]) | std::uint32_t(at[1]) << 8 : byteorder::getU32(at));
    }
}

// The index of the first token outside the vocabulary, or `count`.
std::size_t firstOutside(const std::int32_t *tokens, std::size_t count, std::uint32_t vocabSize)
{
    for (std::size_t i = 0; i < count; ++i) {
        if (tokens[i] < 0 || std::uint32_t(tokens[i]) >= vocabSize)
            return i;
    }
    return count;
}

} // namespace

std::uint32_t tokenBytesFor(std::uint32_t vocabSize) { return vocabSize <= 65536 ? 2 : 4; }

bool parseSha256Hex(const std::string &hex, std::array<std::uint8_t, 32> &out)
{
    if (hex.size() != 64)
        return false;
    for (std::size_t i = 0; i < 32; ++i) {
        int value = 0;
        for (std::size_t k = 0; k < 2; ++k) {
            const char c = hex[2 * i + k];
            const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0)
                return false;
            value = value * 16 + digit;
        }
        out[i] = std::uint8_t(value);
    }
    return true;
}

std::vector<std::byte> encodeTokenShard(TokenShardHeader header, std::span<const std::int32_t> tokens)
{
    header.tokens = tokens.size();
    header.tokenBytes = tokenBytesFor(header.vocabSize);
    std::vector<std::byte> out(TokenShardHeader::kBytes + tokens.size() * header.tokenBytes);
    std::memcpy(out.data(), kMagic, sizeof kMagic);
    byteorder::putU32(out.data() + 8, TokenShardHeader::kVersion);
    byteorder::putU32(out.data() + 12, std::uint32_t(TokenShardHeader::kBytes));
    byteorder::putU32(out.data() + 16, header.tokenBytes);
    byteorder::putU32(out.data() + 20, header.vocabSize);
    byteorder::putU64(out.data() + 24, header.tokens);
    byteorder::putU64(out.data() + 32, header.documents);
    std::memcpy(out.data() + kShaAt, header.tokenizerSha256.data(), header.tokenizerSha256.size());
    std::byte *at = out.data() + TokenShardHeader::kBytes;
    for (const std::int32_t token : tokens) {
        if (header.tokenBytes == 2) {
            at[0] = std::byte(token & 0xff);
            at[1] = std::byte((token >> 8) & 0xff);
        } else {
            byteorder::putU32(at, std::uint32_t(token));
        }
        at += header.tokenBytes;
    }
    return out;
}

Result<TokenShardHeader> decodeTokenShardHeader(std::span<const std::byte> bytes, std::uint64_t shardBytes,
                                                const TokenShardExpectation &expected)
{
    if (bytes.size() < TokenShardHeader::kBytes || shardBytes < TokenShardHeader::kBytes)
        return makeError("the token shard is shorter than its 128-byte header");
    if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return fieldError("magic", "is not \"SWTOKENS\" (not a token shard)");
    if (const std::uint32_t version = byteorder::getU32(bytes.data() + 8); version != TokenShardHeader::kVersion)
        return fieldError("format version", "is " + std::to_string(version) + ", not 1");
    if (byteorder::getU32(bytes.data() + 12) != TokenShardHeader::kBytes)
        return fieldError("header size", "is not 128");
    TokenShardHeader header;
    header.tokenBytes = byteorder::getU32(bytes.data() + 16);
    header.vocabSize = byteorder::getU32(bytes.data() + 20);
    header.tokens = byteorder::getU64(bytes.data() + 24);
    header.documents = byteorder::getU64(bytes.data() + 32);
    std::memcpy(header.tokenizerSha256.data(), bytes.data() + kShaAt, header.tokenizerSha256.size());
    for (std::size_t i = kReservedAt; i < TokenShardHeader::kBytes; ++i) {
        if (bytes[i] != std::byte(0))
            return fieldError("reserved bytes", "are not zero");
    }
    if (header.vocabSize == 0 || header.vocabSize > std::uint32_t(INT32_MAX))
        return fieldError("vocabulary size", "must be from 1 to 2147483647, not " + std::to_string(header.vocabSize));
    if (header.tokenBytes != tokenBytesFor(header.vocabSize)) {
        return fieldError("token width", "is " + std::to_string(header.tokenBytes) + " bytes, not the "
                                             + std::to_string(tokenBytesFor(header.vocabSize)) + " a vocabulary of "
                                             + std::to_string(header.vocabSize) + " takes");
    }
    if (header.vocabSize != expected.vocabSize) {
        return fieldError("vocabulary size", "is " + std::to_string(header.vocabSize) + ", not the swarm's "
                                                 + std::to_string(expected.vocabSize));
    }
    if (hexOf(header.tokenizerSha256) != expected.tokenizerSha256)
        return fieldError("tokenizer SHA-256", "is " + hexOf(header.tokenizerSha256) + ", not the swarm's "
                                                   + expected.tokenizerSha256);
    const std::uint64_t payload = shardBytes - TokenShardHeader::kBytes;
    if (header.tokens == 0 || header.tokens > payload / header.tokenBytes || payload % header.tokenBytes != 0
        || header.tokens * header.tokenBytes != payload) {
        return fieldError("token count", "(" + std::to_string(header.tokens) + ") does not match the "
                                             + std::to_string(payload) + " bytes that follow the header");
    }
    if (header.tokens > expected.maxTokens) {
        return fieldError("token count", "(" + std::to_string(header.tokens) + ") is above the bound of "
                                             + std::to_string(expected.maxTokens));
    }
    if (header.documents > header.tokens)
        return fieldError("document count", "(" + std::to_string(header.documents) + ") exceeds its token count");
    return header;
}

Result<TokenShardHeader> decodeTokenShard(std::span<const std::byte> shard, const TokenShardExpectation &expected,
                                          std::vector<std::int32_t> &out)
{
    Result<TokenShardHeader> header = decodeTokenShardHeader(shard, shard.size(), expected);
    if (!header)
        return header;
    const std::size_t first = out.size();
    out.resize(first + std::size_t(header->tokens));
    decodeTokens(shard.data() + TokenShardHeader::kBytes, std::size_t(header->tokens), header->tokenBytes,
                 out.data() + first);
    if (const std::size_t bad = firstOutside(out.data() + first, std::size_t(header->tokens), header->vocabSize);
        bad < header->tokens) {
        const std::int32_t token = out[first + bad];
        out.resize(first);
        return makeError("the token shard's token " + std::to_string(bad) + " (" + std::to_string(token)
                         + ") is outside the vocabulary of " + std::to_string(header->vocabSize));
    }
    return header;
}

Result<TokenShardHeader> readTokenShard(const std::filesystem::path &file, const TokenShardExpectation &expected,
                                        std::vector<std::int32_t> &out)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return makeError("cannot open " + file.string() + ": " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        return makeError(file.string() + " is not a regular file");
    std::array<std::byte, TokenShardHeader::kBytes> headerBytes{};
    Result<bool> got = readFully(fd, headerBytes.data(), headerBytes.size(), file);
    if (!got)
        return got.error();
    Result<TokenShardHeader> header =
        decodeTokenShardHeader(std::span(headerBytes.data(), *got ? headerBytes.size() : 0), std::uint64_t(info.st_size),
                               expected);
    if (!header)
        return makeError(file.string() + ": " + header.error().message);
    // Checked against the file's size and the bound: now the tokens may be read, a piece at a time.
    constexpr std::size_t kPieceTokens = 1 << 18;
    std::vector<std::byte> piece(kPieceTokens * header->tokenBytes);
    const std::size_t first = out.size();
    out.resize(first + std::size_t(header->tokens));
    for (std::uint64_t done = 0; done < header->tokens;) {
        const std::size_t count = std::size_t(std::min<std::uint64_t>(kPieceTokens, header->tokens - done));
        Result<bool> read = readFully(fd, piece.data(), count * header->tokenBytes, file);
        if (!read || !*read) {
            out.resize(first);
            return read ? makeError(file.string() + " ended while it was read") : read.error();
        }
        std::int32_t *target = out.data() + first + done;
        decodeTokens(piece.data(), count, header->tokenBytes, target);
        if (const std::size_t bad = firstOutside(target, count, header->vocabSize); bad < count) {
            const std::int32_t token = target[bad];
            out.resize(first);
            return makeError(file.string() + ": the token shard's token " + std::to_string(done + bad) + " ("
                             + std::to_string(token) + ") is outside the vocabulary of "
                             + std::to_string(header->vocabSize));
        }
        done += count;
    }
    return header;
}

} // namespace swarmtrain
