#include "Quantization.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace swarmtrain;

namespace {

std::vector<float> randomValues(std::size_t n, float spread, unsigned seed = 3)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, spread);
    std::vector<float> values(n);
    for (float &v : values)
        v = normal(rng);
    return values;
}

// Every decoded value within half a step of the original (plus float rounding of the
// scale and of code * scale, a few ulps of the block's largest value).
void expectWithinHalfStep(std::span<const float> original, const Quantized &q)
{
    const std::vector<float> decoded = dequantize(q);
    ASSERT_EQ(decoded.size(), original.size());
    for (std::size_t i = 0; i < original.size(); ++i) {
        const float scale = q.scales[i / q.blockSize];
        EXPECT_LE(std::fabs(decoded[i] - original[i]), scale * 0.5f + scale * 127.0f * 4e-7f)
            << "value " << i << " " << original[i] << " decoded " << decoded[i];
    }
}

std::vector<std::byte> encodedSample(std::size_t n = 300, std::uint32_t blockSize = 128)
{
    const Result<Quantized> q = quantize(randomValues(n, 1.0f), blockSize);
    EXPECT_TRUE(q.ok());
    return encodeQuantized(*q);
}

void putFloatAt(std::vector<std::byte> &bytes, std::size_t offset, float value)
{
    std::memcpy(bytes.data() + offset, &value, 4);
}

} // namespace

TEST(QuantizationTest, RoundTripErrorIsAtMostHalfAStep)
{
    const std::vector<float> values = randomValues(10000, 0.02f);
    const Result<Quantized> q = quantize(values);
    ASSERT_TRUE(q.ok()) << q.error().message;
    EXPECT_EQ(q->blockSize, kDefaultQuantizationBlockSize);
    EXPECT_EQ(q->count, values.size());
    EXPECT_EQ(q->blockCount(), (10000u + 255u) / 256u);
    for (std::size_t b = 0; b < q->blockCount(); ++b) {
        float absMax = 0.0f;
        for (std::size_t i = b * 256; i < std::min<std::size_t>(values.size(), (b + 1) * 256); ++i)
            absMax = std::max(absMax, std::fabs(values[i]));
        EXPECT_FLOAT_EQ(q->scales[b], absMax / 127.0f);
    }
    expectWithinHalfStep(values, *q);
}

TEST(QuantizationTest, RoundsToNearestAndKeepsTheBlockMaximumExactly)
{
    // scale = 127 / 127 = 1: codes are the values rounded, the extremes map to +-127.
    const std::vector<float> values = {127.0f, -127.0f, 0.4f, 0.6f, -2.4f, -2.6f, 10.49f, 0.0f};
    const Result<Quantized> q = quantize(values, 8);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->scales[0], 1.0f);
    EXPECT_EQ(q->codes, (std::vector<std::int8_t>{127, -127, 0, 1, -2, -3, 10, 0}));
    const std::vector<float> decoded = dequantize(*q);
    EXPECT_EQ(decoded[0], 127.0f);
    EXPECT_EQ(decoded[1], -127.0f);
}

TEST(QuantizationTest, ZeroBlockHasZeroScaleAndDecodesToZeros)
{
    std::vector<float> values(512, 0.0f);
    values[300] = 3.0f; // second block only
    const Result<Quantized> q = quantize(values, 256);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->scales[0], 0.0f);
    EXPECT_EQ(q->scales[1], 3.0f / 127.0f);
    const std::vector<float> decoded = dequantize(*q);
    for (std::size_t i = 0; i < 256; ++i)
        EXPECT_EQ(decoded[i], 0.0f);
    EXPECT_FLOAT_EQ(decoded[300], 3.0f);
}

TEST(QuantizationTest, OneHugeValueCoarsensOnlyItsOwnBlock)
{
    std::vector<float> values = randomValues(512, 0.01f);
    values[10] = 1e6f;
    const Result<Quantized> q = quantize(values, 256);
    ASSERT_TRUE(q.ok());
    EXPECT_FLOAT_EQ(q->scales[0], 1e6f / 127.0f);
    const std::vector<float> decoded = dequantize(*q);
    EXPECT_FLOAT_EQ(decoded[10], 1e6f);
    // The huge block's small values all round to zero, the next block keeps full precision.
    EXPECT_EQ(decoded[11], 0.0f);
    EXPECT_LT(q->scales[1], 0.01f);
    expectWithinHalfStep(values, *q);
}

