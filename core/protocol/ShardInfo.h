#pragma once

#include <cstdint>
#include <string>

namespace swarmtrain {

// A data shard the coordinator serves at /v1/shards/{id}: a token shard (core/corpus/TokenShard.h).
struct ShardInfo {
    std::string id; // six digits, also the file name (without ".tokens")
    std::uint64_t bytes = 0;
    std::string sha256; // hex
    std::uint64_t tokens = 0;
};

} // namespace swarmtrain
