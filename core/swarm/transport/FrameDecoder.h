#pragma once

#include "Frame.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <deque>
#include <optional>

namespace swarmtrain {

// Cuts a byte stream into frames (FrameCodec.h has the layout). Bytes may arrive in chunks of
// any size. Every length a peer claims is checked against the limits before anything is
// allocated for it, and every header is validated before its payload is read. The first bad
// frame breaks the stream for good: a peer that sent garbage cannot be resynchronized.
class FrameDecoder {
public:
    explicit FrameDecoder(FrameLimits limits = {});

    // Consumes all of `bytes`; complete frames queue up for takeFrame(). Returns false once
    // the stream is broken; later input is ignored and the error stays.
    bool feed(QByteArrayView bytes);

    std::optional<Frame> takeFrame();
    bool hasFrame() const { return !m_ready.empty(); }

    bool failed() const { return m_error.has_value(); }
    const std::optional<Error> &error() const { return m_error; }

    // Bytes of a frame that has begun but not ended; non-zero when a connection drops means the
    // peer's last frame was truncated.
    quint64 partialFrameBytes() const;

private:
    enum class Stage { Length, Header, Payload };

    void fail(std::string message);
    void finishHeader();
    void finishFrame();

    FrameLimits m_limits;
    Stage m_stage = Stage::Length;
    QByteArray m_partial; // the length prefix, then the header, as they arrive
    quint32 m_headerBytes = 0;
    Frame m_current;
    std::deque<Frame> m_ready;
    std::optional<Error> m_error;
};

} // namespace swarmtrain
