#pragma once

#include <cstdint>
#include <string>

namespace swarmtrain {

// A data shard the coordinator serves at /v1/shards/{id}.
struct ShardInfo {
    std::string id; // six digits, also the file name (without ".txt")
    std::uint64_t bytes = 0;
    std::string sha256; // hex
};

} // namespace swarmtrain
