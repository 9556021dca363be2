#pragma once

#include "BadRecords.h"
#include "Document.h"
#include "LineReader.h"

#include <memory>
#include <string>

namespace swarmtrain {

// A text file's documents: its paragraphs, separated by blank lines (so one file such as
// tinyshakespeare still splits by document), each without its trailing newline. A paragraph
// longer than maxDocumentBytes is cut at a line boundary into documents of about that size. A
// paragraph with invalid UTF-8 or an over-long line is a bad record, named by that line.
class TextDocumentReader : public DocumentReader {
public:
    TextDocumentReader(std::unique_ptr<ByteSource> source, std::string name, BadRecords &bad,
                       std::size_t maxLineBytes, std::size_t maxDocumentBytes);

    Result<bool> next(Document &document) override;

private:
    Result<void> badLine(const std::string &why);

    LineReader m_lines;
    std::string m_name;
    BadRecords &m_bad;
    std::size_t m_maxDocumentBytes;
    std::string m_line;
    bool m_skipping = false; // the rest of a bad paragraph
    bool m_done = false;
};

} // namespace swarmtrain
