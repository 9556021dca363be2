#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace swarmtrain {

// Blockwise 8-bit quantization for pseudo-gradients and activations (DESIGN.md "Compression").
// Each block of `blockSize` values carries one float32 scale (the block's absolute maximum
// / 127) and one int8 code per value, rounded to nearest, so a decoded value is within
// scale / 2 of the original.
//
// 256 values per block: the scale costs 4 / 256 = 1.6 % on top of the 8-bit codes (8.125
// bits a value, 3.94x smaller than float32), while one outlier (a spike in a pseudo-gradient
// or an activation channel) coarsens only its own 256 neighbours, not the whole tensor.
// Larger blocks save little (<1.6 %) and lose precision around outliers; smaller ones cost
// noticeably more bandwidth (6 % at 64).
inline constexpr std::uint32_t kDefaultQuantizationBlockSize = 256;
// Anything above this is a corrupt or hostile header, not a real choice.
inline constexpr std::uint32_t kMaxQuantizationBlockSize = 1u << 16;

struct Quantized {
    std::uint32_t blockSize = kDefaultQuantizationBlockSize;
    std::size_t count = 0;
    std::vector<float> scales;       // one per block, ceil(count / blockSize)
    std::vector<std::int8_t> codes;  // one per value, in [-127, 127]

    std::size_t blockCount() const { return scales.size(); }
};

// Number of blocks for `count` values; blockSize must be non-zero.
inline std::size_t quantizationBlockCount(std::size_t count, std::uint32_t blockSize)
{
    return count / blockSize + (count % blockSize != 0 ? 1 : 0);
}

// Fails on a non-finite value (NaN must never reach the wire) or a block size outside
// [1, kMaxQuantizationBlockSize]. A block whose largest magnitude is below 127 * FLT_MIN is
// sent as zeros: its scale would be subnormal and its reciprocal overflow, and values that
// small carry nothing a float32 model can use (error feedback keeps them anyway).
Result<Quantized> quantize(std::span<const float> values,
                           std::uint32_t blockSize = kDefaultQuantizationBlockSize);

// Writes code * scale for every value; `out` must hold exactly `quantized.count` values.
Result<void> dequantize(const Quantized &quantized, std::span<float> out);
std::vector<float> dequantize(const Quantized &quantized);

// Wire format, little-endian:
//   "SQ8\x01" (magic and version) | u32 blockSize | u64 count |
//   f32 scale[ceil(count / blockSize)] | i8 code[count]
std::vector<std::byte> encodeQuantized(const Quantized &quantized);
inline constexpr std::size_t kQuantizedHeaderBytes = 16;
std::size_t encodedQuantizedSize(std::size_t count, std::uint32_t blockSize = kDefaultQuantizationBlockSize);

// Strict: the bytes must hold exactly `expectedCount` values and nothing else; a bad magic,
// an absurd block size, a truncated or overlong buffer, a scale that is negative, NaN, Inf,
// subnormal or so large that code * scale would overflow, or a code of -128 (never produced)
// is an error. Whatever it accepts decodes to finite values.
Result<Quantized> decodeQuantized(std::span<const std::byte> bytes, std::size_t expectedCount);

// Error feedback for one vector: what quantization dropped in one round is added to the next
// round's values, so over many rounds the sum of what was sent tracks the sum of the inputs
// (the gap is the current residual, at most scale / 2 per value).
class ErrorFeedback {
public:
    explicit ErrorFeedback(std::size_t count, std::uint32_t blockSize = kDefaultQuantizationBlockSize);

    // Quantizes values + residual and keeps the new residual. On failure (wrong size, a
    // non-finite value or sum) the residual is left as it was.
    Result<Quantized> compress(std::span<const float> values);

    std::span<const float> residual() const { return m_residual; }
    void reset();

private:
    std::uint32_t m_blockSize;
    std::vector<float> m_residual;
    std::vector<float> m_corrected;
};

} // namespace swarmtrain
