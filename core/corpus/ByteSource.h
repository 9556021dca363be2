#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace swarmtrain {

enum class Compression { None, Gzip, Zstd };

// The bytes of one corpus file, decompressed as they are read, so a file of any size streams
// through a fixed buffer. Errors name the file and say where: a read error, or a compressed
// stream that is corrupt or ends before its end marker (a truncated download).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to `capacity` bytes into `out`; 0 only at the end of the data.
    virtual Result<std::size_t> read(char *out, std::size_t capacity) = 0;
    // Bytes of the file itself consumed so far (compressed bytes for a compressed file).
    virtual std::uint64_t fileOffset() const = 0;
};

// A regular file read through a file descriptor: the plain source, and the input of the
// decompressing ones.
class RawFile {
public:
    static Result<RawFile> open(const std::filesystem::path &path);
    RawFile(RawFile &&other) noexcept;
    RawFile &operator=(RawFile &&other) noexcept;
    RawFile(const RawFile &) = delete;
    RawFile &operator=(const RawFile &) = delete;
    ~RawFile();

    Result<std::size_t> read(char *out, std::size_t capacity);
    std::uint64_t offset() const { return m_offset; }
    std::uint64_t size() const { return m_size; }
    const std::filesystem::path &path() const { return m_path; }

private:
    RawFile(int fd, std::filesystem::path path, std::uint64_t size);

    int m_fd = -1;
    std::filesystem::path m_path;
    std::uint64_t m_size = 0;
    std::uint64_t m_offset = 0;
};

Result<std::unique_ptr<ByteSource>> openByteSource(const std::filesystem::path &path, Compression compression);

} // namespace swarmtrain
