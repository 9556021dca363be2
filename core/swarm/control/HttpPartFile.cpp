#include "HttpPartFile.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace swarmtrain {

namespace {

std::string describe(const std::string &what, const std::filesystem::path &path, int error)
{
    return what + " " + path.string() + ": " + std::strerror(error);
}

} // namespace

void HttpPartFile::DigestDeleter::operator()(EVP_MD_CTX *context) const { EVP_MD_CTX_free(context); }

HttpPartFile::HttpPartFile(std::filesystem::path path, int fd) : m_path(std::move(path)), m_fd(fd) {}

HttpPartFile::HttpPartFile(HttpPartFile &&other) noexcept
    : m_path(std::move(other.m_path)), m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size),
      m_digest(std::move(other.m_digest))
{
}

HttpPartFile &HttpPartFile::operator=(HttpPartFile &&other) noexcept
{
    if (this != &other) {
        close();
        m_path = std::move(other.m_path);
        m_fd = std::exchange(other.m_fd, -1);
        m_size = other.m_size;
        m_digest = std::move(other.m_digest);
    }
    return *this;
}

HttpPartFile::~HttpPartFile() { close(); }

void HttpPartFile::close()
{
    if (m_fd >= 0)
        ::close(std::exchange(m_fd, -1));
}

Result<HttpPartFile> HttpPartFile::open(const std::filesystem::path &partFile)
{
    return hashed(partFile, O_RDWR | O_CREAT | O_APPEND);
}

Result<std::string> HttpPartFile::sha256OfFile(const std::filesystem::path &file)
{
    Result<HttpPartFile> read = hashed(file, O_RDONLY);
    if (!read)
        return read.error();
    return read->sha256Hex();
}

Result<HttpPartFile> HttpPartFile::hashed(const std::filesystem::path &partFile, int flags)
{
    const int fd = ::open(partFile.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0)
        return makeError(describe("cannot open", partFile, errno));
    HttpPartFile part(partFile, fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0)
        return makeError(describe("cannot stat", partFile, errno));
    if (!S_ISREG(info.st_mode)) // a device would be read forever below
        return makeError(partFile.string() + " is not a regular file");
    if (Result<void> reset = part.resetDigest(); !reset)
        return reset.error();

    // Hash what an earlier, interrupted download left, so the finished file's SHA-256 covers it.
    std::vector<char> buffer(1 << 20);
    for (;;) {
        const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), part.m_size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return makeError(describe("cannot read", partFile, errno));
        if (got == 0)
            break;
        EVP_DigestUpdate(part.m_digest.get(), buffer.data(), std::size_t(got));
        part.m_size += got;
    }
    return part;
}

Result<void> HttpPartFile::resetDigest()
{
    m_digest.reset(EVP_MD_CTX_new());
    if (!m_digest || EVP_DigestInit_ex(m_digest.get(), EVP_sha256(), nullptr) != 1)
        return makeError("cannot start a SHA-256 digest (OpenSSL)");
    return {};
}

Result<void> HttpPartFile::append(const char *data, std::size_t bytes)
{
    if (m_fd < 0)
        return makeError(m_path.string() + " is closed");
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t wrote = ::write(m_fd, data + done, bytes - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote < 0) {
            const int error = errno;
            // What was written is good data, but the digest no longer covers the file: refuse
            // further appends; a later open() rehashes the whole .part.
            close();
            return makeError(describe("cannot write", m_path, error));
        }
        done += std::size_t(wrote);
    }
    EVP_DigestUpdate(m_digest.get(), data, bytes);
    m_size += std::int64_t(bytes);
    return {};
}

Result<void> HttpPartFile::truncate()
{
    if (m_fd < 0)
        return makeError(m_path.string() + " is closed");
    if (::ftruncate(m_fd, 0) != 0)
        return makeError(describe("cannot truncate", m_path, errno));
    m_size = 0;
    return resetDigest();
}

std::string HttpPartFile::sha256Hex() const
{
    std::unique_ptr<EVP_MD_CTX, DigestDeleter> copy(EVP_MD_CTX_new());
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!copy || EVP_MD_CTX_copy_ex(copy.get(), m_digest.get()) != 1
        || EVP_DigestFinal_ex(copy.get(), digest, &length) != 1)
        return {};
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex += digits[digest[i] >> 4];
        hex += digits[digest[i] & 15];
    }
    return hex;
}

Result<void> HttpPartFile::commit(const std::filesystem::path &file)
{
    if (m_fd < 0)
        return makeError(m_path.string() + " is closed");
    if (::fsync(m_fd) != 0)
        return makeError(describe("cannot flush", m_path, errno));
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0)
        return makeError(describe("cannot close", m_path, errno));
    if (::rename(m_path.c_str(), file.c_str()) != 0)
        return makeError(describe("cannot rename " + m_path.string() + " to", file, errno));
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {};
}

void HttpPartFile::discard()
{
    close();
    std::error_code ignored;
    std::filesystem::remove(m_path, ignored);
}

} // namespace swarmtrain
