#include "DataShards.h"

#include "CoordinatorSession.h"
#include "Sha256.h"
#include "TokenShard.h"

#include <algorithm>

namespace swarmtrain {

Result<std::vector<std::int32_t>> loadAssignedShards(const JoinAnswer &joined, const std::filesystem::path &dir,
                                                     CoordinatorSession &session,
                                                     const std::function<void(int index, int count)> &downloading)
{
    if (joined.assignedShards.isEmpty())
        return makeError("the coordinator assigned this peer no data shards");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return makeError("cannot create " + dir.string() + ": " + ec.message());
    std::vector<std::int32_t> tokens;
    std::uint64_t total = 0;
    int index = 0;
    for (const QString &id : joined.assignedShards) {
        ++index;
        const std::string name = id.toStdString();
        const auto info = std::find_if(joined.shards.begin(), joined.shards.end(),
                                       [&](const ShardInfo &shard) { return shard.id == name; });
        if (info == joined.shards.end())
            return makeError("the coordinator assigned shard '" + name + "' it does not list");
        if (name.empty() || name.find_first_of("/\\") != std::string::npos || name.front() == '.')
            return makeError("the coordinator named a shard '" + name + "', which is not a plain file name");
        total += info->tokens;
        if (total > kMaxAssignedTokens)
            return makeError("the coordinator assigned this peer more than " + std::to_string(kMaxAssignedTokens)
                             + " tokens of shards");
        const std::filesystem::path file = dir / (name + ".tokens");

        Result<std::string> held = Sha256::hexOfFile(file);
        if (!held || *held != info->sha256) {
            downloading(index, int(joined.assignedShards.size()));
            const QString sha256 = QString::fromStdString(info->sha256);
            if (Result<void> got = session.download(QStringLiteral("/v1/shards/") + id, file, sha256); !got)
                return got.error();
        }
        const TokenShardExpectation expected{std::uint32_t(joined.tokenizer.vocabSize),
                                             joined.tokenizer.sha256.toStdString(), info->tokens};
        Result<TokenShardHeader> header = readTokenShard(file, expected, tokens);
        if (!header)
            return makeError("data shard " + name + " is refused: " + header.error().message);
        if (header->tokens != info->tokens) {
            return makeError("data shard " + name + " is refused: it holds " + std::to_string(header->tokens)
                             + " tokens, not the " + std::to_string(info->tokens) + " the coordinator lists");
        }
    }
    return tokens;
}

} // namespace swarmtrain
