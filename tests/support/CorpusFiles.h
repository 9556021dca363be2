#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

// Corpus files for tests, made with the real compressors: gzip and zstd bytes of a text, and
// llm.c's .bin layout of tokens.
namespace swarmtrain::test {

inline std::string gzipBytes(const std::string &text)
{
    z_stream stream{};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY); // 16: gzip
    std::string out(deflateBound(&stream, uLong(text.size())) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    stream.avail_in = uInt(text.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

inline std::string zstdBytes(const std::string &text)
{
    std::string out(ZSTD_compressBound(text.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
    return out;
}

// llm.c's layout: 256 int32 (magic, version, count, zeros), then uint16 (version 1) or uint32
// (version 2) tokens; the header may claim another count or magic.
inline std::string llmcBin(const std::vector<std::int32_t> &tokens, int version = 1,
                           std::optional<std::int64_t> claimed = std::nullopt, std::int32_t magic = 20240520)
{
    std::vector<std::int32_t> header(256, 0);
    header[0] = magic;
    header[1] = version;
    header[2] = std::int32_t(claimed.value_or(std::int64_t(tokens.size())));
    std::string out(reinterpret_cast<const char *>(header.data()), header.size() * 4);
    for (const std::int32_t token : tokens) {
        if (version == 1) {
            const std::uint16_t value = std::uint16_t(token);
            out.append(reinterpret_cast<const char *>(&value), 2);
        } else {
            const std::uint32_t value = std::uint32_t(token);
            out.append(reinterpret_cast<const char *>(&value), 4);
        }
    }
    return out;
}

} // namespace swarmtrain::test
