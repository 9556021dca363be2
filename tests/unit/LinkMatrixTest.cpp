#include "LinkMatrix.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

const QString A = QStringLiteral("a"), B = QStringLiteral("b"), C = QStringLiteral("c"), D = QStringLiteral("d");

} // namespace

TEST(LinkMatrixTest, MeasuredLinksAreUsedAndTheOtherDirectionBorrowsThem)
{
    const LinkMatrix matrix =
        LinkMatrix::build({A, B, C}, {{A, B, 20.0, 4e6, 9000}, {B, A, 30.0, 2e6, 10000}, {A, C, 100.0, 1e6, 10000}}, 10000);
    EXPECT_TRUE(matrix.at(0, 1).measured);
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).delaySeconds, 0.010) << "half the round trip";
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).bytesPerSecond, 4e6);
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).ageSeconds, 1.0);
    EXPECT_DOUBLE_EQ(matrix.at(1, 0).bytesPerSecond, 2e6);
    EXPECT_FALSE(matrix.at(2, 0).measured) << "c -> a was not measured";
    EXPECT_DOUBLE_EQ(matrix.at(2, 0).bytesPerSecond, 1e6) << "it takes a -> c's figures";
    EXPECT_DOUBLE_EQ(matrix.at(2, 0).delaySeconds, 0.050);
    EXPECT_EQ(matrix.measuredCount(), 3);
    EXPECT_EQ(matrix.estimatedCount(), 3);
}

TEST(LinkMatrixTest, PairsNeverMeasuredAreEstimatedFromTheirPeersMedians)
{
    // b and c never probed each other: delay from their median delays, rate from b's upload
    // and c's download.
    const LinkMatrix matrix = LinkMatrix::build(
        {A, B, C}, {{A, B, 20.0, 8e6, 0}, {B, A, 20.0, 2e6, 0}, {A, C, 60.0, 3e6, 0}, {C, A, 60.0, 5e6, 0}}, 0);
    const LinkEntry &bc = matrix.at(1, 2);
    EXPECT_FALSE(bc.measured);
    EXPECT_DOUBLE_EQ(bc.delaySeconds, (0.010 + 0.030) / 2);
    EXPECT_DOUBLE_EQ(bc.bytesPerSecond, std::min(2e6, 3e6)) << "b uploads 2e6 (to a), c downloads 3e6 (from a)";
    const LinkEntry &cb = matrix.at(2, 1);
    EXPECT_DOUBLE_EQ(cb.bytesPerSecond, std::min(5e6, 8e6));
}

TEST(LinkMatrixTest, OldMeasurementsAndStrangersAreLeftOut)
{
    LinkMatrixOptions options;
    options.maxAgeSeconds = 60;
    options.defaultDelaySeconds = 0.1;
    options.defaultBytesPerSecond = 1e6;
    const LinkMatrix matrix =
        LinkMatrix::build({A, B}, {{A, B, 2.0, 1e9, 0}, {A, D, 2.0, 1e9, 100'000}, {A, A, 2.0, 1e9, 100'000}}, 100'000,
                          options);
    EXPECT_EQ(matrix.measuredCount(), 0) << "a -> b is 100 s old; d is not in the matrix; a -> a is no link";
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).delaySeconds, 0.1);
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).bytesPerSecond, 1e6);
    EXPECT_FALSE(matrix.peerBandwidth(0).has_value());
}

TEST(LinkMatrixTest, APeersBandwidthIsTheMedianOfItsMeasuredUploads)
{
    const LinkMatrix matrix = LinkMatrix::build(
        {A, B, C, D},
        {{D, A, 1, 1e6, 0}, {A, D, 1, 9e6, 0}, {D, B, 1, 2e6, 0}, {D, C, 1, 3e6, 0}, {B, C, 1, 8e6, 0}}, 0);
    EXPECT_DOUBLE_EQ(*matrix.peerBandwidth(3), 2e6) << "d's uploads: 1, 2 and 3 MB/s";
    EXPECT_DOUBLE_EQ(*matrix.peerBandwidth(0), 9e6) << "a's one upload";
    EXPECT_DOUBLE_EQ(*matrix.peerBandwidth(2), 8e6) << "c uploaded nothing: what it received";
}
