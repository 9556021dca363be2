#pragma once

#include "ControlMessages.h"
#include "Result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace swarmtrain {

class CoordinatorSession;

// The most tokens a peer holds from its shards (int32 in memory: 4 GiB).
inline constexpr std::uint64_t kMaxAssignedTokens = std::uint64_t(1) << 30;

// The tokens of the shards the coordinator assigned this peer, in their order. Each token shard
// (core/corpus/TokenShard.h) is read from `dir` where the file's SHA-256 still matches the
// coordinator's, downloaded (verified) otherwise; its header must carry the swarm's tokenizer
// (the join answer's SHA-256 and vocabulary) and the token count the join answer lists before
// any token is read, and every token must fit the vocabulary. `downloading(index, count)` says
// which one is fetched, counting from 1.
Result<std::vector<std::int32_t>> loadAssignedShards(const JoinAnswer &joined, const std::filesystem::path &dir,
                                                     CoordinatorSession &session,
                                                     const std::function<void(int index, int count)> &downloading);

} // namespace swarmtrain