TEST(QuantizationTest, ExtremeMagnitudesStayFinite)
{
    const std::vector<float> values = {FLT_MAX, -FLT_MAX, 1.0f, 1e-30f};
    const Result<Quantized> q = quantize(values, 4);
    ASSERT_TRUE(q.ok());
    const std::vector<float> decoded = dequantize(*q);
    EXPECT_TRUE(std::isfinite(decoded[0]));
    EXPECT_NEAR(decoded[0] / FLT_MAX, 1.0f, 1e-6f);
    EXPECT_NEAR(decoded[1] / FLT_MAX, -1.0f, 1e-6f);
    // And the wire accepts what the encoder made.
    EXPECT_TRUE(decodeQuantized(encodeQuantized(*q), 4).ok());
}

TEST(QuantizationTest, SubnormalBlockIsSentAsZeros)
{
    const std::vector<float> values = {1e-37f, -1e-38f, 1e-45f};
    const Result<Quantized> q = quantize(values, 4);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q->scales[0], 0.0f);
    EXPECT_EQ(q->codes, (std::vector<std::int8_t>{0, 0, 0}));
}

TEST(QuantizationTest, LastPartialBlockIsHandled)
{
    const std::vector<float> values = randomValues(1000, 2.0f);
    const Result<Quantized> q = quantize(values, 256);
    ASSERT_TRUE(q.ok());
    ASSERT_EQ(q->blockCount(), 4u);
    float tailMax = 0.0f;
    for (std::size_t i = 768; i < 1000; ++i)
        tailMax = std::max(tailMax, std::fabs(values[i]));
    EXPECT_EQ(q->scales[3], tailMax / 127.0f);
    expectWithinHalfStep(values, *q);

    const std::vector<std::byte> wire = encodeQuantized(*q);
    EXPECT_EQ(wire.size(), encodedQuantizedSize(1000, 256));
    EXPECT_EQ(wire.size(), 16u + 4u * 4u + 1000u);
    const Result<Quantized> back = decodeQuantized(wire, 1000);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->scales, q->scales);
    EXPECT_EQ(back->codes, q->codes);
}

TEST(QuantizationTest, EmptyVectorRoundTrips)
{
    const Result<Quantized> q = quantize({});
    ASSERT_TRUE(q.ok());
    const std::vector<std::byte> wire = encodeQuantized(*q);
    EXPECT_EQ(wire.size(), kQuantizedHeaderBytes);
    const Result<Quantized> back = decodeQuantized(wire, 0);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->count, 0u);
}

TEST(QuantizationTest, WireFormatIsLittleEndianWithHeader)
{
    const std::vector<float> values = {2.0f, -1.0f, 0.5f};
    const Result<Quantized> q = quantize(values, 2);
    ASSERT_TRUE(q.ok());
    const std::vector<std::byte> wire = encodeQuantized(*q);
    ASSERT_EQ(wire.size(), 16u + 8u + 3u);
    EXPECT_EQ(std::to_integer<char>(wire[0]), 'S');
    EXPECT_EQ(std::to_integer<char>(wire[1]), 'Q');
    EXPECT_EQ(std::to_integer<char>(wire[2]), '8');
    EXPECT_EQ(std::to_integer<int>(wire[3]), 1);
    EXPECT_EQ(std::to_integer<int>(wire[4]), 2); // block size, low byte first
    EXPECT_EQ(std::to_integer<int>(wire[5]), 0);
    EXPECT_EQ(std::to_integer<int>(wire[8]), 3); // count
    // First scale 2/127 as little-endian float bits, then codes 127, -64, 127.
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(2.0f / 127.0f);
    EXPECT_EQ(std::to_integer<std::uint32_t>(wire[16]), bits & 0xffu);
    EXPECT_EQ(std::to_integer<std::uint32_t>(wire[19]), bits >> 24);
    EXPECT_EQ(std::to_integer<std::int8_t>(wire[24]), 127);
    EXPECT_EQ(std::to_integer<std::int8_t>(wire[25]), -64);
    EXPECT_EQ(std::to_integer<std::int8_t>(wire[26]), 127);
}

