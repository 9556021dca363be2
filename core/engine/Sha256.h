#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace swarmtrain {

// FIPS 180-4 SHA-256. The engine builds without OpenSSL (CUDA machines often lack its
// headers), so it carries this small implementation; tests check it against OpenSSL.
class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    void update(std::span<const std::byte> data);
    void update(std::string_view data);
    Digest finish();

    static Digest hash(std::span<const std::byte> data);
    static std::string hex(const Digest &digest);
    static std::string hexOf(std::span<const std::byte> data) { return hex(hash(data)); }

private:
    void compress(const std::uint8_t *block);

    std::array<std::uint32_t, 8> m_state;
    std::array<std::uint8_t, 64> m_buffer{};
    std::size_t m_buffered = 0;
    std::uint64_t m_totalBytes = 0;
};

} // namespace swarmtrain
