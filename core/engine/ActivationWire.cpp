#include "ActivationWire.h"

#include "ByteOrder.h"
#include "Quantization.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace swarmtrain {

namespace {

using namespace byteorder;

constexpr std::uint8_t kMagic[4] = {'S', 'A', 'W', 1};
constexpr float kFloat16Max = 65504.0f;

std::size_t payloadBytes(std::size_t count, WirePrecision precision)
{
    switch (precision) {
    case WirePrecision::Float32:
        return count * 4;
    case WirePrecision::Float16:
        return count * 2;
    case WirePrecision::Int8:
        return encodedQuantizedSize(count);
    }
    return 0;
}

Error notFinite(std::size_t index, std::size_t count)
{
    return makeError("activation " + std::to_string(index) + " of " + std::to_string(count) + " is not finite");
}

} // namespace

std::uint16_t floatToHalfBits(float value)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const auto sign = std::uint16_t((bits >> 16) & 0x8000u);
    std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude < 0x38800000u) {
        // Below float16's smallest normal (2^-14): adding 0.5, whose float ulp is 2^-24 (the
        // float16 subnormal step), rounds to that step, ties to even; the excess is the code.
        const float rounded = std::bit_cast<float>(magnitude) + 0.5f;
        return std::uint16_t(sign | (std::bit_cast<std::uint32_t>(rounded) - 0x3f000000u));
    }
    // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even;
    // a carry into the exponent is the correct rounding up.
    magnitude += 0xc8000fffu + ((magnitude >> 13) & 1u);
    return std::uint16_t(sign | (magnitude >> 13));
}

float halfBitsToFloat(std::uint16_t half)
{
    const std::uint32_t sign = std::uint32_t(half & 0x8000u) << 16;
    const std::uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
    if (exponent == 0x1f) // infinity or NaN
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) { // zero or subnormal: mantissa x 2^-24, exact in float
        const float magnitude = float(mantissa) * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::string wirePrecisionName(WirePrecision precision)
{
    switch (precision) {
    case WirePrecision::Float32:
        return "fp32";
    case WirePrecision::Float16:
        return "fp16";
    case WirePrecision::Int8:
        return "int8";
    }
    return "unknown";
}

Result<WirePrecision> parseWirePrecision(const std::string &name)
{
    for (WirePrecision p : {WirePrecision::Float32, WirePrecision::Float16, WirePrecision::Int8})
        if (wirePrecisionName(p) == name)
            return p;
    return makeError("unknown wire precision \"" + name + "\" (fp32, fp16 or int8)");
}

std::size_t encodedActivationSize(std::size_t count, WirePrecision precision)
{
    return kActivationHeaderBytes + payloadBytes(count, precision);
}

Result<std::vector<std::byte>> encodeActivations(std::span<const float> values, WirePrecision precision)
{
    std::vector<std::byte> out(kActivationHeaderBytes);
    std::memcpy(out.data(), kMagic, 4);
    out[4] = std::byte(precision);
    putU64(out.data() + 8, values.size());
    switch (precision) {
    case WirePrecision::Float32:
        for (std::size_t i = 0; i < values.size(); ++i)
            if (!std::isfinite(values[i]))
                return notFinite(i, values.size());
        out.resize(kActivationHeaderBytes + values.size_bytes());
        putFloats(out.data() + kActivationHeaderBytes, values);
        break;
    case WirePrecision::Float16:
        out.resize(kActivationHeaderBytes + 2 * values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (!std::isfinite(values[i]))
                return notFinite(i, values.size());
            if (std::fabs(values[i]) > kFloat16Max)
                return makeError("activation " + std::to_string(i) + " (" + std::to_string(values[i]) +
                                 ") is beyond float16's range");
            const std::uint16_t bits = floatToHalfBits(values[i]);
            out[kActivationHeaderBytes + 2 * i] = std::byte(bits & 0xffu);
            out[kActivationHeaderBytes + 2 * i + 1] = std::byte(bits >> 8);
        }
        break;
    case WirePrecision::Int8: {
        Result<Quantized> quantized = quantize(values);
        if (!quantized)
            return quantized.error();
        const std::vector<std::byte> block = encodeQuantized(*quantized);
        out.insert(out.end(), block.begin(), block.end());
        break;
    }
    default:
        return makeError("unknown wire precision");
    }
    return out;
}

Result<std::vector<float>> decodeActivations(std::span<const std::byte> bytes, std::size_t expectedCount,
                                             WirePrecision expected)
{
    if (bytes.size() < kActivationHeaderBytes)
        return makeError("activations are truncated: " + std::to_string(bytes.size()) + " bytes");
    if (std::memcmp(bytes.data(), kMagic, 4) != 0)
        return makeError("activations have a bad magic or an unknown version");
    const auto precision = WirePrecision(std::uint8_t(bytes[4]));
    if (precision != expected)
        return makeError("activations are " + wirePrecisionName(precision) + ", the swarm sends " +
                         wirePrecisionName(expected));
    if (bytes[5] != std::byte{0} || bytes[6] != std::byte{0} || bytes[7] != std::byte{0})
        return makeError("activations have a malformed header");
    const std::uint64_t count = getU64(bytes.data() + 8);
    if (count != expectedCount)
        return makeError("activations hold " + std::to_string(count) + " values, expected " + std::to_string(expectedCount));
    // Bound the count by the buffer first, so the expected size cannot overflow.
    const std::size_t payload = bytes.size() - kActivationHeaderBytes;
    if (expectedCount > payload || payload != payloadBytes(expectedCount, precision))
        return makeError("activations are " + std::to_string(bytes.size()) + " bytes, expected " +
                         std::to_string(encodedActivationSize(std::min(expectedCount, payload), precision)));
    const std::byte *in = bytes.data() + kActivationHeaderBytes;
    std::vector<float> out(expectedCount);
    switch (precision) {
    case WirePrecision::Float32:
        getFloats(in, out);
        break;
    case WirePrecision::Float16:
        for (std::size_t i = 0; i < expectedCount; ++i)
            out[i] = halfBitsToFloat(std::uint16_t(std::uint16_t(in[2 * i]) | std::uint16_t(in[2 * i + 1]) << 8));
        break;
    case WirePrecision::Int8: {
        Result<Quantized> quantized = decodeQuantized(bytes.subspan(kActivationHeaderBytes), expectedCount);
        if (!quantized)
            return makeError("activations: " + quantized.error().message);
        return dequantize(*quantized); // decodeQuantized accepts only what decodes finite
    }
    }
    for (std::size_t i = 0; i < expectedCount; ++i)
        if (!std::isfinite(out[i]))
            return notFinite(i, expectedCount);
    return out;
}

} // namespace swarmtrain
