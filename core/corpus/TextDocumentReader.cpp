#include "TextDocumentReader.h"

#include "Tokenizer.h"

namespace swarmtrain {

namespace {

bool isBlank(const std::string &line)
{
    return line.find_first_not_of(" \t\r\f\v") == std::string::npos;
}

} // namespace

TextDocumentReader::TextDocumentReader(std::unique_ptr<ByteSource> source, std::string name, BadRecords &bad,
                                       std::size_t maxLineBytes, std::size_t maxDocumentBytes)
    : m_lines(std::move(source), maxLineBytes)
    , m_name(std::move(name))
    , m_bad(bad)
    , m_maxDocumentBytes(maxDocumentBytes)
{
}

Result<void> TextDocumentReader::badLine(const std::string &why)
{
    m_skipping = true;
    return m_bad.report(m_name + ":" + std::to_string(m_lines.lineNumber()), why);
}

Result<bool> TextDocumentReader::next(Document &document)
{
    document = Document{};
    while (!m_done) {
        Result<LineReader::Status> status = m_lines.next(m_line);
        if (!status) {
            // A truncated or corrupt compressed file: the paragraph it cut is dropped too.
            m_done = true;
            if (Result<void> reported = m_bad.report(m_name + ":" + std::to_string(m_lines.lineNumber() + 1),
                                                     status.error().message);
                !reported)
                return reported.error();
            return false;
        }
        if (*status == LineReader::Status::End) {
            m_done = true;
            break;
        }
        if (*status == LineReader::Status::TooLong) {
            document.text.clear();
            if (Result<void> reported = badLine("a line longer than the limit; its paragraph is left out"); !reported)
                return reported.error();
            continue;
        }
        if (isBlank(m_line)) {
            m_skipping = false;
            if (!document.text.empty())
                return true;
            continue;
        }
        if (m_skipping)
            continue;
        if (const std::size_t bad = firstInvalidUtf8(m_line); bad != std::string::npos) {
            document.text.clear();
            if (Result<void> reported =
                    badLine("invalid UTF-8 at byte " + std::to_string(bad) + " of the line; its paragraph is left out");
                !reported)
                return reported.error();
            continue;
        }
        if (document.text.empty())
            document.where = m_name + ":" + std::to_string(m_lines.lineNumber());
        else
            document.text.push_back('\n');
        document.text += m_line;
        if (document.text.size() >= m_maxDocumentBytes)
            return true;
    }
    return !document.text.empty();
}

} // namespace swarmtrain
