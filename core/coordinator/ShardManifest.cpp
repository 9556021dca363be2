#include "ShardManifest.h"

#include "Sha256.h"
#include "TokenShard.h"

#include <algorithm>
#include <array>
#include <fstream>

namespace swarmtrain {

namespace {

constexpr char kManifestName[] = "manifest.json";

// The file is the shard the manifest lists: its size and SHA-256, and a header for this tokenizer.
Result<void> checkShardFile(const std::filesystem::path &file, const ShardRecord &shard,
                            const TokenShardExpectation &expected)
{
    const std::string damaged = file.string() + " does not match the manifest (changed or damaged); restore it or "
                                                "start with a new state dir";
    std::error_code ec;
    if (std::filesystem::file_size(file, ec) != shard.bytes || ec)
        return makeError(damaged);
    std::array<char, TokenShardHeader::kBytes> header{};
    std::ifstream in(file, std::ios::binary);
    if (!in.read(header.data(), header.size()))
        return makeError(damaged);
    Result<TokenShardHeader> decoded = decodeTokenShardHeader(std::as_bytes(std::span(header)), shard.bytes, expected);
    if (!decoded)
        return makeError(file.string() + ": " + decoded.error().message);
    Result<std::string> sha = Sha256::hexOfFile(file);
    if (!sha)
        return sha.error();
    if (*sha != shard.sha256 || decoded->tokens != shard.tokens)
        return makeError(damaged);
    return {};
}

} // namespace

const ShardInfo *ShardManifest::find(std::string_view id) const
{
    for (const ShardInfo &shard : m_shards) {
        if (shard.id == id)
            return &shard;
    }
    return nullptr;
}

std::filesystem::path ShardManifest::shardPath(const ShardInfo &shard) const { return m_dir / (shard.id + ".tokens"); }

Result<ShardManifest> ShardManifest::openOrCreate(const std::filesystem::path &stateDir, const CorpusInputs &inputs,
                                                  const Tokenizer &tokenizer, const CorpusReadOptions &read,
                                                  const ShardingOptions &sharding,
                                                  const std::function<void(const std::string &)> &log)
{
    const std::filesystem::path dir = stateDir / "shards";
    CorpusTokenizer pass(inputs, tokenizer, read, sharding, dir, log);
    std::error_code ec;
    if (std::filesystem::exists(dir / kManifestName, ec)) {
        Result<CorpusManifest> finished = CorpusManifest::read(dir / kManifestName);
        if (!finished)
            return finished.error();
        if (finished->corpusKey != pass.corpusKey()) {
            return makeError("the training data, its tokenizer or --shard-tokens differ from those this state dir's "
                             "shards were made with");
        }
        return open(stateDir, tokenizer);
    }
    log("tokenizing the corpus (" + std::to_string(inputs.files.size()) + " files, "
        + std::to_string(inputs.totalBytes() / 1'000'000) + " MB) into " + dir.string());
    Result<CorpusManifest> made = pass.run();
    if (!made)
        return made.error();
    log("the corpus is " + std::to_string(made->train.size()) + " training shards of " + std::to_string(made->trainTokens())
        + " tokens and a validation split of " + std::to_string(made->validationTokens) + " tokens ("
        + std::to_string(made->validationDocuments) + " documents, " + std::to_string(made->validationBytes)
        + " bytes); " + std::to_string(made->badRecords) + " bad records skipped");
    return open(stateDir, tokenizer);
}

Result<ShardManifest> ShardManifest::open(const std::filesystem::path &stateDir, const Tokenizer &tokenizer)
{
    ShardManifest manifest;
    manifest.m_dir = stateDir / "shards";
    Result<CorpusManifest> corpus = CorpusManifest::read(manifest.m_dir / kManifestName);
    if (!corpus)
        return corpus.error();
    manifest.m_corpus = std::move(corpus).value();
    manifest.m_expected = {std::uint32_t(tokenizer.vocabSize()), tokenizer.sha256(), std::uint64_t(1) << 31};
    if (manifest.m_corpus.tokenizerSha256 != tokenizer.sha256())
        return makeError((manifest.m_dir / kManifestName).string() + " was made with another tokenizer");
    std::uint64_t heldTokens = 0;
    for (const ShardRecord &shard : manifest.m_corpus.validation)
        heldTokens += shard.tokens;
    if (heldTokens != manifest.m_corpus.validationTokens)
        return makeError((manifest.m_dir / kManifestName).string() + " is damaged: its validation shards do not add up");
    for (const std::vector<ShardRecord> *split : {&manifest.m_corpus.train, &manifest.m_corpus.validation}) {
        for (const ShardRecord &shard : *split) {
            if (Result<void> checked = checkShardFile(manifest.m_dir / shard.fileName(), shard, manifest.m_expected);
                !checked)
                return checked.error();
        }
    }
    for (const ShardRecord &shard : manifest.m_corpus.train)
        manifest.m_shards.push_back({shard.id, shard.bytes, shard.sha256, shard.tokens});
    return manifest;
}

Result<std::vector<std::int32_t>> ShardManifest::readValidationTokens() const
{
    std::vector<std::int32_t> tokens;
    tokens.reserve(std::size_t(m_corpus.validationTokens)); // checked against the shard files at open()
    for (const ShardRecord &shard : m_corpus.validation) {
        if (Result<TokenShardHeader> read = readTokenShard(m_dir / shard.fileName(), m_expected, tokens); !read)
            return read.error();
    }
    return tokens;
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
