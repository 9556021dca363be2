#pragma once

#include "CorpusInputs.h"
#include "CorpusReader.h"
#include "Result.h"
#include "Tokenizer.h"

#include <cstdint>
#include <functional>
#include <string>

namespace swarmtrain {

// What a pass that learns a tokenizer from a corpus read.
struct VocabularyPassReport {
    std::uint64_t documents = 0;
    std::uint64_t lines = 0;
    std::uint64_t bytes = 0;
    std::uint64_t badRecords = 0;
};

// The character tokenizer of a corpus: every code point of its documents, read in one streaming
// pass, and the newline that separates documents in char shards.
Result<Tokenizer> learnCharacterTokenizer(const CorpusInputs &inputs, const CorpusReadOptions &options,
                                          const std::function<void(const std::string &)> &log);

// A SentencePiece model trained on a corpus's documents, fed line by line (the library samples
// at most training.maxSentences of them, which bounds memory). .bin files are passed over.
Result<std::string> trainSentencePieceOnCorpus(const CorpusInputs &inputs, const CorpusReadOptions &options,
                                               const SentencePieceTraining &training,
                                               const std::function<void(const std::string &)> &log,
                                               VocabularyPassReport *report = nullptr);

} // namespace swarmtrain
