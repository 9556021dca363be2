#include "FileIo.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace swarmtrain {

namespace {

std::string describe(const std::filesystem::path &path, const char *what, int error)
{
    return std::string(what) + " " + path.string() + ": " + std::strerror(error);
}

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;

    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

} // namespace

Result<std::vector<std::byte>> readFileBytes(const std::filesystem::path &path, std::uint64_t maxBytes)
{
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return makeError(describe(path, "cannot open", errno));
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0)
        return makeError(describe(path, "cannot stat", errno));
    if (!S_ISREG(info.st_mode))
        return makeError(path.string() + " is not a regular file");
    if (std::uint64_t(info.st_size) > maxBytes) {
        return makeError(path.string() + " is too large (" + std::to_string(info.st_size) + " bytes, limit "
                         + std::to_string(maxBytes) + ")");
    }
    std::vector<std::byte> bytes(std::size_t(info.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return makeError(describe(path, "cannot read", errno));
        if (got == 0)
            break;
        done += std::size_t(got);
    }
    bytes.resize(done);
    return bytes;
}

Result<void> writeFileAtomically(const std::filesystem::path &path, std::span<const std::byte> bytes)
{
    const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
    std::string tempName = (folder / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    FileDescriptor fd(::mkstemp(tempName.data()));
    if (fd.get() < 0)
        return makeError(describe(folder, "cannot create a file in", errno));

    auto fail = [&](const char *what) {
        const int error = errno;
        ::unlink(tempName.c_str());
        return makeError(describe(path, what, error));
    };

    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t wrote = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote < 0)
            return fail("cannot write");
        done += std::size_t(wrote);
    }
    if (::fsync(fd.get()) != 0)
        return fail("cannot flush");
    if (::close(fd.release()) != 0)
        return fail("cannot close");
    if (::rename(tempName.c_str(), path.c_str()) != 0)
        return fail("cannot replace");

    FileDescriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0)
        ::fsync(dir.get());
    return {};
}

} // namespace swarmtrain
