#pragma once

#include "BadRecords.h"
#include "ByteSource.h"
#include "Document.h"
#include "LlmcBinHeader.h"

#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// A pre-tokenized file in llm.c's layout (LlmcBinHeader.h), made with the swarm's own tokenizer:
// its documents are the runs between end-of-text tokens (the separators themselves dropped;
// the pass puts its own back), cut at maxDocumentTokens, read a chunk at a time. A header that
// lies makes the whole file a bad record; a token outside the vocabulary, its document.
class TokenBinReader : public DocumentReader {
public:
    TokenBinReader(RawFile file, std::string name, TokenSpace space, BadRecords &bad, std::size_t maxDocumentTokens);

    Result<bool> next(Document &document) override;

private:
    Result<bool> start();
    Result<bool> refill();

    RawFile m_file;
    std::string m_name;
    TokenSpace m_space;
    BadRecords &m_bad;
    std::size_t m_maxDocumentTokens;
    std::optional<LlmcBinHeader> m_header;
    std::vector<char> m_chunk;
    std::size_t m_at = 0;   // next unread byte of m_chunk
    std::size_t m_size = 0; // bytes in m_chunk
    std::uint64_t m_tokensLeft = 0;
    std::uint64_t m_offset = 0; // file offset of m_chunk[m_at]
    std::size_t m_run = 0;   // tokens since the last separator or cut
    bool m_skipping = false; // the rest of a document with a token outside the vocabulary
    bool m_done = false;
};

} // namespace swarmtrain
