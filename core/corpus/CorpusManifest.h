#pragma once

#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace swarmtrain {

// One token shard file (TokenShard.h) of a pass, by its id: "000000" for training shards (the
// id peers download it by), "validation-000000" for the held-out split; the file is ID.tokens.
struct ShardRecord {
    std::string id;
    std::uint64_t bytes = 0;
    std::uint64_t tokens = 0;
    std::uint64_t documents = 0;
    std::string sha256; // hex, of the whole file

    std::string fileName() const { return id + ".tokens"; }
};

// What a finished tokenizing pass wrote (STATE/shards/manifest.json, version 2): the shards of
// each split, what they were made from, and the validation split's size in tokens and in UTF-8
// bytes of its text (bits per byte need both).
struct CorpusManifest {
    static constexpr int kVersion = 2;

    std::string corpusKey;      // CorpusTokenizer::corpusKey: inputs, options and tokenizer
    std::string inputsSha256;   // CorpusInputs::sha256
    std::string tokenizerKind;  // char | byte | sentencepiece
    std::string tokenizerSha256;
    std::uint32_t vocabSize = 0;
    std::uint64_t shardTokens = 0;
    std::uint64_t documents = 0;
    std::uint64_t badRecords = 0;
    std::vector<ShardRecord> train;
    std::vector<ShardRecord> validation;
    std::uint64_t validationDocuments = 0;
    std::uint64_t validationTokens = 0;
    std::uint64_t validationBytes = 0;

    std::uint64_t trainTokens() const;
    std::string toJson() const;
    // Every field checked; `where` names the file in errors.
    static Result<CorpusManifest> fromJson(const std::string &json, const std::string &where);
    static Result<CorpusManifest> read(const std::filesystem::path &file);
};

} // namespace swarmtrain
