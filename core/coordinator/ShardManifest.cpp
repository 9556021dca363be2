#include "ShardManifest.h"

#include "FileIo.h"
#include "Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace swarmtrain {

namespace {

constexpr char kManifestName[] = "manifest.json";
constexpr char kValidationName[] = "validation.txt";
constexpr std::uint64_t kMaxShardFile = 1ull << 32;

std::span<const std::byte> asBytes(std::string_view text)
{
    return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

std::string shaOf(std::string_view text) { return Sha256::hexOf(asBytes(text)); }

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The nearest character boundary at or before `at` (after `floor`), else the next one after it.
std::size_t boundaryNear(std::string_view text, std::size_t at, std::size_t floor)
{
    std::size_t back = at;
    while (back > floor && back < text.size() && isContinuation(text[back]))
        --back;
    if (back > floor)
        return back;
    std::size_t forward = at;
    while (forward < text.size() && isContinuation(text[forward]))
        ++forward;
    return forward;
}

std::string shardId(std::size_t index)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%06zu", index);
    return buffer;
}

Result<std::string> readVerified(const std::filesystem::path &file, std::uint64_t bytes, const std::string &sha256)
{
    Result<std::vector<std::byte>> content = readFileBytes(file, kMaxShardFile);
    if (!content)
        return content.error();
    if (content->size() != bytes || Sha256::hexOf(*content) != sha256)
        return makeError(file.string() + " does not match the manifest (changed or damaged); restore it or start"
                                         " with a new state dir");
    return std::string(reinterpret_cast<const char *>(content->data()), content->size());
}

} // namespace

std::size_t ShardManifest::validationStart(std::string_view text)
{
    const auto at = std::size_t(double(text.size()) * (1.0 - kValidationFraction));
    return boundaryNear(text, at, 0);
}

std::vector<std::size_t> ShardManifest::cutPoints(std::string_view trainText, std::uint64_t shardBytes)
{
    std::vector<std::size_t> ends;
    std::size_t begin = 0;
    const std::uint64_t step = std::max<std::uint64_t>(shardBytes, 1);
    while (begin < trainText.size()) {
        const std::size_t wanted = std::size_t(std::min<std::uint64_t>(begin + step, trainText.size()));
        const std::size_t end = wanted >= trainText.size() ? trainText.size() : boundaryNear(trainText, wanted, begin);
        ends.push_back(end);
        begin = end;
    }
    return ends;
}

const ShardInfo *ShardManifest::find(std::string_view id) const
{
    for (const ShardInfo &shard : m_shards) {
        if (shard.id == id)
            return &shard;
    }
    return nullptr;
}

std::filesystem::path ShardManifest::shardPath(const ShardInfo &shard) const { return m_dir / (shard.id + ".txt"); }

Result<ShardManifest> ShardManifest::openOrCreate(const std::filesystem::path &stateDir, std::string_view text,
                                                  std::uint64_t shardBytes)
{
    std::error_code ec;
    if (!std::filesystem::exists(stateDir / "shards" / kManifestName, ec))
        return create(stateDir, text, shardBytes);
    Result<ShardManifest> existing = open(stateDir);
    if (!existing)
        return existing;
    if (existing->m_textSha256 != shaOf(text))
        return makeError("the training data differs from the data this state dir was made with");
    if (existing->m_shardBytes != shardBytes) {
        return makeError("--shard-bytes " + std::to_string(shardBytes) + " differs from the "
                         + std::to_string(existing->m_shardBytes) + " this state dir was made with");
    }
    return existing;
}

