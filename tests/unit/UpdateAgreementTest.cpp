#include "UpdateAgreement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace swarmtrain;

TEST(UpdateAgreementTest, AnUpdateAgreesWithItself)
{
    const std::vector<float> u = {0.5f, -1.0f, 2.0f, 0.0f};
    const Result<UpdateComparison> c = compareUpdates(u, u);
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_NEAR(c->cosine, 1.0, 1e-12);
    EXPECT_NEAR(c->relativeNorm, 1.0, 1e-12);
    EXPECT_TRUE(agrees(*c, AgreementTolerance{}));
}

TEST(UpdateAgreementTest, CosineAndRelativeNormAreThoseOfTheVectors)
{
    // claimed = (3, 0), recomputed = (1, 1): cos 45 degrees, |claimed| / |recomputed| = 3 / sqrt(2).
    const std::vector<float> claimed = {3.0f, 0.0f}, recomputed = {1.0f, 1.0f};
    const Result<UpdateComparison> c = compareUpdates(claimed, recomputed);
    ASSERT_TRUE(c.ok());
    EXPECT_NEAR(c->cosine, std::sqrt(0.5), 1e-12);
    EXPECT_NEAR(c->relativeNorm, 3.0 / std::sqrt(2.0), 1e-12);

    const std::vector<float> opposite = {-1.0f, -1.0f};
    EXPECT_NEAR(compareUpdates(opposite, recomputed)->cosine, -1.0, 1e-12);
}

TEST(UpdateAgreementTest, AccumulatesInDouble)
{
    // In float, 1000 squares of 1 added to 4096^2 = 2^24 would each round away.
    std::vector<float> claimed(1001, 1.0f), recomputed(1001, 1.0f);
    claimed[0] = 4096.0f;
    recomputed[0] = 0.0f;
    const Result<UpdateComparison> c = compareUpdates(claimed, recomputed);
    ASSERT_TRUE(c.ok());
    EXPECT_NEAR(c->relativeNorm, std::sqrt((16777216.0 + 1000.0) / 1000.0), 1e-9);
    EXPECT_NEAR(c->cosine, 1000.0 / std::sqrt((16777216.0 + 1000.0) * 1000.0), 1e-12);
}

TEST(UpdateAgreementTest, AnAllZeroClaimComparesAsNothing)
{
    const std::vector<float> zeros(3, 0.0f), recomputed = {1.0f, 2.0f, 3.0f};
    const Result<UpdateComparison> c = compareUpdates(zeros, recomputed);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->cosine, 0.0);
    EXPECT_EQ(c->relativeNorm, 0.0);
    EXPECT_FALSE(agrees(*c, AgreementTolerance{}));
}

TEST(UpdateAgreementTest, MismatchedSizesNonFiniteValuesAndAZeroRecomputationAreErrors)
{
    const std::vector<float> u = {1.0f, 2.0f, 3.0f};
    EXPECT_FALSE(compareUpdates(u, std::vector<float>{1.0f, 2.0f}).ok());
    EXPECT_FALSE(compareUpdates(u, std::vector<float>(3, 0.0f)).ok());
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        std::vector<float> v = u;
        v[1] = bad;
        EXPECT_FALSE(compareUpdates(v, u).ok());
        EXPECT_FALSE(compareUpdates(u, v).ok());
    }
}

TEST(UpdateAgreementTest, ToleranceBoundsCosineAndBothSidesOfTheNorm)
{
    const AgreementTolerance t{0.9, 0.8, 1.25};
    EXPECT_TRUE(agrees({0.95, 1.0}, t));
    EXPECT_TRUE(agrees({0.9, 0.8}, t)); // the bounds are inclusive
    EXPECT_TRUE(agrees({0.9, 1.25}, t));
    EXPECT_FALSE(agrees({0.89, 1.0}, t));
    EXPECT_FALSE(agrees({0.99, 0.79}, t)); // a scaled-down claim
    EXPECT_FALSE(agrees({0.99, 1.26}, t)); // a scaled-up one
}

// What the defaults must tell apart (figures in UpdateAgreement.h): an honest 8-bit claim of a
// replayed update agrees; one the replay does not point along does not.
TEST(UpdateAgreementTest, DefaultsAcceptQuantizationNoiseAndRejectAnotherDirection)
{
    std::vector<float> recomputed(4096), claimed(4096), other(4096);
    for (std::size_t i = 0; i < recomputed.size(); ++i) {
        recomputed[i] = std::sin(0.37f * float(i));
        claimed[i] = recomputed[i] + 0.004f * std::cos(1.3f * float(i)); // 8-bit rounding's size
        other[i] = std::sin(0.37f * float(i) + 1.2f);                     // cosine ~0.36
    }
    EXPECT_TRUE(agrees(compareUpdates(claimed, recomputed).value()));
    EXPECT_FALSE(agrees(compareUpdates(other, recomputed).value()));
}
