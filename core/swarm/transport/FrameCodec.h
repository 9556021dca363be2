#pragma once

#include "Frame.h"
#include "Result.h"

#include <QByteArray>
#include <QByteArrayView>

namespace swarmtrain {

// Wire layout of a frame: a 4-byte big-endian header length, the serialized FrameHeader, then
// exactly header.payload_bytes() raw bytes.
inline constexpr int kFrameLengthPrefixBytes = 4;

// A header's own consistency: a known type whose body matches it; a known dtype, non-negative
// dims and payload_bytes == dtype size x product(shape) (computed without overflow) on TENSOR
// frames; no payload on other frames; range_end >= range_begin; finite, non-negative tokens;
// payload_bytes within the limit. Receivers and senders run the same check.
Result<void> validateFrameHeader(const FrameHeader &header, const FrameLimits &limits);

// The length prefix and header of a frame whose payload has `payloadBytes` bytes (payload_bytes
// is set from it). Lets a sender write a large payload without copying it into one buffer.
Result<QByteArray> encodeFrameHeader(FrameHeader header, quint64 payloadBytes, const FrameLimits &limits = {});

// A whole frame: length prefix, header, payload.
Result<QByteArray> encodeFrame(FrameHeader header, QByteArrayView payload, const FrameLimits &limits = {});

// Display name of a frame type for logs and error messages ("TENSOR", "HELLO", ...).
const char *frameTypeName(int type);

} // namespace swarmtrain
