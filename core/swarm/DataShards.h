#pragma once

#include "ControlMessages.h"
#include "Result.h"

#include <filesystem>
#include <functional>
#include <string>

namespace swarmtrain {

class CoordinatorSession;

// The text of the shards the coordinator assigned this peer, in their order: read from `dir`
// where the file's SHA-256 still matches the coordinator's, downloaded (verified) otherwise.
// `downloading(index, count)` says which one is fetched, counting from 1.
Result<std::string> loadAssignedShards(const JoinAnswer &joined, const std::filesystem::path &dir,
                                       CoordinatorSession &session,
                                       const std::function<void(int index, int count)> &downloading);

} // namespace swarmtrain
