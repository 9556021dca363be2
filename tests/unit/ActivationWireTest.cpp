// ActivationWire: activations and their gradients between pipeline stages, and what a hostile
// sender can put in those bytes.
#include "ActivationWire.h"
#include "ByteOrder.h"

#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace swarmtrain;

namespace {

std::vector<float> activations(std::size_t count, std::uint32_t seed = 7)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 1.5f);
    std::vector<float> values(count);
    for (float &v : values)
        v = normal(random);
    return values;
}

constexpr WirePrecision kAll[] = {WirePrecision::Float32, WirePrecision::Float16, WirePrecision::Int8};

} // namespace

TEST(ActivationWireTest, EachPrecisionRoundTripsWithinItsResolution)
{
    const std::vector<float> values = activations(3000);
    const double tolerance[] = {0.0, 1e-3, 0.5 / 127}; // relative to a value, a value, a block's max
    for (WirePrecision precision : kAll) {
        const std::vector<std::byte> bytes = encodeActivations(values, precision).value();
        EXPECT_EQ(bytes.size(), encodedActivationSize(values.size(), precision));
        const std::vector<float> back = decodeActivations(bytes, values.size(), precision).value();
        ASSERT_EQ(back.size(), values.size());
        float largest = 0.0f;
        for (float v : values)
            largest = std::max(largest, std::fabs(v));
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double scale = precision == WirePrecision::Int8 ? largest : std::fabs(values[i]);
            EXPECT_LE(std::fabs(back[i] - values[i]), tolerance[int(precision)] * scale + 1e-7)
                << wirePrecisionName(precision) << " value " << i;
        }
    }
}

TEST(ActivationWireTest, EightBitIsAQuarterOfFloat32)
{
    const std::size_t count = 8 * 64 * 128; // a microbatch of 8 x 64 tokens at width 128
    const double ratio = double(encodedActivationSize(count, WirePrecision::Int8)) /
                         double(encodedActivationSize(count, WirePrecision::Float32));
    EXPECT_LE(ratio, 0.27);
    EXPECT_EQ(encodedActivationSize(count, WirePrecision::Float16), kActivationHeaderBytes + 2 * count);
}

TEST(ActivationWireTest, NothingNonFiniteOrBeyondFloat16IsSent)
{
    for (WirePrecision precision : kAll) {
        for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
            std::vector<float> values = activations(100);
            values[42] = bad;
            const auto encoded = encodeActivations(values, precision);
            ASSERT_FALSE(encoded.ok()) << wirePrecisionName(precision);
        }
    }
    std::vector<float> large = activations(10);
    large[3] = 70000.0f;
    const auto encoded = encodeActivations(large, WirePrecision::Float16);
    ASSERT_FALSE(encoded.ok());
    EXPECT_NE(encoded.error().message.find("float16"), std::string::npos) << encoded.error().message;
}

// A hostile sender: every way the bytes can lie is refused with an error, never a crash or a
// huge allocation.
TEST(ActivationWireTest, MalformedBytesAreRefused)
{
    const std::vector<float> values = activations(512);
    for (WirePrecision precision : kAll) {
        const std::vector<std::byte> good = encodeActivations(values, precision).value();
        const auto refused = [&](std::vector<std::byte> bytes, std::size_t count, WirePrecision expected) {
            return !decodeActivations(bytes, count, expected).ok();
        };
        const std::string name = wirePrecisionName(precision);
        EXPECT_TRUE(refused({}, values.size(), precision)) << name;
        EXPECT_TRUE(refused({good.begin(), good.end() - 1}, values.size(), precision)) << name << ": truncated";
        std::vector<std::byte> longer = good;
        longer.push_back(std::byte{0});
        EXPECT_TRUE(refused(longer, values.size(), precision)) << name << ": trailing bytes";
        EXPECT_TRUE(refused(good, values.size() - 1, precision)) << name << ": another shape";
        EXPECT_TRUE(refused(good, values.size() + 1, precision)) << name << ": another shape";
        for (WirePrecision other : kAll) {
            if (other != precision) {
                EXPECT_TRUE(refused(good, values.size(), other)) << name << " where the swarm sends " << wirePrecisionName(other);
            }
        }
        std::vector<std::byte> magic = good;
        magic[0] = std::byte{'X'};
        EXPECT_TRUE(refused(magic, values.size(), precision)) << name;
        std::vector<std::byte> reserved = good;
        reserved[6] = std::byte{1};
        EXPECT_TRUE(refused(reserved, values.size(), precision)) << name;
        // A count that claims the whole address space, with a matching expectation: bounded by
        // the buffer before anything is sized from it.
        std::vector<std::byte> huge = good;
        byteorder::putU64(huge.data() + 8, std::numeric_limits<std::uint64_t>::max() / 2);
        EXPECT_TRUE(refused(huge, std::numeric_limits<std::size_t>::max() / 2, precision)) << name;
        EXPECT_TRUE(decodeActivations(good, values.size(), precision).ok()) << name;
    }
}

