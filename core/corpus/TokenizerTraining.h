#pragma once

#include "Result.h"
#include "Tokenizer.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace swarmtrain {

// `swarmtrain-cli tokenizer train`: a SentencePiece BPE model trained on a host's corpus.
struct TokenizerTrainOptions {
    std::vector<std::filesystem::path> inputs; // corpus files, or folders of them (CorpusInputs.h)
    std::string textField = "text";            // JSON Lines: the field holding the text
    std::filesystem::path out;
    SentencePieceTraining training;
};

std::string tokenizerTrainUsage();
Result<TokenizerTrainOptions> parseTokenizerTrainOptions(const std::vector<std::string> &args);

// Streams the lines of the inputs' documents into the trainer, through the corpus readers
// (text, JSON Lines, gzip or zstd; bad records skipped and counted; memory stays bounded by
// --max-sentences, which the library samples), writes the model atomically, and returns a JSON
// report (vocabulary, SHA-256, documents, lines and bytes read, bad records, seconds). `log`
// gets progress lines.
Result<std::string> trainTokenizer(const TokenizerTrainOptions &options, const std::function<void(const std::string &)> &log);

} // namespace swarmtrain
