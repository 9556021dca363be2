#include "Quantization.h"

#include "ByteOrder.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cstring>
#include <string>

namespace swarmtrain {

namespace {

using namespace byteorder;

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kInfinityBits = 0x7f800000u;
constexpr std::uint32_t kSmallestNormalBits = 0x00800000u; // FLT_MIN
// The largest scale whose 127 * scale is still finite: FLT_MAX / 127 rounds up, and
// 127 times that is Inf, so the encoder clamps to the float just below it.
constexpr std::uint32_t kMaxScaleBits = 0x7c010203u;
constexpr float kMaxScale = std::bit_cast<float>(kMaxScaleBits);
// Below this a block's scale would be subnormal and 127 / absmax would overflow.
constexpr float kSmallestScaledAbsMax = 127.0f * FLT_MIN;
// Adding and subtracting 1.5 * 2^23 rounds any |r| < 2^22 to the nearest integer (ties to
// even) in plain float arithmetic, which vectorizes where std::nearbyint would call libm.
constexpr float kRoundingMagic = 12582912.0f;

constexpr std::uint8_t kMagic[4] = {'S', 'Q', '8', 1};

std::uint32_t bitsOf(float value) { return std::bit_cast<std::uint32_t>(value); }

// The largest |value| of a block as IEEE bits: for non-negative floats the bit patterns
// order like the values, and NaN/Inf compare above kInfinityBits - 1, so one integer max
// (which the compiler vectorizes without any fast-math flag) finds both.
std::uint32_t maxAbsBits(const float *values, std::size_t n)
{
    std::uint32_t maxBits = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, values + i, sizeof bits);
        bits &= kAbsMask;
        maxBits = bits > maxBits ? bits : maxBits;
    }
    return maxBits;
}

std::size_t firstNonFinite(std::span<const float> values)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        if ((bitsOf(values[i]) & kAbsMask) >= kInfinityBits)
            return i;
    return values.size();
}

Error nonFiniteError(std::span<const float> values)
{
    return makeError("cannot quantize: value " + std::to_string(firstNonFinite(values)) + " of " +
                     std::to_string(values.size()) + " is not finite");
}

void quantizeBlock(const float *values, std::size_t n, float absMax, std::int8_t *codes)
{
    const float inverse = 127.0f / absMax;
    for (std::size_t i = 0; i < n; ++i) {
        const float rounded = (values[i] * inverse + kRoundingMagic) - kRoundingMagic;
        const int code = static_cast<int>(rounded);
        codes[i] = static_cast<std::int8_t>(std::clamp(code, -127, 127));
    }
}

bool validScaleBits(std::uint32_t bits)
{
    return bits == 0 || (bits >= kSmallestNormalBits && bits <= kMaxScaleBits);
}

std::string describeBadScale(float scale)
{
    const std::uint32_t bits = bitsOf(scale);
    if ((bits & kAbsMask) >= kInfinityBits)
        return "is not finite";
    if (bits & ~kAbsMask)
        return "is negative";
    if (bits < kSmallestNormalBits)
        return "is subnormal";
    return "is too large (127 * scale overflows)";
}

} // namespace

Result<Quantized> quantize(std::span<const float> values, std::uint32_t blockSize)
{
    if (blockSize == 0 || blockSize > kMaxQuantizationBlockSize)
        return makeError("quantization block size " + std::to_string(blockSize) + " is outside [1, " +
                         std::to_string(kMaxQuantizationBlockSize) + "]");
    Quantized out;
    out.blockSize = blockSize;
    out.count = values.size();
    out.scales.resize(quantizationBlockCount(values.size(), blockSize));
    out.codes.resize(values.size());
    for (std::size_t block = 0; block < out.scales.size(); ++block) {
        const std::size_t begin = block * blockSize;
        const std::size_t n = std::min<std::size_t>(blockSize, values.size() - begin);
        const std::uint32_t maxBits = maxAbsBits(values.data() + begin, n);
        if (maxBits >= kInfinityBits)
            return nonFiniteError(values);
        const float absMax = std::bit_cast<float>(maxBits);
        if (absMax < kSmallestScaledAbsMax) {
            out.scales[block] = 0.0f;
            std::fill_n(out.codes.data() + begin, n, std::int8_t{0});
            continue;
        }
        out.scales[block] = std::min(absMax / 127.0f, kMaxScale);
        quantizeBlock(values.data() + begin, n, absMax, out.codes.data() + begin);
    }
    return out;
}

Result<void> dequantize(const Quantized &quantized, std::span<float> out)
{
    if (out.size() != quantized.count || quantized.codes.size() != quantized.count || quantized.blockSize == 0 ||
        quantized.scales.size() != quantizationBlockCount(quantized.count, quantized.blockSize))
        return makeError("cannot dequantize " + std::to_string(quantized.count) + " values into " +
                         std::to_string(out.size()) + " (or the quantized data is inconsistent)");
    const std::int8_t *codes = quantized.codes.data();
    for (std::size_t block = 0; block < quantized.scales.size(); ++block) {
        const std::size_t begin = block * quantized.blockSize;
        const std::size_t n = std::min<std::size_t>(quantized.blockSize, quantized.count - begin);
        const float scale = quantized.scales[block];
        float *dst = out.data() + begin;
        for (std::size_t i = 0; i < n; ++i)
            dst[i] = static_cast<float>(codes[begin + i]) * scale;
    }
    return {};
}

