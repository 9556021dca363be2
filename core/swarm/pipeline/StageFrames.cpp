#include "StageFrames.h"

#include "ByteOrder.h"

#include <algorithm>
#include <limits>

namespace swarmtrain {

namespace {

std::span<const std::byte> bytesOf(QByteArrayView view)
{
    return {reinterpret_cast<const std::byte *>(view.data()), std::size_t(view.size())};
}

} // namespace

FrameHeader stageHeader(wire::FrameType type, const wire::StageWork &work, qsizetype payloadBytes)
{
    FrameHeader header;
    header.set_type(type);
    *header.mutable_stage() = work;
    if (type == wire::FRAME_TYPE_STAGE_REQUEST || type == wire::FRAME_TYPE_STAGE_REPLY) {
        header.set_dtype("U8");
        header.add_shape(payloadBytes);
    }
    return header;
}

std::string microbatchKey(const QString &trainerKeyId, std::uint64_t step, std::uint64_t microbatch)
{
    return stepKeyPrefix(trainerKeyId, step) + std::to_string(microbatch);
}

std::string stepKeyPrefix(const QString &trainerKeyId, std::uint64_t step)
{
    return trainerKeyId.toStdString() + "/" + std::to_string(step) + "/";
}

std::optional<std::uint64_t> stepOfKey(const std::string &key)
{
    const std::size_t first = key.find('/'), last = key.rfind('/');
    if (first == std::string::npos || last == first)
        return std::nullopt;
    const std::string digits = key.substr(first + 1, last - first - 1);
    if (digits.empty() || digits.size() > 20 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoull(digits);
}

QByteArray encodeTargets(std::span<const std::int32_t> targets)
{
    QByteArray bytes(qsizetype(targets.size() * 4), Qt::Uninitialized);
    auto *out = reinterpret_cast<std::byte *>(bytes.data());
    for (std::size_t i = 0; i < targets.size(); ++i)
        byteorder::putU32(out + 4 * i, std::uint32_t(targets[i]));
    return bytes;
}

Result<QByteArray> encodeWire(std::span<const float> values, WirePrecision precision)
{
    Result<std::vector<std::byte>> encoded = encodeActivations(values, precision);
    if (!encoded)
        return encoded.error();
    return QByteArray(reinterpret_cast<const char *>(encoded->data()), qsizetype(encoded->size()));
}

Result<std::vector<float>> decodeWire(QByteArrayView bytes, std::size_t count, WirePrecision precision)
{
    return decodeActivations(bytesOf(bytes), count, precision);
}

Result<StageRequestPayload> decodeStageRequest(QByteArrayView payload, const wire::StageWork &work, int width,
                                               bool lastStage)
{
    if (work.precision() > std::uint32_t(WirePrecision::Int8))
        return makeError("unknown wire precision " + std::to_string(work.precision()));
    const auto precision = WirePrecision(work.precision());
    // batch, tokens and width are bounded by the caller, so this product cannot overflow.
    const std::size_t tokens = std::size_t(work.batch()) * work.tokens();
    const std::size_t count = tokens * std::size_t(width);
    const std::size_t inputBytes = encodedActivationSize(count, precision);
    // An evaluation carries the targets as the last stage's backward does.
    const bool evaluate = work.pass() == wire::StageWork::PASS_EVALUATE;
    const bool backward = work.pass() == wire::StageWork::PASS_BACKWARD || evaluate;
    std::size_t expected = inputBytes;
    if (backward)
        expected += lastStage ? 4 * tokens : encodedActivationSize(count, precision);
    if (std::size_t(payload.size()) != expected)
        return makeError("a " + std::string(backward ? "backward" : "forward") + " request of "
                         + std::to_string(work.batch()) + " x " + std::to_string(work.tokens()) + " tokens needs "
                         + std::to_string(expected) + " bytes, not " + std::to_string(payload.size()));
    StageRequestPayload decoded;
    Result<std::vector<float>> input = decodeWire(payload.first(qsizetype(inputBytes)), count, precision);
    if (!input)
        return makeError("input: " + input.error().message);
    decoded.input = std::move(*input);
    if (!backward)
        return decoded;
    const QByteArrayView rest = payload.sliced(qsizetype(inputBytes));
    if (!lastStage) {
        Result<std::vector<float>> grad = decodeWire(rest, count, precision);
        if (!grad)
            return makeError("output gradient: " + grad.error().message);
        decoded.gradOutput = std::move(*grad);
        return decoded;
    }
    decoded.targets.resize(tokens);
    const std::span<const std::byte> raw = bytesOf(rest);
    for (std::size_t i = 0; i < tokens; ++i) {
        const std::uint32_t id = byteorder::getU32(raw.data() + 4 * i);
        if (id > std::uint32_t(std::numeric_limits<std::int32_t>::max()))
            return makeError("target " + std::to_string(id) + " is not a token id");
        decoded.targets[i] = std::int32_t(id);
    }
    return decoded;
}

} // namespace swarmtrain
