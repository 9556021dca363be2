#include "TokenBinReader.h"

#include "ByteOrder.h"

#include <array>

namespace swarmtrain {

namespace {
constexpr std::size_t kChunkBytes = 1 << 20; // a multiple of both token widths
}

TokenBinReader::TokenBinReader(RawFile file, std::string name, TokenSpace space, BadRecords &bad,
                               std::size_t maxDocumentTokens)
    : m_file(std::move(file))
    , m_name(std::move(name))
    , m_space(space)
    , m_bad(bad)
    , m_maxDocumentTokens(maxDocumentTokens)
{
}

Result<bool> TokenBinReader::start()
{
    std::array<char, LlmcBinHeader::kBytes> bytes{};
    std::size_t got = 0;
    while (got < bytes.size()) {
        Result<std::size_t> read = m_file.read(bytes.data() + got, bytes.size() - got);
        if (!read)
            return read.error();
        if (*read == 0)
            break;
        got += *read;
    }
    Result<LlmcBinHeader> header =
        decodeLlmcBinHeader(std::as_bytes(std::span(bytes.data(), got)), std::max<std::uint64_t>(m_file.size(), got));
    if (!header) {
        if (Result<void> reported = m_bad.report(m_name + ": byte 0", "the header " + header.error().message + "; the file is left out");
            !reported)
            return reported.error();
        return false;
    }
    m_header = *header;
    m_tokensLeft = header->tokens;
    m_offset = LlmcBinHeader::kBytes;
    m_chunk.resize(kChunkBytes);
    return true;
}

Result<bool> TokenBinReader::refill()
{
    const std::size_t width = m_header->tokenBytes;
    const std::size_t wanted = std::size_t(std::min<std::uint64_t>(m_tokensLeft * width, m_chunk.size()));
    m_at = 0;
    m_size = 0;
    while (m_size < wanted) {
        Result<std::size_t> read = m_file.read(m_chunk.data() + m_size, wanted - m_size);
        if (!read)
            return read.error();
        if (*read == 0) {
            return makeError(m_name + " ends at byte " + std::to_string(m_file.offset())
                             + ", before the tokens its header counts (did it change while being read?)");
        }
        m_size += *read;
    }
    m_tokensLeft -= wanted / width;
    return wanted > 0;
}

Result<bool> TokenBinReader::next(Document &document)
{
    document = Document{};
    document.pretokenized = true;
    if (m_done)
        return false;
    if (!m_header) {
        Result<bool> started = start();
        if (!started || !*started) {
            m_done = true;
            return started;
        }
    }
    const std::size_t width = m_header->tokenBytes;
    for (;;) {
        if (m_at == m_size) {
            Result<bool> more = refill();
            if (!more)
                return more.error();
            if (!*more) {
                m_done = true;
                return !document.tokens.empty();
            }
        }
        const std::byte *at = reinterpret_cast<const std::byte *>(m_chunk.data() + m_at);
        const std::uint32_t token = width == 2 ? std::uint32_t(at[0]) | std::uint32_t(at[1]) << 8 : byteorder::getU32(at);
        const std::uint64_t offset = m_offset;
        m_at += width;
        m_offset += width;
        if (m_space.endOfText >= 0 && token == std::uint32_t(m_space.endOfText)) {
            m_skipping = false;
            m_run = 0;
            if (!document.tokens.empty())
                return true;
            continue;
        }
        // Without separators (or in a long run) documents are pieces of maxDocumentTokens.
        const bool pieceEnds = ++m_run >= m_maxDocumentTokens;
        if (!m_skipping && token >= std::uint32_t(m_space.vocabSize)) {
            document.tokens.clear();
            m_skipping = true;
            if (Result<void> reported = m_bad.report(m_name + ": byte " + std::to_string(offset),
                                                     "token " + std::to_string(token) + " is outside the vocabulary of "
                                                         + std::to_string(m_space.vocabSize) + "; its document is left out");
                !reported)
                return reported.error();
        } else if (!m_skipping) {
            if (document.tokens.empty())
                document.where = m_name + ": byte " + std::to_string(offset);
            document.tokens.push_back(std::int32_t(token));
        }
        if (pieceEnds) {
            m_run = 0;
            m_skipping = false;
            if (!document.tokens.empty())
                return true;
        }
    }
}

} // namespace swarmtrain
