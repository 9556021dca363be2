#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace swarmtrain::fuzz {

// Fuzz inputs for stream decoders start with 8 bytes that seed the chunk sizes; the rest is the
// byte stream. Kept apart so a seed's frames stay intact whatever chunking the fuzzer picks.
inline constexpr std::size_t kChunkSeedBytes = 8;

// The sealed-stream fuzzer's key, every byte this one, so its seeds hold authentic records.
inline constexpr char kSealedStreamKeyByte = 0x5a;

class ChunkSizes {
public:
    explicit ChunkSizes(const std::uint8_t *seed)
    {
        std::memcpy(&m_state, seed, sizeof(m_state));
        m_state |= 1;
    }

    // 1 to 4096 bytes, mostly small, so every stage boundary of the decoder gets split.
    std::size_t next()
    {
        m_state ^= m_state << 13;
        m_state ^= m_state >> 7;
        m_state ^= m_state << 17;
        const unsigned shift = unsigned(m_state >> 60) % 13; // 2^0 .. 2^12
        return 1 + std::size_t((m_state >> 8) & ((std::uint64_t(1) << shift) - 1));
    }

private:
    std::uint64_t m_state = 0;
};

} // namespace swarmtrain::fuzz