std::vector<float> dequantize(const Quantized &quantized)
{
    std::vector<float> out(quantized.count);
    if (!dequantize(quantized, out).ok())
        out.clear();
    return out;
}

std::size_t encodedQuantizedSize(std::size_t count, std::uint32_t blockSize)
{
    return kQuantizedHeaderBytes + 4 * quantizationBlockCount(count, blockSize) + count;
}

std::vector<std::byte> encodeQuantized(const Quantized &quantized)
{
    std::vector<std::byte> out(kQuantizedHeaderBytes + quantized.scales.size() * 4 + quantized.codes.size());
    std::memcpy(out.data(), kMagic, 4);
    putU32(out.data() + 4, quantized.blockSize);
    putU64(out.data() + 8, quantized.count);
    putFloats(out.data() + kQuantizedHeaderBytes, quantized.scales);
    std::memcpy(out.data() + kQuantizedHeaderBytes + quantized.scales.size() * 4, quantized.codes.data(),
                quantized.codes.size());
    return out;
}

Result<Quantized> decodeQuantized(std::span<const std::byte> bytes, std::size_t expectedCount)
{
    if (bytes.size() < kQuantizedHeaderBytes)
        return makeError("quantized data is truncated: " + std::to_string(bytes.size()) + " bytes, the header alone is " +
                         std::to_string(kQuantizedHeaderBytes));
    if (std::memcmp(bytes.data(), kMagic, 4) != 0)
        return makeError("quantized data has a bad magic or an unknown version");
    Quantized out;
    out.blockSize = getU32(bytes.data() + 4);
    const std::uint64_t count = getU64(bytes.data() + 8);
    if (out.blockSize == 0 || out.blockSize > kMaxQuantizationBlockSize)
        return makeError("quantized data has an absurd block size " + std::to_string(out.blockSize));
    if (count != expectedCount)
        return makeError("quantized data holds " + std::to_string(count) + " values, expected " +
                         std::to_string(expectedCount));
    // count == expectedCount fits size_t; bounding it by the buffer keeps the size sum exact.
    const std::size_t payload = bytes.size() - kQuantizedHeaderBytes;
    const std::size_t blocks = quantizationBlockCount(expectedCount, out.blockSize);
    if (expectedCount > payload || blocks > payload / 4 || payload != blocks * 4 + expectedCount)
        return makeError("quantized data is " + std::to_string(bytes.size()) + " bytes, expected " +
                         std::to_string(encodedQuantizedSize(std::min(expectedCount, payload), out.blockSize)) +
                         " for " + std::to_string(expectedCount) + " values");
    out.count = expectedCount;
    out.scales.resize(blocks);
    getFloats(bytes.data() + kQuantizedHeaderBytes, out.scales);
    for (std::size_t block = 0; block < blocks; ++block)
        if (!validScaleBits(bitsOf(out.scales[block])))
            return makeError("quantized data: scale of block " + std::to_string(block) + " " +
                             describeBadScale(out.scales[block]));
    out.codes.resize(expectedCount);
    std::memcpy(out.codes.data(), bytes.data() + kQuantizedHeaderBytes + blocks * 4, expectedCount);
    std::int8_t minCode = 0;
    for (const std::int8_t code : out.codes)
        minCode = std::min(minCode, code);
    if (minCode == -128)
        return makeError("quantized data holds the code -128, which no encoder produces");
    return out;
}

ErrorFeedback::ErrorFeedback(std::size_t count, std::uint32_t blockSize)
    : m_blockSize(blockSize), m_residual(count, 0.0f), m_corrected(count, 0.0f)
{
}

Result<Quantized> ErrorFeedback::compress(std::span<const float> values)
{
    if (values.size() != m_residual.size())
        return makeError("error feedback holds " + std::to_string(m_residual.size()) + " values, got " +
                         std::to_string(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        m_corrected[i] = values[i] + m_residual[i];
    Result<Quantized> quantized = quantize(m_corrected, m_blockSize);
    if (!quantized.ok())
        return quantized;
    const Quantized &q = *quantized;
    for (std::size_t block = 0; block < q.scales.size(); ++block) {
        const std::size_t begin = block * q.blockSize;
        const std::size_t n = std::min<std::size_t>(q.blockSize, q.count - begin);
        const float scale = q.scales[block];
        for (std::size_t i = begin; i < begin + n; ++i)
            m_residual[i] = m_corrected[i] - static_cast<float>(q.codes[i]) * scale;
    }
    return quantized;
}

void ErrorFeedback::reset() { std::fill(m_residual.begin(), m_residual.end(), 0.0f); }

} // namespace swarmtrain
