#pragma once

#include "BadRecords.h"
#include "CorpusInputs.h"
#include "Document.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace swarmtrain {

// How a corpus's documents are read (the coordinator's --text-field and --on-bad-record).
struct CorpusReadOptions {
    std::string textField = "text";
    BadRecordPolicy onBadRecord = BadRecordPolicy::Skip;
    std::size_t maxLineBytes = 64u << 20;       // a longer line is a bad record
    std::size_t maxDocumentBytes = 64u << 10;   // a longer paragraph of a .txt is cut at a line
    std::size_t maxDocumentTokens = 1u << 20;   // a longer run of a .bin is cut
};

// Every document of a corpus's files, in order, one file open at a time, so memory stays that
// of one document and the readers' buffers whatever the corpus's size.
class CorpusReader {
public:
    // `tokens`: the token ids .bin files must fit; without it (a pass that learns the tokenizer)
    // .bin files are passed over.
    CorpusReader(const CorpusInputs &inputs, CorpusReadOptions options, std::optional<TokenSpace> tokens,
                 std::function<void(const std::string &)> log);
    ~CorpusReader();

    // The next document; false after the last one.
    Result<bool> next(Document &document);

    const BadRecords &badRecords() const { return m_bad; }
    // Bytes of the files finished, for progress.
    std::uint64_t bytesDone() const { return m_bytesDone; }

private:
    Result<bool> openNextFile();

    const CorpusInputs &m_inputs;
    CorpusReadOptions m_options;
    std::optional<TokenSpace> m_tokens;
    std::function<void(const std::string &)> m_log;
    BadRecords m_bad;
    std::size_t m_nextFile = 0;
    std::unique_ptr<DocumentReader> m_reader;
    std::uint64_t m_bytesDone = 0;
};

} // namespace swarmtrain
