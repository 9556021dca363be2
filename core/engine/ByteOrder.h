#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

// Little-endian integers and floats in byte buffers: every wire format of the engine.
namespace swarmtrain::byteorder {

inline void putU32(std::byte *out, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        out[i] = std::byte((value >> (8 * i)) & 0xffu);
}

inline void putU64(std::byte *out, std::uint64_t value)
{
    for (int i = 0; i < 8; ++i)
        out[i] = std::byte((value >> (8 * i)) & 0xffu);
}

inline std::uint32_t getU32(const std::byte *in)
{
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
        value |= std::uint32_t(in[i]) << (8 * i);
    return value;
}

inline std::uint64_t getU64(const std::byte *in)
{
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
        value |= std::uint64_t(in[i]) << (8 * i);
    return value;
}

inline void putFloats(std::byte *out, std::span<const float> values)
{
    if (values.empty()) // memcpy from an empty vector's null data is undefined
        return;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, values.data(), values.size_bytes());
    } else {
        for (std::size_t i = 0; i < values.size(); ++i)
            putU32(out + 4 * i, std::bit_cast<std::uint32_t>(values[i]));
    }
}

inline void getFloats(const std::byte *in, std::span<float> values)
{
    if (values.empty())
        return;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(values.data(), in, values.size_bytes());
    } else {
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = std::bit_cast<float>(getU32(in + 4 * i));
    }
}

} // namespace swarmtrain::byteorder
