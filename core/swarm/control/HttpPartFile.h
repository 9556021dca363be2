#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

typedef struct evp_md_ctx_st EVP_MD_CTX;

namespace swarmtrain {

// The FILE.part of a download in progress: bytes are appended and hashed as they arrive, an
// existing .part is hashed once on open so the download can resume, and commit() makes the
// finished file appear atomically (fsync, rename, fsync the folder).
class HttpPartFile {
public:
    static Result<HttpPartFile> open(const std::filesystem::path &partFile);
    // The SHA-256 of a whole file, read as open() hashes a .part, changing nothing.
    static Result<std::string> sha256OfFile(const std::filesystem::path &file);

    HttpPartFile(HttpPartFile &&) noexcept;
    HttpPartFile &operator=(HttpPartFile &&) noexcept;
    ~HttpPartFile();

    std::int64_t size() const { return m_size; }
    const std::filesystem::path &path() const { return m_path; }

    Result<void> append(const char *data, std::size_t bytes);
    Result<void> truncate(); // start over: the server sent the whole file, not the rest
    std::string sha256Hex() const; // of everything appended so far

    // fsync and rename onto `file`; afterwards this object is closed.
    Result<void> commit(const std::filesystem::path &file);
    void discard(); // close and delete the .part

private:
    struct DigestDeleter {
        void operator()(EVP_MD_CTX *context) const;
    };
    HttpPartFile(std::filesystem::path path, int fd);
    // The file opened with `flags` and what it holds hashed.
    static Result<HttpPartFile> hashed(const std::filesystem::path &partFile, int flags);
    Result<void> resetDigest();
    void close();

    std::filesystem::path m_path;
    int m_fd = -1;
    std::int64_t m_size = 0;
    std::unique_ptr<EVP_MD_CTX, DigestDeleter> m_digest;
};

} // namespace swarmtrain
