#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace swarmtrain {

// Reads a whole regular file; refuses directories and files larger than maxBytes.
Result<std::vector<std::byte>> readFileBytes(const std::filesystem::path &path, std::uint64_t maxBytes);

// Replaces `path` with `bytes` so that a crash at any moment leaves either the old or the
// new file, never a torn one: write a temp file beside it, fsync, rename, fsync the folder.
// On failure (a full disk, say) the old file is untouched and the temp file removed.
Result<void> writeFileAtomically(const std::filesystem::path &path, std::span<const std::byte> bytes);

} // namespace swarmtrain
