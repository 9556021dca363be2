#include "Sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>

namespace swarmtrain {

namespace {

// Only allocation can fail for a built-in digest; the API has no error path, so it throws.
void check(int ok, const char *what)
{
    if (ok != 1)
        throw std::runtime_error(std::string("OpenSSL SHA-256: ") + what + " failed");
}

} // namespace

void Sha256::FreeContext::operator()(evp_md_ctx_st *context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : m_context(EVP_MD_CTX_new())
{
    if (!m_context)
        throw std::bad_alloc();
    check(EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr), "EVP_DigestInit_ex");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256 &&) noexcept = default;
Sha256 &Sha256::operator=(Sha256 &&) noexcept = default;

void Sha256::update(std::span<const std::byte> data)
{
    check(EVP_DigestUpdate(m_context.get(), data.data(), data.size()), "EVP_DigestUpdate");
}

void Sha256::update(std::string_view data)
{
    update(std::as_bytes(std::span(data.data(), data.size())));
}

Sha256::Digest Sha256::finish()
{
    Digest digest;
    unsigned int size = 0;
    check(EVP_DigestFinal_ex(m_context.get(), digest.data(), &size), "EVP_DigestFinal_ex");
    return digest;
}

Sha256::Digest Sha256::hash(std::span<const std::byte> data)
{
    Digest digest;
    check(EVP_Digest(data.data(), data.size(), digest.data(), nullptr, EVP_sha256(), nullptr), "EVP_Digest");
    return digest;
}

std::string Sha256::hex(const Digest &digest)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * digest.size());
    for (std::uint8_t byte : digest) {
        out.push_back(kHex[byte >> 4]);
        out.push_back(kHex[byte & 15]);
    }
    return out;
}

Result<std::string> Sha256::hexOfFile(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return makeError("cannot open " + file.string());
    Sha256 hash;
    std::vector<char> buffer(1 << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        hash.update(std::string_view(buffer.data(), std::size_t(in.gcount())));
    }
    if (in.bad())
        return makeError("cannot read " + file.string());
    return hex(hash.finish());
}

} // namespace swarmtrain