Result<ShardManifest> ShardManifest::create(const std::filesystem::path &stateDir, std::string_view text,
                                            std::uint64_t shardBytes)
{
    if (shardBytes == 0)
        return makeError("the shard size must be positive");
    ShardManifest manifest;
    manifest.m_dir = stateDir / "shards";
    manifest.m_shardBytes = shardBytes;
    manifest.m_textSha256 = shaOf(text);
    std::error_code ec;
    std::filesystem::create_directories(manifest.m_dir, ec);
    if (ec)
        return makeError("cannot create " + manifest.m_dir.string() + ": " + ec.message());

    const std::size_t split = validationStart(text);
    const std::string_view train = text.substr(0, split);
    manifest.m_validationText = std::string(text.substr(split));
    if (train.empty() || manifest.m_validationText.empty())
        return makeError("the training text is too short to hold back a validation part");

    nlohmann::json shards = nlohmann::json::array();
    std::size_t begin = 0;
    for (std::size_t end : cutPoints(train, shardBytes)) {
        const std::string_view piece = train.substr(begin, end - begin);
        ShardInfo shard{shardId(manifest.m_shards.size()), piece.size(), shaOf(piece)};
        if (Result<void> written = writeFileAtomically(manifest.shardPath(shard), asBytes(piece)); !written)
            return written.error();
        shards.push_back({{"id", shard.id}, {"bytes", shard.bytes}, {"sha256", shard.sha256}});
        manifest.m_shards.push_back(std::move(shard));
        begin = end;
    }
    if (Result<void> written = writeFileAtomically(manifest.m_dir / kValidationName, asBytes(manifest.m_validationText));
        !written)
        return written.error();
    // The manifest goes last: while it is missing, a restart cuts the shards again.
    const std::string json = nlohmann::json{{"version", 1},
                                            {"shard_bytes", shardBytes},
                                            {"text_sha256", manifest.m_textSha256},
                                            {"validation_bytes", manifest.m_validationText.size()},
                                            {"validation_sha256", shaOf(manifest.m_validationText)},
                                            {"shards", shards}}
                                 .dump(1);
    if (Result<void> written = writeFileAtomically(manifest.m_dir / kManifestName, asBytes(json)); !written)
        return written.error();
    return manifest;
}

Result<ShardManifest> ShardManifest::open(const std::filesystem::path &stateDir)
{
    ShardManifest manifest;
    manifest.m_dir = stateDir / "shards";
    const std::filesystem::path file = manifest.m_dir / kManifestName;
    Result<std::vector<std::byte>> bytes = readFileBytes(file, 64u << 20);
    if (!bytes)
        return bytes.error();
    const nlohmann::json json = nlohmann::json::parse(reinterpret_cast<const char *>(bytes->data()),
                                                      reinterpret_cast<const char *>(bytes->data()) + bytes->size(),
                                                      nullptr, false);
    std::uint64_t validationBytes = 0;
    std::string validationSha;
    try {
        if (json.is_discarded() || json.at("version").get<int>() != 1)
            return makeError(file.string() + " is not a version 1 shard manifest");
        manifest.m_shardBytes = json.at("shard_bytes").get<std::uint64_t>();
        manifest.m_textSha256 = json.at("text_sha256").get<std::string>();
        validationBytes = json.at("validation_bytes").get<std::uint64_t>();
        validationSha = json.at("validation_sha256").get<std::string>();
        for (const nlohmann::json &entry : json.at("shards")) {
            ShardInfo shard{entry.at("id").get<std::string>(), entry.at("bytes").get<std::uint64_t>(),
                            entry.at("sha256").get<std::string>()};
            if (shard.id != shardId(manifest.m_shards.size()))
                return makeError(file.string() + " lists an unexpected shard id '" + shard.id + "'");
            manifest.m_shards.push_back(std::move(shard));
        }
    } catch (const nlohmann::json::exception &e) {
        return makeError(file.string() + " is damaged: " + e.what());
    }
    for (const ShardInfo &shard : manifest.m_shards) {
        if (Result<std::string> checked = readVerified(manifest.shardPath(shard), shard.bytes, shard.sha256); !checked)
            return checked.error();
    }
    Result<std::string> validation = readVerified(manifest.m_dir / kValidationName, validationBytes, validationSha);
    if (!validation)
        return validation.error();
    manifest.m_validationText = std::move(validation).value();
    return manifest;
}

std::vector<std::string> dealShards(std::int64_t ordinal, const std::vector<ShardInfo> &shards)
{
    constexpr std::int64_t kGroups = 8;
    const auto count = std::int64_t(shards.size());
    const std::int64_t groups = std::min(count, kGroups);
    std::vector<std::string> ids;
    if (groups == 0)
        return ids;
    const std::int64_t first = ordinal % groups;
    const std::int64_t second = (ordinal + groups / 2) % groups;
    for (std::int64_t i = 0; i < count; ++i) {
        if (i % groups == first || i % groups == second)
            ids.push_back(shards[std::size_t(i)].id);
    }
    return ids;
}

} // namespace swarmtrain
