#pragma once

#include "CoordinatorConfig.h"
#include "CorpusInputs.h"
#include "Result.h"
#include "Tokenizer.h"

#include <filesystem>
#include <functional>
#include <string>

namespace swarmtrain {

// The swarm's tokenizer, as --tokenizer says: bytes; the characters of the corpus (a streaming
// pass over it); a SentencePiece model brought with --tokenizer-model; or one trained on the
// corpus's documents with --vocab-size pieces. What was learned from the corpus is kept in the
// state dir (tokenizer.json, and tokenizer.model for SentencePiece, which peers download from
// GET /v1/tokenizer), so a restart on the same corpus does not learn it again.
struct SwarmTokenizer {
    Tokenizer tokenizer = Tokenizer::byteLevel();
    std::filesystem::path modelFile; // sentencepiece: STATE/tokenizer.model; empty otherwise

    static Result<SwarmTokenizer> prepare(const CoordinatorConfig &config, const CorpusInputs &inputs,
                                          const std::function<void(const std::string &)> &log);
    // Puts a model brought with --tokenizer-model in the state dir, as the copy peers download
    // whatever becomes of the file given (once the swarm's identity has been checked).
    Result<void> keepModel() const;
};

} // namespace swarmtrain
