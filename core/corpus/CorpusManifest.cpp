#include "CorpusManifest.h"

#include "FileIo.h"

#include <nlohmann/json.hpp>

namespace swarmtrain {

namespace {

using json = nlohmann::json;

constexpr std::uint64_t kMaxManifestBytes = 256u << 20;

json shardsJson(const std::vector<ShardRecord> &shards)
{
    json list = json::array();
    for (const ShardRecord &shard : shards) {
        list.push_back({{"id", shard.id}, {"bytes", shard.bytes}, {"tokens", shard.tokens},
                        {"documents", shard.documents}, {"sha256", shard.sha256}});
    }
    return list;
}

bool isShardId(const std::string &id)
{
    const std::string digits = id.starts_with("validation-") ? id.substr(11) : id;
    return digits.size() == 6 && digits.find_first_not_of("0123456789") == std::string::npos;
}

std::vector<ShardRecord> shardsOf(const json &list)
{
    std::vector<ShardRecord> shards;
    for (const json &entry : list) {
        ShardRecord shard{entry.at("id").get<std::string>(), entry.at("bytes").get<std::uint64_t>(),
                          entry.at("tokens").get<std::uint64_t>(), entry.at("documents").get<std::uint64_t>(),
                          entry.at("sha256").get<std::string>()};
        if (!isShardId(shard.id))
            throw std::invalid_argument("a shard id \"" + shard.id.substr(0, 40) + "\" is not six digits");
        shards.push_back(std::move(shard));
    }
    return shards;
}

} // namespace

std::uint64_t CorpusManifest::trainTokens() const
{
    std::uint64_t total = 0;
    for (const ShardRecord &shard : train)
        total += shard.tokens;
    return total;
}

std::string CorpusManifest::toJson() const
{
    return json{{"version", kVersion},
                {"corpus", corpusKey},
                {"inputs_sha256", inputsSha256},
                {"tokenizer", {{"kind", tokenizerKind}, {"sha256", tokenizerSha256}, {"vocab_size", vocabSize}}},
                {"shard_tokens", shardTokens},
                {"documents", documents},
                {"bad_records", badRecords},
                {"shards", shardsJson(train)},
                {"validation",
                 {{"shards", shardsJson(validation)},
                  {"documents", validationDocuments},
                  {"tokens", validationTokens},
                  {"bytes", validationBytes}}}}
        .dump(1);
}

Result<CorpusManifest> CorpusManifest::fromJson(const std::string &text, const std::string &where)
{
    const json root = json::parse(text, nullptr, false);
    if (root.is_discarded() || !root.is_object())
        return makeError(where + " is not JSON");
    if (!root.contains("version") || root.at("version") != kVersion)
        return makeError(where + " is not a version 2 shard manifest (an older coordinator's text shards: start this "
                                 "swarm in a new state dir)");
    CorpusManifest m;
    try {
        m.corpusKey = root.at("corpus").get<std::string>();
        m.inputsSha256 = root.at("inputs_sha256").get<std::string>();
        const json &tokenizer = root.at("tokenizer");
        m.tokenizerKind = tokenizer.at("kind").get<std::string>();
        m.tokenizerSha256 = tokenizer.at("sha256").get<std::string>();
        m.vocabSize = tokenizer.at("vocab_size").get<std::uint32_t>();
        m.shardTokens = root.at("shard_tokens").get<std::uint64_t>();
        m.documents = root.at("documents").get<std::uint64_t>();
        m.badRecords = root.at("bad_records").get<std::uint64_t>();
        m.train = shardsOf(root.at("shards"));
        const json &validation = root.at("validation");
        m.validation = shardsOf(validation.at("shards"));
        m.validationDocuments = validation.at("documents").get<std::uint64_t>();
        m.validationTokens = validation.at("tokens").get<std::uint64_t>();
        m.validationBytes = validation.at("bytes").get<std::uint64_t>();
    } catch (const std::exception &e) {
        return makeError(where + " is damaged: " + e.what());
    }
    return m;
}

Result<CorpusManifest> CorpusManifest::read(const std::filesystem::path &file)
{
    Result<std::vector<std::byte>> bytes = readFileBytes(file, kMaxManifestBytes);
    if (!bytes)
        return bytes.error();
    return fromJson(std::string(reinterpret_cast<const char *>(bytes->data()), bytes->size()), file.string());
}

} // namespace swarmtrain