TEST(QuantizationTest, RejectsNonFiniteInput)
{
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()}) {
        std::vector<float> values(600, 0.5f);
        values[517] = bad;
        const Result<Quantized> q = quantize(values);
        ASSERT_FALSE(q.ok());
        EXPECT_NE(q.error().message.find("value 517"), std::string::npos) << q.error().message;
    }
}

TEST(QuantizationTest, RejectsAbsurdBlockSizeWhenEncoding)
{
    const std::vector<float> values(10, 1.0f);
    EXPECT_FALSE(quantize(values, 0).ok());
    EXPECT_FALSE(quantize(values, kMaxQuantizationBlockSize + 1).ok());
    EXPECT_TRUE(quantize(values, kMaxQuantizationBlockSize).ok());
}

TEST(QuantizationTest, DequantizeRejectsWrongOutputSize)
{
    const Result<Quantized> q = quantize(std::vector<float>(10, 1.0f));
    ASSERT_TRUE(q.ok());
    std::vector<float> out(9);
    EXPECT_FALSE(dequantize(*q, out).ok());
}

TEST(QuantizationTest, DecoderRejectsTruncatedData)
{
    const std::vector<std::byte> wire = encodedSample();
    for (const std::size_t size : {std::size_t{0}, std::size_t{7}, std::size_t{15}, std::size_t{16}, std::size_t{20},
                                   wire.size() - 1}) {
        const Result<Quantized> q = decodeQuantized(std::span(wire).first(size), 300);
        ASSERT_FALSE(q.ok()) << size;
        EXPECT_NE(q.error().message.find("quantized data"), std::string::npos);
    }
}

TEST(QuantizationTest, DecoderRejectsTrailingBytes)
{
    std::vector<std::byte> wire = encodedSample();
    wire.push_back(std::byte{0});
    EXPECT_FALSE(decodeQuantized(wire, 300).ok());
}

TEST(QuantizationTest, DecoderRejectsWrongCount)
{
    const std::vector<std::byte> wire = encodedSample();
    const Result<Quantized> q = decodeQuantized(wire, 299);
    ASSERT_FALSE(q.ok());
    EXPECT_NE(q.error().message.find("expected 299"), std::string::npos) << q.error().message;
    // A header claiming a huge count must not make the decoder allocate or overflow.
    std::vector<std::byte> forged = wire;
    for (int i = 8; i < 16; ++i)
        forged[i] = std::byte{0xff};
    EXPECT_FALSE(decodeQuantized(forged, 300).ok());
    EXPECT_FALSE(decodeQuantized(forged, std::numeric_limits<std::size_t>::max()).ok());
}

TEST(QuantizationTest, DecoderRejectsBadMagic)
{
    std::vector<std::byte> wire = encodedSample();
    wire[3] = std::byte{2}; // a future version
    EXPECT_FALSE(decodeQuantized(wire, 300).ok());
}

TEST(QuantizationTest, DecoderRejectsAbsurdBlockSizes)
{
    for (const std::uint32_t blockSize : {0u, kMaxQuantizationBlockSize + 1, 0xffffffffu}) {
        std::vector<std::byte> wire = encodedSample();
        for (int i = 0; i < 4; ++i)
            wire[4 + i] = std::byte((blockSize >> (8 * i)) & 0xff);
        const Result<Quantized> q = decodeQuantized(wire, 300);
        ASSERT_FALSE(q.ok()) << blockSize;
        EXPECT_NE(q.error().message.find("block size"), std::string::npos) << q.error().message;
    }
}

TEST(QuantizationTest, DecoderRejectsBlockSizeInconsistentWithLength)
{
    std::vector<std::byte> wire = encodedSample(300, 128); // 3 blocks
    wire[4] = std::byte{64};                               // claims 5 blocks
    wire[5] = std::byte{0};
    EXPECT_FALSE(decodeQuantized(wire, 300).ok());
}

TEST(QuantizationTest, DecoderRejectsBadScales)
{
    const float bad[] = {-1.0f,
                         -0.0f,
                         std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         1e-40f, // subnormal
                         FLT_MAX};
    const char *reasons[] = {"negative", "negative", "not finite", "not finite", "not finite", "subnormal", "too large"};
    for (std::size_t k = 0; k < std::size(bad); ++k) {
        std::vector<std::byte> wire = encodedSample();
        putFloatAt(wire, 16 + 4 * 2, bad[k]); // third block's scale
        const Result<Quantized> q = decodeQuantized(wire, 300);
        ASSERT_FALSE(q.ok()) << bad[k];
        EXPECT_NE(q.error().message.find("block 2"), std::string::npos) << q.error().message;
        EXPECT_NE(q.error().message.find(reasons[k]), std::string::npos) << q.error().message;
    }
}

