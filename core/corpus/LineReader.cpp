#include "LineReader.h"

#include <cstring>

namespace swarmtrain {

namespace {
constexpr std::size_t kChunk = 1 << 20;
}

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::size_t maxLineBytes)
    : m_source(std::move(source))
    , m_maxLineBytes(maxLineBytes)
    , m_buffer(kChunk)
{
}

Result<bool> LineReader::fill()
{
    if (m_ended)
        return false;
    Result<std::size_t> got = m_source->read(m_buffer.data(), m_buffer.size());
    if (!got)
        return got.error();
    m_begin = 0;
    m_end = *got;
    m_ended = *got == 0;
    return !m_ended;
}

Result<LineReader::Status> LineReader::next(std::string &line)
{
    line.clear();
    bool tooLong = false;
    bool any = false;
    for (;;) {
        if (m_begin == m_end) {
            Result<bool> more = fill();
            if (!more)
                return more.error();
            if (!*more) {
                if (!any)
                    return Status::End;
                ++m_lineNumber;
                return tooLong ? Status::TooLong : Status::Line;
            }
        }
        any = true;
        const char *start = m_buffer.data() + m_begin;
        const auto *newline = static_cast<const char *>(std::memchr(start, '\n', m_end - m_begin));
        const std::size_t length = newline ? std::size_t(newline - start) : m_end - m_begin;
        if (!tooLong && line.size() + length > m_maxLineBytes) {
            tooLong = true;
            line.clear();
            line.shrink_to_fit();
        }
        if (!tooLong)
            line.append(start, length);
        m_begin += length;
        if (newline) {
            ++m_begin;
            ++m_lineNumber;
            return tooLong ? Status::TooLong : Status::Line;
        }
    }
}

} // namespace swarmtrain
