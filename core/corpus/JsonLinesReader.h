#pragma once

#include "BadRecords.h"
#include "Document.h"
#include "LineReader.h"

#include <memory>
#include <string>

namespace swarmtrain {

// A JSON Lines file's documents: one JSON object a line, its text in a string field ("text" by
// default). Each line is read by a SAX parser that keeps only that field, so a hostile line
// (deeply nested, huge arrays) costs no more than its bytes. Blank lines and empty texts are
// passed over; a line that is not JSON, not an object, lacks the field or holds a non-string
// there (or invalid UTF-8, which the parser refuses) is a bad record named by its line.
class JsonLinesReader : public DocumentReader {
public:
    JsonLinesReader(std::unique_ptr<ByteSource> source, std::string name, std::string field, BadRecords &bad,
                    std::size_t maxLineBytes);

    Result<bool> next(Document &document) override;

    // Why `line` holds no usable text, or "" with the text in `text` (also for tests).
    static std::string extractText(const std::string &line, const std::string &field, std::string &text);

private:
    LineReader m_lines;
    std::string m_name;
    std::string m_field;
    BadRecords &m_bad;
    std::string m_line;
    bool m_done = false;
};

} // namespace swarmtrain