TEST(QuantizationTest, LargestAcceptedScaleDecodesFinite)
{
    std::vector<std::byte> wire = encodedSample(300, 128);
    const std::size_t codesAt = 16 + 3 * 4;
    wire[codesAt] = std::byte{127};
    // Find the largest scale the decoder takes by stepping down from FLT_MAX / 127.
    float scale = FLT_MAX / 127.0f;
    putFloatAt(wire, 16, scale);
    while (!decodeQuantized(wire, 300).ok()) {
        scale = std::nextafter(scale, 0.0f);
        putFloatAt(wire, 16, scale);
    }
    const Result<Quantized> q = decodeQuantized(wire, 300);
    const std::vector<float> decoded = dequantize(*q);
    EXPECT_TRUE(std::isfinite(decoded[0]));
    EXPECT_FLOAT_EQ(decoded[0], 127.0f * scale);
}

TEST(QuantizationTest, DecoderRejectsCodeMinus128)
{
    std::vector<std::byte> wire = encodedSample(300, 128);
    wire[16 + 3 * 4 + 299] = std::byte{0x80};
    const Result<Quantized> q = decodeQuantized(wire, 300);
    ASSERT_FALSE(q.ok());
    EXPECT_NE(q.error().message.find("-128"), std::string::npos);
}

TEST(QuantizationTest, ErrorFeedbackSumOfSentTracksSumOfInputs)
{
    // One large value per block and many small ones: without feedback the small ones round to
    // zero every round and are never sent.
    const std::size_t n = 512;
    std::vector<float> input(n);
    for (std::size_t i = 0; i < n; ++i)
        input[i] = (i % 256 == 0) ? 1.0f : 0.001f * float(1 + i % 7);
    ErrorFeedback feedback(n, 256);
    std::vector<double> sentSum(n, 0.0), inputSum(n, 0.0), plainSum(n, 0.0);
    const int rounds = 200;
    for (int round = 0; round < rounds; ++round) {
        const Result<Quantized> q = feedback.compress(input);
        ASSERT_TRUE(q.ok()) << q.error().message;
        const std::vector<float> sent = dequantize(*q);
        const std::vector<float> plain = dequantize(*quantize(input, 256));
        for (std::size_t i = 0; i < n; ++i) {
            sentSum[i] += sent[i];
            inputSum[i] += input[i];
            plainSum[i] += plain[i];
        }
    }
    const double step = 1.0 / 127.0; // every block's scale
    for (std::size_t i = 0; i < n; ++i) {
        // The gap is the current residual: bounded, while the plain gap grows with rounds.
        EXPECT_LE(std::fabs(sentSum[i] - inputSum[i]), step * 0.5 + 1e-4) << i;
        EXPECT_NEAR(sentSum[i] - inputSum[i], -double(feedback.residual()[i]), 1e-4) << i;
    }
    EXPECT_NEAR(plainSum[1], 0.0, 1e-12);
    EXPECT_NEAR(inputSum[1], rounds * 0.002, 1e-6);
    EXPECT_NEAR(sentSum[1], rounds * 0.002, step);
}

TEST(QuantizationTest, ErrorFeedbackKeepsResidualOnFailure)
{
    ErrorFeedback feedback(4, 4);
    ASSERT_TRUE(feedback.compress(std::vector<float>{1.0f, 0.003f, 0.002f, -0.5f}).ok());
    const std::vector<float> before(feedback.residual().begin(), feedback.residual().end());
    EXPECT_NE(before[1], 0.0f);
    EXPECT_FALSE(feedback.compress(std::vector<float>{1.0f, std::nanf(""), 0.0f, 0.0f}).ok());
    EXPECT_FALSE(feedback.compress(std::vector<float>{1.0f, 2.0f}).ok());
    EXPECT_EQ(std::vector<float>(feedback.residual().begin(), feedback.residual().end()), before);
    feedback.reset();
    for (const float r : feedback.residual())
        EXPECT_EQ(r, 0.0f);
}
