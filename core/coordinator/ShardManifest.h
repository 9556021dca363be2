#pragma once

#include "CorpusInputs.h"
#include "CorpusManifest.h"
#include "CorpusReader.h"
#include "CorpusTokenizer.h"
#include "Result.h"
#include "ShardInfo.h"
#include "TokenShard.h"
#include "Tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace swarmtrain {

// The shards the peer that joined `ordinal`-th (from 0) trains on. They are dealt in up to 8
// interleaved groups, two groups to a peer half the groups apart: a handful of peers already
// covers different data, four peers cover all of it, and with more peers each group is trained
// by several.
std::vector<std::string> dealShards(std::int64_t ordinal, const std::vector<ShardInfo> &shards);

// The swarm's data: the corpus tokenized once into token shards (STATE/shards/ID.tokens, which
// peers download) and the held-out validation split's shards, described by
// STATE/shards/manifest.json (core/corpus: CorpusTokenizer, CorpusManifest).
class ShardManifest {
public:
    // Runs the tokenizing pass (or resumes an interrupted one) unless the state dir holds a
    // finished one of the same corpus, settings and tokenizer; a finished pass of another is an
    // error. Then opens it.
    static Result<ShardManifest> openOrCreate(const std::filesystem::path &stateDir, const CorpusInputs &inputs,
                                              const Tokenizer &tokenizer, const CorpusReadOptions &read,
                                              const ShardingOptions &sharding,
                                              const std::function<void(const std::string &)> &log);
    // Reads the manifest and checks every shard file against it (size, SHA-256) and each shard's
    // header against the tokenizer.
    static Result<ShardManifest> open(const std::filesystem::path &stateDir, const Tokenizer &tokenizer);

    const std::vector<ShardInfo> &shards() const { return m_shards; }
    const ShardInfo *find(std::string_view id) const;
    std::filesystem::path shardPath(const ShardInfo &shard) const;
    const CorpusManifest &corpus() const { return m_corpus; }
    // The validation split's size: tokens, and UTF-8 bytes of its text (bits per byte).
    std::uint64_t validationTokens() const { return m_corpus.validationTokens; }
    std::uint64_t validationBytes() const { return m_corpus.validationBytes; }
    // Tokens per byte of the validation text (bits per byte); 0 for an empty split.
    double validationTokensPerByte() const
    {
        return validationBytes() > 0 ? double(validationTokens()) / double(validationBytes()) : 0.0;
    }
    // The validation split's tokens, read from its shards.
    Result<std::vector<std::int32_t>> readValidationTokens() const;

private:
    std::filesystem::path m_dir;
    CorpusManifest m_corpus;
    TokenShardExpectation m_expected;
    std::vector<ShardInfo> m_shards;
};

} // namespace swarmtrain
