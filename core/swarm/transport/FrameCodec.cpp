#include "FrameCodec.h"

#include "TensorContainer.h"

#include <QtEndian>

#include <cmath>
#include <limits>
#include <string>

namespace swarmtrain {

namespace {

constexpr std::size_t kMaxRefusalBytes = 512;

std::string shapeText(const FrameHeader &header)
{
    std::string text = "[";
    for (int i = 0; i < header.shape_size(); ++i) {
        if (i > 0)
            text += ",";
        text += std::to_string(header.shape(i));
    }
    return text + "]";
}

Result<void> validateBody(const FrameHeader &header)
{
    using Body = FrameHeader::BodyCase;
    const Body body = header.body_case();
    const std::string type = frameTypeName(header.type());
    switch (header.type()) {
    case wire::FRAME_TYPE_HELLO:
        if (body != Body::kHello)
            return makeError("HELLO frame without hello fields");
        return {};
    case wire::FRAME_TYPE_HELLO_PROOF:
        if (body != Body::kProof)
            return makeError("HELLO_PROOF frame without a proof");
        return {};
    case wire::FRAME_TYPE_ERROR:
        if (body != Body::kErrorMessage && body != Body::BODY_NOT_SET)
            return makeError("ERROR frame with a " + std::string(body == Body::kHello ? "hello" : body == Body::kProof ? "proof" : "stage") + " body");
        return {};
    case wire::FRAME_TYPE_TENSOR:
    case wire::FRAME_TYPE_PROBE:
    case wire::FRAME_TYPE_PROBE_REPLY:
        if (body != Body::BODY_NOT_SET)
            return makeError(type + " frame with a handshake, error or stage body");
        return {};
    case wire::FRAME_TYPE_STAGE_REQUEST:
    case wire::FRAME_TYPE_STAGE_REPLY:
    case wire::FRAME_TYPE_STAGE_VERDICT:
    case wire::FRAME_TYPE_STAGE_REFUSED:
        if (body != Body::kStage)
            return makeError(type + " frame without a stage body");
        if (header.stage().refusal().size() > kMaxRefusalBytes)
            return makeError(type + " frame with a refusal over " + std::to_string(kMaxRefusalBytes) + " bytes");
        return {};
    default:
        return makeError("unknown frame type " + std::to_string(int(header.type())));
    }
}

// dtype size x product(shape), or an error when it exceeds `limit` (so it cannot overflow).
Result<quint64> tensorBytes(const FrameHeader &header, const FrameLimits &limits)
{
    const std::optional<DType> dtype = dtypeFromName(header.dtype());
    if (!dtype)
        return makeError("unknown dtype '" + header.dtype().substr(0, 32) + "'");
    if (header.shape_size() > limits.maxRank)
        return makeError("shape of rank " + std::to_string(header.shape_size()) + " exceeds the limit of "
                         + std::to_string(limits.maxRank));
    bool empty = false;
    for (const std::int64_t dim : header.shape()) {
        if (dim < 0)
            return makeError("negative dimension in shape " + shapeText(header));
        empty = empty || dim == 0;
    }
    if (empty)
        return quint64(0);
    quint64 bytes = dtypeSize(*dtype);
    for (const std::int64_t dim : header.shape()) {
        const quint64 d = quint64(dim);
        if (bytes > limits.maxPayloadBytes / d)
            return makeError("shape " + shapeText(header) + " of " + header.dtype() + " exceeds the payload limit of "
                             + std::to_string(limits.maxPayloadBytes) + " bytes");
        bytes *= d;
    }
    return bytes;
}

} // namespace

const char *frameTypeName(int type)
{
    switch (type) {
    case wire::FRAME_TYPE_HELLO:
        return "HELLO";
    case wire::FRAME_TYPE_HELLO_PROOF:
        return "HELLO_PROOF";
    case wire::FRAME_TYPE_TENSOR:
        return "TENSOR";
    case wire::FRAME_TYPE_ERROR:
        return "ERROR";
    case wire::FRAME_TYPE_PROBE:
        return "PROBE";
    case wire::FRAME_TYPE_PROBE_REPLY:
        return "PROBE_REPLY";
    case wire::FRAME_TYPE_STAGE_REQUEST:
        return "STAGE_REQUEST";
    case wire::FRAME_TYPE_STAGE_REPLY:
        return "STAGE_REPLY";
    case wire::FRAME_TYPE_STAGE_VERDICT:
        return "STAGE_VERDICT";
    case wire::FRAME_TYPE_STAGE_REFUSED:
        return "STAGE_REFUSED";
    default:
        return "UNKNOWN";
    }
}

Result<void> validateFrameHeader(const FrameHeader &header, const FrameLimits &limits)
{
    if (Result<void> body = validateBody(header); !body)
        return body;
    if (header.payload_bytes() > limits.maxPayloadBytes)
        return makeError("payload of " + std::to_string(header.payload_bytes()) + " bytes exceeds the limit of "
                         + std::to_string(limits.maxPayloadBytes));
    if (header.range_end() < header.range_begin())
        return makeError("range end " + std::to_string(header.range_end()) + " is before range begin "
                         + std::to_string(header.range_begin()));
    if (!std::isfinite(header.tokens()) || header.tokens() < 0)
        return makeError("tokens must be finite and non-negative");

    const bool carriesBytes = header.type() == wire::FRAME_TYPE_TENSOR || header.type() == wire::FRAME_TYPE_PROBE
                              || header.type() == wire::FRAME_TYPE_STAGE_REQUEST || header.type() == wire::FRAME_TYPE_STAGE_REPLY;
    if (!carriesBytes) {
        if (!header.dtype().empty() || header.shape_size() > 0 || header.payload_bytes() != 0)
            return makeError(std::string(frameTypeName(header.type())) + " frame with a payload");
        return {};
    }
    if (header.type() == wire::FRAME_TYPE_PROBE && header.payload_bytes() > limits.maxProbeBytes)
        return makeError("PROBE of " + std::to_string(header.payload_bytes()) + " bytes exceeds the limit of "
                         + std::to_string(limits.maxProbeBytes));
    Result<quint64> expected = tensorBytes(header, limits);
    if (!expected)
        return expected.error();
    if (*expected != header.payload_bytes())
        return makeError("payload_bytes " + std::to_string(header.payload_bytes()) + " does not match " + header.dtype()
                         + " x " + shapeText(header) + " = " + std::to_string(*expected) + " bytes");
    return {};
}

Result<QByteArray> encodeFrameHeader(FrameHeader header, quint64 payloadBytes, const FrameLimits &limits)
{
    header.set_payload_bytes(payloadBytes);
    if (Result<void> valid = validateFrameHeader(header, limits); !valid)
        return valid.error();
    const std::size_t headerBytes = header.ByteSizeLong();
    if (headerBytes == 0 || headerBytes > limits.maxHeaderBytes)
        return makeError("frame header of " + std::to_string(headerBytes) + " bytes exceeds the limit of "
                         + std::to_string(limits.maxHeaderBytes));

    QByteArray bytes(kFrameLengthPrefixBytes + qsizetype(headerBytes), Qt::Uninitialized);
    qToBigEndian(quint32(headerBytes), bytes.data());
    if (!header.SerializeToArray(bytes.data() + kFrameLengthPrefixBytes, int(headerBytes)))
        return makeError("cannot serialize frame header");
    return bytes;
}

Result<QByteArray> encodeFrame(FrameHeader header, QByteArrayView payload, const FrameLimits &limits)
{
    Result<QByteArray> bytes = encodeFrameHeader(std::move(header), quint64(payload.size()), limits);
    if (bytes)
        bytes->append(payload);
    return bytes;
}

} // namespace swarmtrain
