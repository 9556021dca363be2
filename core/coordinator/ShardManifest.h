#pragma once

#include "Result.h"
#include "ShardInfo.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace swarmtrain {

// The shards the peer that joined `ordinal`-th (from 0) trains on. They are dealt in up to 8
// interleaved groups, two groups to a peer half the groups apart: a handful of peers already
// covers different data, four peers cover all of it, and with more peers each group is trained
// by several.
std::vector<std::string> dealShards(std::int64_t ordinal, const std::vector<ShardInfo> &shards);

// The training text cut into shards that peers download (STATE/shards/<id>.txt) plus the
// held-back validation text, described by STATE/shards/manifest.json. Shards end on UTF-8
// character boundaries so each decodes on its own.
class ShardManifest {
public:
    static constexpr double kValidationFraction = 0.1;

    // Cuts `text` and writes the files; an existing manifest is re-used (and verified) when it
    // was made from the same text with the same shard size, and is an error otherwise.
    static Result<ShardManifest> openOrCreate(const std::filesystem::path &stateDir, std::string_view text,
                                              std::uint64_t shardBytes);
    // Reads the manifest and checks every shard file and the validation text against it.
    static Result<ShardManifest> open(const std::filesystem::path &stateDir);

    // Where each shard ends: offsets into `trainText` on character boundaries.
    static std::vector<std::size_t> cutPoints(std::string_view trainText, std::uint64_t shardBytes);
    // The index where the validation text begins (on a character boundary).
    static std::size_t validationStart(std::string_view text);

    const std::vector<ShardInfo> &shards() const { return m_shards; }
    const ShardInfo *find(std::string_view id) const;
    std::filesystem::path shardPath(const ShardInfo &shard) const;
    const std::string &validationText() const { return m_validationText; }
    const std::string &textSha256() const { return m_textSha256; }

private:
    static Result<ShardManifest> create(const std::filesystem::path &stateDir, std::string_view text,
                                        std::uint64_t shardBytes);

    std::filesystem::path m_dir;
    std::vector<ShardInfo> m_shards;
    std::string m_validationText;
    std::string m_textSha256;
    std::uint64_t m_shardBytes = 0;
};

} // namespace swarmtrain
