#pragma once

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace swarmtrain {

// How activations and their gradients travel between pipeline stages (issue 17): 8-bit
// blockwise by default (Quantization.h: 1.016 bytes a value, 0.254x float32), float16 or
// float32 when asked.
enum class WirePrecision : std::uint8_t { Float32 = 0, Float16 = 1, Int8 = 2 };

std::string wirePrecisionName(WirePrecision precision);
Result<WirePrecision> parseWirePrecision(const std::string &name);

// Wire format, little-endian:
//   "SAW\x01" (magic and version) | u8 precision | 3 zero bytes | u64 count |
//   float32[count] | float16[count] | an encodeQuantized() block (Quantization.h)
inline constexpr std::size_t kActivationHeaderBytes = 16;
std::size_t encodedActivationSize(std::size_t count, WirePrecision precision);

// Fails on a value that is not finite, or that float16 cannot hold (|x| > 65504): a NaN never
// reaches the wire, and an overflow is the sender's error, not the receiver's surprise.
Result<std::vector<std::byte>> encodeActivations(std::span<const float> values, WirePrecision precision);

// Strict, for bytes from a stranger: the count is what the receiver expects from the frame's
// shape, the precision one the swarm allows (`expected`), the length exact, and every decoded
// value finite. Anything else is an error, and nothing is allocated before the length is checked.
Result<std::vector<float>> decodeActivations(std::span<const std::byte> bytes, std::size_t expectedCount,
                                             WirePrecision expected);

// IEEE float16 bits, rounded to nearest even, for a finite |value| <= 65504; and back (any bits,
// infinities and NaN included). Plain C++, so the decoder builds without LibTorch for fuzzing.
std::uint16_t floatToHalfBits(float value);
float halfBitsToFloat(std::uint16_t bits);

} // namespace swarmtrain
