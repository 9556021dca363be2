#include "DataShards.h"

#include "CoordinatorSession.h"
#include "FileIo.h"
#include "Sha256.h"

#include <algorithm>

namespace swarmtrain {

namespace {
constexpr std::uint64_t kMaxShardBytes = 1ull << 30;
}

Result<std::string> loadAssignedShards(const JoinAnswer &joined, const std::filesystem::path &dir,
                                       CoordinatorSession &session,
                                       const std::function<void(int index, int count)> &downloading)
{
    if (joined.assignedShards.isEmpty())
        return makeError("the coordinator assigned this peer no data shards");
    std::string text;
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
        const std::filesystem::path file = dir / (name + ".txt");

        Result<std::vector<std::byte>> bytes = readFileBytes(file, kMaxShardBytes);
        if (!bytes || Sha256::hexOf(*bytes) != info->sha256) {
            downloading(index, int(joined.assignedShards.size()));
            const QString sha256 = QString::fromStdString(info->sha256);
            if (Result<void> got = session.download(QStringLiteral("/v1/shards/") + id, file, sha256); !got)
                return got.error();
            bytes = readFileBytes(file, kMaxShardBytes);
            if (!bytes)
                return bytes.error();
        }
        text.append(reinterpret_cast<const char *>(bytes->data()), bytes->size());
    }
    return text;
}

} // namespace swarmtrain
