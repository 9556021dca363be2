#include "ByteSource.h"

#include "Decompressors.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace swarmtrain {

namespace {

class PlainSource : public ByteSource {
public:
    explicit PlainSource(RawFile file) : m_file(std::move(file)) {}

    Result<std::size_t> read(char *out, std::size_t capacity) override { return m_file.read(out, capacity); }
    std::uint64_t fileOffset() const override { return m_file.offset(); }

private:
    RawFile m_file;
};

} // namespace

RawFile::RawFile(int fd, std::filesystem::path path, std::uint64_t size)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_size(size)
{
}

RawFile::RawFile(RawFile &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
    , m_size(other.m_size)
    , m_offset(other.m_offset)
{
}

RawFile &RawFile::operator=(RawFile &&other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
        m_size = other.m_size;
        m_offset = other.m_offset;
    }
    return *this;
}

RawFile::~RawFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Result<RawFile> RawFile::open(const std::filesystem::path &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return makeError("cannot open " + path.string() + ": " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return makeError(path.string() + " is not a regular file");
    }
    return RawFile(fd, path, std::uint64_t(info.st_size));
}

Result<std::size_t> RawFile::read(char *out, std::size_t capacity)
{
    for (;;) {
        const ssize_t got = ::read(m_fd, out, capacity);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            return makeError("cannot read " + m_path.string() + " at byte " + std::to_string(m_offset) + ": "
                             + std::strerror(errno));
        }
        m_offset += std::uint64_t(got);
        return std::size_t(got);
    }
}

Result<std::unique_ptr<ByteSource>> openByteSource(const std::filesystem::path &path, Compression compression)
{
    Result<RawFile> file = RawFile::open(path);
    if (!file)
        return file.error();
    switch (compression) {
    case Compression::Gzip: return makeGzipSource(std::move(file).value());
    case Compression::Zstd: return makeZstdSource(std::move(file).value());
    case Compression::None: break;
    }
    return std::unique_ptr<ByteSource>(std::make_unique<PlainSource>(std::move(file).value()));
}

} // namespace swarmtrain
