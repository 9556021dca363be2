#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace swarmtrain {

// The header of a pre-tokenized file in llm.c's layout (nanoGPT's data files, llm.c's
// dev/data scripts): 256 little-endian int32, of which [0] is the magic 20240520, [1] the
// version (1: uint16 tokens, 2: uint32 tokens) and [2] the token count; the tokens follow.
struct LlmcBinHeader {
    static constexpr std::size_t kBytes = 256 * 4;
    static constexpr std::int32_t kMagic = 20240520;

    int version = 1;
    std::uint64_t tokens = 0;
    std::size_t tokenBytes = 2;
};

// Checks the header against the file's size before anything is read or allocated from it: a
// wrong magic or version, or a count that disagrees with the bytes that follow, is an error
// that says which.
Result<LlmcBinHeader> decodeLlmcBinHeader(std::span<const std::byte> header, std::uint64_t fileBytes);

} // namespace swarmtrain
