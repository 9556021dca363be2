#pragma once

#include "ByteSource.h"
#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace swarmtrain {

// The lines of a ByteSource, numbered from 1, without their '\n'. A line longer than the bound
// is reported as such and skipped without being held, so one hostile line cannot take the
// memory; the last line needs no '\n'.
class LineReader {
public:
    enum class Status { Line, TooLong, End };

    LineReader(std::unique_ptr<ByteSource> source, std::size_t maxLineBytes);

    // The next line into `line` (Status::Line), or the number of the over-long line skipped
    // (Status::TooLong, `line` empty). An error from the source (a truncated .gz) ends the file;
    // the incomplete line it interrupted is dropped.
    Result<Status> next(std::string &line);
    // The number of the line last returned.
    std::uint64_t lineNumber() const { return m_lineNumber; }
    std::uint64_t fileOffset() const { return m_source->fileOffset(); }

private:
    Result<bool> fill();

    std::unique_ptr<ByteSource> m_source;
    std::size_t m_maxLineBytes;
    std::vector<char> m_buffer;
    std::size_t m_begin = 0;
    std::size_t m_end = 0;
    bool m_ended = false;
    std::uint64_t m_lineNumber = 0;
};

} // namespace swarmtrain
