#pragma once

#include "Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace swarmtrain {

// One document of a corpus: the unit the validation split takes whole, and that token shards
// separate with the tokenizer's end of text.
struct Document {
    std::string text;                 // valid UTF-8 (a paragraph of a .txt, a JSON Lines record)
    std::vector<std::int32_t> tokens; // a pre-tokenized document (.bin): its tokens, text empty
    bool pretokenized = false;
    std::string where; // "corpus/a.jsonl:17", "corpus/b.bin: byte 1024"
};

// The token ids a pre-tokenized file must fit: ids below the vocabulary, documents split at
// the end-of-text token (-1: the tokenizer has none).
struct TokenSpace {
    std::int32_t vocabSize = 0;
    std::int32_t endOfText = -1;
};

// A file's documents, in order. Bad records go to the pass's BadRecords; an error is the end
// of the pass (a refused bad record, a file that cannot be read).
class DocumentReader {
public:
    virtual ~DocumentReader() = default;
    // The next document into `document`; false at the end of the file.
    virtual Result<bool> next(Document &document) = 0;
};

} // namespace swarmtrain
