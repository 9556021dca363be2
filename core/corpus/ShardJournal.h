#pragma once

#include "CorpusManifest.h"
#include "Result.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace swarmtrain {

// Where a tokenizing pass can start again: the state of the pass at the beginning of document
// `document`, the earliest document with tokens not yet in a shard.
struct PassState {
    std::uint64_t document = 0;
    std::array<std::uint64_t, 2> produced{};  // tokens each split (train, validation) had before it
    std::array<std::uint64_t, 2> documents{}; // documents each split had before it
    std::uint64_t validationBytes = 0;        // UTF-8 bytes of the validation text before it
};

// The journal of an unfinished pass (shards/journal.jsonl): a first line naming the pass, then
// one line per shard written, with the PassState to resume from after it. Each line is
// appended and flushed to the disk after its shard file is in place, so a pass killed at any
// moment leaves a journal whose shards all exist; a line cut short by the kill is dropped.
class ShardJournal {
public:
    struct Entry {
        int split = 0; // 0 train, 1 validation
        ShardRecord shard;
        PassState resume;
    };

    // The journal of an interrupted pass with this key. Another pass's journal, or one whose
    // shards are missing, is discarded with the shard files in `dir` (logged): the pass starts
    // over.
    static Result<ShardJournal> open(const std::filesystem::path &dir, const std::string &corpusKey,
                                     const std::function<void(const std::string &)> &log);

    const std::vector<Entry> &entries() const { return m_entries; }
    Result<void> append(const Entry &entry);
    // The pass is done (its manifest written): the journal goes.
    void remove();

private:
    static Result<void> startOver(const std::filesystem::path &dir, const std::string &corpusKey);

    std::filesystem::path m_file;
    std::vector<Entry> m_entries;
};

} // namespace swarmtrain
