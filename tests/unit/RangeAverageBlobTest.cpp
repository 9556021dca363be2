#include "RangeAverageBlob.h"

#include "Quantization.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace swarmtrain;

namespace {

RangeAverage rangeOf(std::int64_t begin, std::int64_t end)
{
    std::vector<float> values(std::size_t(end - begin));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = 0.001f * float(i % 17) - 0.008f;
    return {begin, end, encodeQuantized(quantize(values).value())};
}

std::string errorOf(const std::vector<std::byte> &blob, std::int64_t parameterCount)
{
    Result<std::vector<RangeAverage>> decoded = decodeRangeAverages(blob, parameterCount);
    return decoded ? std::string() : decoded.error().message;
}

void setU64(std::vector<std::byte> &blob, std::size_t offset, std::uint64_t value)
{
    for (int i = 0; i < 8; ++i)
        blob[offset + std::size_t(i)] = std::byte((value >> (8 * i)) & 0xff);
}

} // namespace

TEST(RangeAverageBlobTest, RangesSurviveTheirCodec)
{
    const std::vector<RangeAverage> ranges{rangeOf(0, 300), rangeOf(300, 301), rangeOf(700, 1000)};
    Result<std::vector<RangeAverage>> decoded = decodeRangeAverages(encodeRangeAverages(ranges), 1000);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    ASSERT_EQ(decoded->size(), 3u);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        EXPECT_EQ((*decoded)[i].begin, ranges[i].begin);
        EXPECT_EQ((*decoded)[i].end, ranges[i].end);
        EXPECT_EQ((*decoded)[i].payload, ranges[i].payload);
    }
    // Every range skipped: nothing at all.
    EXPECT_TRUE(decodeRangeAverages({}, 1000).value().empty());
}

TEST(RangeAverageBlobTest, AHostileBlobIsRefusedBeforeItsPayloadsAreCopied)
{
    const std::vector<std::byte> good = encodeRangeAverages(std::vector{rangeOf(0, 300), rangeOf(300, 600)});
    std::vector<std::byte> cut(good.begin(), good.end() - 1);
    EXPECT_NE(errorOf(cut, 1000).find("range 1 [300, 600)'s payload is cut short"), std::string::npos);
    cut.assign(good.begin(), good.begin() + 10);
    EXPECT_NE(errorOf(cut, 1000).find("range 0's header is cut short"), std::string::npos);

    std::vector<std::byte> huge = good;
    setU64(huge, 16, std::uint64_t(1) << 62); // a length far beyond the bytes, never allocated
    EXPECT_NE(errorOf(huge, 1000).find("not its values' encoded size"), std::string::npos);
    std::vector<std::byte> outside = good;
    setU64(outside, 8, 1001);
    EXPECT_NE(errorOf(outside, 1000).find("outside the 1000 parameters"), std::string::npos);
    std::vector<std::byte> empty = good;
    setU64(empty, 8, 0);
    EXPECT_NE(errorOf(empty, 1000).find("is empty"), std::string::npos);
    EXPECT_NE(errorOf(good, 599).find("outside the 599 parameters"), std::string::npos);
    EXPECT_NE(errorOf(good, 0).find("the model has 0 parameters"), std::string::npos);

    const std::vector<std::byte> unsorted = encodeRangeAverages(std::vector{rangeOf(300, 600), rangeOf(0, 300)});
    EXPECT_NE(errorOf(unsorted, 1000).find("out of order or overlaps"), std::string::npos);
    const std::vector<std::byte> overlapping = encodeRangeAverages(std::vector{rangeOf(0, 300), rangeOf(299, 600)});
    EXPECT_NE(errorOf(overlapping, 1000).find("out of order or overlaps"), std::string::npos);
}

TEST(RangeAverageBlobTest, ARoundHasAtMostItsBoundOfRanges)
{
    std::vector<RangeAverage> ranges;
    for (std::int64_t i = 0; i <= std::int64_t(kMaxBlobRanges); ++i)
        ranges.push_back(rangeOf(i, i + 1));
    const std::int64_t count = std::int64_t(kMaxBlobRanges) + 1;
    EXPECT_NE(errorOf(encodeRangeAverages(ranges), count).find("more than 4096 ranges"), std::string::npos);
    ranges.pop_back();
    EXPECT_EQ(errorOf(encodeRangeAverages(ranges), count), "");
}
