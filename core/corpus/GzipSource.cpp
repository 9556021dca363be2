#include "Decompressors.h"

#include <zlib.h>

#include <optional>
#include <vector>

namespace swarmtrain {

namespace {

constexpr std::size_t kInputChunk = 256 * 1024;

class GzipSource : public ByteSource {
public:
    explicit GzipSource(RawFile file) : m_file(std::move(file)), m_input(kInputChunk)
    {
        // 15 + 32: the largest window, and a gzip or zlib header detected from the stream.
        m_ready = inflateInit2(&m_stream, 15 + 32) == Z_OK;
    }
    ~GzipSource() override
    {
        if (m_ready)
            inflateEnd(&m_stream);
    }

    Result<std::size_t> read(char *out, std::size_t capacity) override
    {
        if (!m_ready)
            return makeError("cannot start zlib for " + m_file.path().string());
        if (m_failure)
            return *m_failure;
        m_out = out;
        m_stream.next_out = reinterpret_cast<Bytef *>(out);
        m_stream.avail_out = uInt(std::min<std::size_t>(capacity, 1u << 30));
        while (m_stream.avail_out > 0) {
            if (m_stream.avail_in == 0 && !m_fileEnded) {
                Result<std::size_t> got = m_file.read(m_input.data(), m_input.size());
                if (!got)
                    return got.error();
                m_fileEnded = *got == 0;
                m_stream.next_in = reinterpret_cast<Bytef *>(m_input.data());
                m_stream.avail_in = uInt(*got);
            }
            if (m_stream.avail_in == 0 && m_fileEnded && !m_inMember) {
                if (!m_sawMember)
                    return failure("holds no gzip stream (empty or truncated)");
                break;
            }
            // With the file's bytes all given, inflate may still hand out output it holds.
            const uInt roomBefore = m_stream.avail_out;
            const int status = inflate(&m_stream, Z_NO_FLUSH);
            m_inMember = true;
            if (status == Z_STREAM_END) {
                // Another member may follow (concatenated .gz files are one gzip file).
                m_inMember = false;
                m_sawMember = true;
                if (inflateReset(&m_stream) != Z_OK)
                    return failure("cannot restart zlib");
            } else if (status == Z_OK || (status == Z_BUF_ERROR && m_stream.avail_in == 0)) {
                if (m_fileEnded && m_stream.avail_in == 0 && m_stream.avail_out == roomBefore)
                    return failure("ends before the end of its gzip stream (truncated)");
            } else {
                return failure(std::string("is not valid gzip data (") + (m_stream.msg ? m_stream.msg : "zlib error")
                               + ")");
            }
        }
        return std::size_t(reinterpret_cast<char *>(m_stream.next_out) - out);
    }

    std::uint64_t fileOffset() const override { return m_file.offset() - m_stream.avail_in; }

private:
    // The error, after the bytes this call decoded before it: those are handed out first.
    Result<std::size_t> failure(const std::string &what)
    {
        m_failure = makeError(m_file.path().string() + " " + what + " at compressed byte " + std::to_string(fileOffset()));
        const auto produced = std::size_t(reinterpret_cast<char *>(m_stream.next_out) - m_out);
        return produced > 0 ? Result<std::size_t>(produced) : Result<std::size_t>(*m_failure);
    }

    RawFile m_file;
    std::vector<char> m_input;
    z_stream m_stream{};
    bool m_ready = false;
    bool m_fileEnded = false;
    bool m_inMember = false;
    bool m_sawMember = false;
    char *m_out = nullptr; // the current read's buffer
    std::optional<Error> m_failure;
};

} // namespace

std::unique_ptr<ByteSource> makeGzipSource(RawFile file) { return std::make_unique<GzipSource>(std::move(file)); }

} // namespace swarmtrain
