#pragma once

#include "CorpusInputs.h"
#include "CorpusManifest.h"
#include "CorpusReader.h"
#include "Result.h"
#include "ShardJournal.h"
#include "Tokenizer.h"

#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// The UTF-8 bytes of the text that shard tokens stand for, each document decoded on its own (so
// neither end-of-text tokens nor SentencePiece's space before a text's first piece count):
// what the pass counts as a split's bytes, for bits per byte.
std::uint64_t textBytesOf(const Tokenizer &tokenizer, std::span<const std::int32_t> tokens);

// How a pass cuts the corpus into shards.
struct ShardingOptions {
    std::uint64_t shardTokens = 1u << 20;
    // Every validationEvery-th document (the 10th, 20th, ...) is held out for validation, until
    // the held-out tokens reach maxValidationTokens (so a huge corpus does not hold out more
    // than the coordinator keeps in memory to validate with).
    std::uint64_t validationEvery = 10;
    std::uint64_t maxValidationTokens = 1u << 24;
    // Tests: after this many shards in this run the pass stops, as if killed (0: never).
    std::uint64_t stopAfterShards = 0;
};

// The streaming tokenizing pass: reads the corpus's documents (CorpusReader), holds out every
// k-th document for validation, tokenizes them, separates documents with the tokenizer's end of
// text (or "\n\n" encoded), and writes fixed-size token shards for each split into `dir`, each
// atomically, then manifest.json. Memory stays that of one document, one shard's tokens per
// split and a few numbers per document not yet in a shard, whatever the corpus's size.
//
// Resumable: a journal (ShardJournal) records each shard with the state of the pass at the
// earliest document whose tokens are not all in shards. Run again with the same key, the pass
// reads the documents before that one without tokenizing them, tokenizes from there and drops
// the tokens already in shards: killed at any moment, it ends with the same shards, none twice.
class CorpusTokenizer {
public:
    using Log = std::function<void(const std::string &)>;

    CorpusTokenizer(const CorpusInputs &inputs, const Tokenizer &tokenizer, CorpusReadOptions read,
                    ShardingOptions sharding, std::filesystem::path dir, Log log);

    // What identifies this pass's output: the inputs, the reading and cutting options and the
    // tokenizer. A journal or manifest of another key is not this pass's.
    std::string corpusKey() const;

    // Runs (or resumes) the pass; the manifest it wrote.
    Result<CorpusManifest> run();

private:
    static constexpr int kTrain = 0;
    static constexpr int kValidation = 1;

    // A document with tokens not yet in a shard: where its split's tokens begin and end, and the
    // pass's state at its beginning (where a resume starts when it is the earliest).
    struct Pending {
        std::uint64_t begin = 0;
        std::uint64_t end = 0;
        PassState before;
    };
    struct Split {
        std::vector<std::int32_t> buffer; // tokens from `committed` on
        std::uint64_t committed = 0;      // tokens in shards
        std::deque<Pending> pending;
        std::deque<std::uint64_t> ends; // positions of documents' last tokens not yet in a shard
        std::vector<ShardRecord> shards;
    };

    Result<void> restore();
    Result<void> add(const Document &document);
    Result<void> writeShard(int split, std::size_t count);
    PassState resumePoint() const;
    Result<CorpusManifest> finish(const CorpusReader &reader);
    void progress(const CorpusReader &reader, bool force);

    const CorpusInputs &m_inputs;
    const Tokenizer &m_tokenizer;
    CorpusReadOptions m_read;
    ShardingOptions m_sharding;
    std::filesystem::path m_dir;
    Log m_log;
    std::vector<std::int32_t> m_separator;
    std::uint64_t m_separatorBytes = 0;
    std::optional<ShardJournal> m_journal;
    PassState m_state;
    std::array<Split, 2> m_splits;
    std::uint64_t m_shardsThisRun = 0;
    double m_lastProgress = 0.0;
};

} // namespace swarmtrain