TEST(ActivationWireTest, NonFiniteValuesInTheBytesAreRefused)
{
    const std::vector<float> values = activations(64);
    std::vector<std::byte> f32 = encodeActivations(values, WirePrecision::Float32).value();
    byteorder::putU32(f32.data() + kActivationHeaderBytes + 4 * 5, 0x7fc00000u); // NaN
    EXPECT_FALSE(decodeActivations(f32, values.size(), WirePrecision::Float32).ok());
    std::vector<std::byte> f16 = encodeActivations(values, WirePrecision::Float16).value();
    f16[kActivationHeaderBytes + 2 * 9] = std::byte{0x00};
    f16[kActivationHeaderBytes + 2 * 9 + 1] = std::byte{0x7c}; // +Inf in float16
    EXPECT_FALSE(decodeActivations(f16, values.size(), WirePrecision::Float16).ok());
    std::vector<std::byte> q8 = encodeActivations(values, WirePrecision::Int8).value();
    byteorder::putU32(q8.data() + kActivationHeaderBytes + 16, 0x7f800000u); // an Inf block scale
    EXPECT_FALSE(decodeActivations(q8, values.size(), WirePrecision::Int8).ok());
}

// The plain C++ float16 conversion against LibTorch's: every float16 value, and floats around
// every rounding boundary.
TEST(ActivationWireTest, Float16ConversionIsLibTorchs)
{
    for (std::uint32_t h = 0; h <= 0xffff; ++h) {
        c10::Half half;
        half.x = std::uint16_t(h);
        const float theirs = float(half), ours = halfBitsToFloat(std::uint16_t(h));
        if (std::isnan(theirs))
            EXPECT_TRUE(std::isnan(ours)) << h;
        else
            EXPECT_EQ(std::bit_cast<std::uint32_t>(ours), std::bit_cast<std::uint32_t>(theirs)) << h;
    }
    std::mt19937 random(3);
    std::vector<float> samples = {0.0f, -0.0f, 65504.0f, -65504.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f, 6.1e-5f};
    for (std::uint32_t h = 0; h < 0x7bff; ++h) {
        // Just below, at and just above the midpoint between two float16 values.
        const float mid = (halfBitsToFloat(std::uint16_t(h)) + halfBitsToFloat(std::uint16_t(h + 1))) / 2.0f;
        for (float f : {std::nextafter(mid, 0.0f), mid, std::nextafter(mid, 1e9f)})
            samples.insert(samples.end(), {f, -f});
    }
    std::uniform_real_distribution<float> any(-65504.0f, 65504.0f);
    for (int i = 0; i < 100000; ++i)
        samples.push_back(any(random));
    for (float f : samples)
        ASSERT_EQ(floatToHalfBits(f), c10::Half(f).x) << std::hexfloat << f;
}

TEST(ActivationWireTest, PrecisionNamesParse)
{
    for (WirePrecision precision : kAll)
        EXPECT_EQ(parseWirePrecision(wirePrecisionName(precision)).value(), precision);
    EXPECT_FALSE(parseWirePrecision("fp8").ok());
}
