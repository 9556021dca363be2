#include "Decompressors.h"

#include <zstd.h>

#include <optional>
#include <vector>

namespace swarmtrain {

namespace {

// A frame asking for a larger window would make the decoder allocate it: refused.
constexpr int kMaxWindowLog = 27;

class ZstdSource : public ByteSource {
public:
    explicit ZstdSource(RawFile file) : m_file(std::move(file)), m_input(ZSTD_DStreamInSize()), m_context(ZSTD_createDCtx())
    {
        if (m_context)
            ZSTD_DCtx_setParameter(m_context, ZSTD_d_windowLogMax, kMaxWindowLog);
    }
    ~ZstdSource() override { ZSTD_freeDCtx(m_context); }

    Result<std::size_t> read(char *out, std::size_t capacity) override
    {
        if (!m_context)
            return makeError("cannot start zstd for " + m_file.path().string());
        if (m_failure)
            return *m_failure;
        ZSTD_outBuffer output{out, capacity, 0};
        while (output.pos < output.size) {
            if (m_in.pos == m_in.size && !m_fileEnded) {
                Result<std::size_t> got = m_file.read(m_input.data(), m_input.size());
                if (!got)
                    return got.error();
                m_fileEnded = *got == 0;
                m_in = ZSTD_inBuffer{m_input.data(), *got, 0};
            }
            // 0 from the last call: a frame ended and was handed out whole.
            if (m_in.pos == m_in.size && m_fileEnded && m_pending == 0)
                break;
            // With the file's bytes all given, the decoder may still hand out output it holds.
            const std::size_t before = output.pos;
            const std::size_t status = ZSTD_decompressStream(m_context, &output, &m_in);
            if (ZSTD_isError(status))
                return failure(std::string("is not valid zstd data (") + ZSTD_getErrorName(status) + ")", output.pos);
            m_pending = status;
            if (m_fileEnded && m_in.pos == m_in.size && status != 0 && output.pos == before)
                return failure("ends before the end of its zstd frame (truncated)", output.pos);
        }
        return output.pos;
    }

    std::uint64_t fileOffset() const override { return m_file.offset() - (m_in.size - m_in.pos); }

private:
    // The error, after the bytes this call decoded before it: those are handed out first.
    Result<std::size_t> failure(const std::string &what, std::size_t produced)
    {
        m_failure = makeError(m_file.path().string() + " " + what + " at compressed byte " + std::to_string(fileOffset()));
        return produced > 0 ? Result<std::size_t>(produced) : Result<std::size_t>(*m_failure);
    }

    RawFile m_file;
    std::vector<char> m_input;
    ZSTD_DCtx *m_context = nullptr;
    ZSTD_inBuffer m_in{nullptr, 0, 0};
    // ZSTD_decompressStream's last answer: 0 when a frame just ended. An empty file has no
    // frame at all, so it counts as cut short.
    std::size_t m_pending = 1;
    bool m_fileEnded = false;
    std::optional<Error> m_failure;
};

} // namespace

std::unique_ptr<ByteSource> makeZstdSource(RawFile file) { return std::make_unique<ZstdSource>(std::move(file)); }

} // namespace swarmtrain
