#pragma once

#include "Result.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX, kept out of this header

namespace swarmtrain {

// SHA-256 through OpenSSL's EVP interface (libcrypto), which uses the CPU's SHA extensions or
// vector units: several times faster than the portable implementation it replaced
// (bench/HashBench.cpp measures both).
class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    ~Sha256();
    Sha256(Sha256 &&) noexcept;
    Sha256 &operator=(Sha256 &&) noexcept;

    void update(std::span<const std::byte> data);
    void update(std::string_view data);
    Digest finish();

    static Digest hash(std::span<const std::byte> data);
    static std::string hex(const Digest &digest);
    static std::string hexOf(std::span<const std::byte> data) { return hex(hash(data)); }
    // Streams the file through the hash, so files larger than memory can be checked.
    static Result<std::string> hexOfFile(const std::filesystem::path &file);

private:
    struct FreeContext {
        void operator()(evp_md_ctx_st *context) const;
    };
    std::unique_ptr<evp_md_ctx_st, FreeContext> m_context;
};

} // namespace swarmtrain
