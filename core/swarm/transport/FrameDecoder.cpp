#include "FrameDecoder.h"

#include "FrameCodec.h"

#include <QtEndian>

#include <algorithm>
#include <string>

namespace swarmtrain {

namespace {

// Payload buffers grow as bytes arrive, from at most this much up front: a peer that claims a
// large (but allowed) payload and then stalls costs little memory.
constexpr quint64 kInitialPayloadReserve = 1 << 20;

} // namespace

FrameDecoder::FrameDecoder(FrameLimits limits) : m_limits(limits) {}

bool FrameDecoder::feed(QByteArrayView bytes)
{
    while (!m_error && !bytes.isEmpty()) {
        switch (m_stage) {
        case Stage::Length: {
            const qsizetype take = std::min<qsizetype>(kFrameLengthPrefixBytes - m_partial.size(), bytes.size());
            m_partial.append(bytes.first(take));
            bytes = bytes.sliced(take);
            if (m_partial.size() < kFrameLengthPrefixBytes)
                break;
            m_headerBytes = qFromBigEndian<quint32>(m_partial.constData());
            m_partial.clear();
            if (m_headerBytes == 0)
                fail("frame with an empty header");
            else if (m_headerBytes > m_limits.maxHeaderBytes)
                fail("frame header of " + std::to_string(m_headerBytes) + " bytes exceeds the limit of "
                     + std::to_string(m_limits.maxHeaderBytes));
            else {
                m_partial.reserve(qsizetype(m_headerBytes));
                m_stage = Stage::Header;
            }
            break;
        }
        case Stage::Header: {
            const qsizetype take = std::min<qsizetype>(qsizetype(m_headerBytes) - m_partial.size(), bytes.size());
            m_partial.append(bytes.first(take));
            bytes = bytes.sliced(take);
            if (m_partial.size() == qsizetype(m_headerBytes))
                finishHeader();
            break;
        }
        case Stage::Payload: {
            const quint64 missing = m_current.header.payload_bytes() - quint64(m_current.payload.size());
            const qsizetype take = qsizetype(std::min<quint64>(missing, quint64(bytes.size())));
            m_current.payload.append(bytes.first(take));
            bytes = bytes.sliced(take);
            if (quint64(m_current.payload.size()) == m_current.header.payload_bytes())
                finishFrame();
            break;
        }
        }
    }
    return !m_error;
}

void FrameDecoder::finishHeader()
{
    FrameHeader header;
    const bool parsed = header.ParseFromArray(m_partial.constData(), int(m_partial.size()));
    m_partial.clear();
    if (!parsed)
        return fail("unparsable frame header");
    if (Result<void> valid = validateFrameHeader(header, m_limits); !valid)
        return fail("invalid " + std::string(frameTypeName(header.type())) + " frame: " + valid.error().message);

    m_current.header = std::move(header);
    m_current.payload = QByteArray();
    if (m_current.header.payload_bytes() == 0)
        return finishFrame();
    m_current.payload.reserve(qsizetype(std::min<quint64>(m_current.header.payload_bytes(), kInitialPayloadReserve)));
    m_stage = Stage::Payload;
}

void FrameDecoder::finishFrame()
{
    m_ready.push_back(std::move(m_current));
    m_current = Frame{};
    m_stage = Stage::Length;
}

void FrameDecoder::fail(std::string message)
{
    m_error = makeError(std::move(message));
    m_partial.clear();
    m_current = Frame{};
}

std::optional<Frame> FrameDecoder::takeFrame()
{
    if (m_ready.empty())
        return std::nullopt;
    Frame frame = std::move(m_ready.front());
    m_ready.pop_front();
    return frame;
}

quint64 FrameDecoder::partialFrameBytes() const
{
    switch (m_stage) {
    case Stage::Length:
        return quint64(m_partial.size());
    case Stage::Header:
        return kFrameLengthPrefixBytes + quint64(m_partial.size());
    case Stage::Payload:
        return kFrameLengthPrefixBytes + m_headerBytes + quint64(m_current.payload.size());
    }
    return 0;
}

} // namespace swarmtrain
