#include "OuterOptimizer.h"

#include <cfloat>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

using namespace swarmtrain;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

TEST(OuterOptimizerTest, DefaultsAreDiLoCos)
{
    const OuterOptimizer optimizer;
    EXPECT_DOUBLE_EQ(optimizer.options().learningRate, 0.7);
    EXPECT_DOUBLE_EQ(optimizer.options().momentum, 0.9);
}

TEST(OuterOptimizerTest, ThreeNesterovStepsMatchHandComputedValues)
{
    // lr 0.7, mu 0.9; m = mu m + g; p -= lr (g + mu m). Worked by hand:
    //  p0 = 1.0, g = 0.1, -0.2, 0.05:
    //   m = 0.1,    p = 1.0    - 0.7 * (0.1  + 0.09)    = 0.867
    //   m = -0.11,  p = 0.867  - 0.7 * (-0.2 - 0.099)   = 1.0763
    //   m = -0.049, p = 1.0763 - 0.7 * (0.05 - 0.0441)  = 1.07217
    //  p0 = -2.0, g = 1, 1, 1:
    //   m = 1,    p = -2     - 0.7 * 1.9   = -3.33
    //   m = 1.9,  p = -3.33  - 0.7 * 2.71  = -5.227
    //   m = 2.71, p = -5.227 - 0.7 * 3.439 = -7.6343
    //  p0 = 0.5, g = 0: unchanged.
    const OuterOptimizer optimizer;
    std::vector<float> params = {1.0f, -2.0f, 0.5f};
    std::vector<float> momentum(3, 0.0f);
    const std::vector<std::vector<float>> gradients = {{0.1f, 1.0f, 0.0f}, {-0.2f, 1.0f, 0.0f}, {0.05f, 1.0f, 0.0f}};
    const std::vector<std::vector<float>> expectedParams = {
        {0.867f, -3.33f, 0.5f}, {1.0763f, -5.227f, 0.5f}, {1.07217f, -7.6343f, 0.5f}};
    const std::vector<std::vector<float>> expectedMomentum = {
        {0.1f, 1.0f, 0.0f}, {-0.11f, 1.9f, 0.0f}, {-0.049f, 2.71f, 0.0f}};
    for (std::size_t step = 0; step < 3; ++step) {
        const Result<void> result = optimizer.step(params, momentum, gradients[step]);
        ASSERT_TRUE(result.ok()) << result.error().message;
        for (std::size_t i = 0; i < 3; ++i) {
            EXPECT_NEAR(params[i], expectedParams[step][i], 1e-5f) << "step " << step << " param " << i;
            EXPECT_NEAR(momentum[i], expectedMomentum[step][i], 1e-5f) << "step " << step << " param " << i;
        }
    }
    EXPECT_EQ(params[2], 0.5f);
}

TEST(OuterOptimizerTest, ZeroMomentumIsPlainSgd)
{
    const OuterOptimizer optimizer({.learningRate = 0.5, .momentum = 0.0});
    std::vector<float> params = {1.0f, 2.0f};
    std::vector<float> momentum(2, 0.0f);
    ASSERT_TRUE(optimizer.step(params, momentum, std::vector<float>{0.5f, -1.0f}).ok());
    ASSERT_TRUE(optimizer.step(params, momentum, std::vector<float>{0.5f, -1.0f}).ok());
    EXPECT_FLOAT_EQ(params[0], 0.5f);
    EXPECT_FLOAT_EQ(params[1], 3.0f);
}

TEST(OuterOptimizerTest, RejectsMismatchedSizesWithoutTouchingState)
{
    const OuterOptimizer optimizer;
    std::vector<float> params = {1.0f, 2.0f};
    std::vector<float> momentum = {0.0f, 0.0f};
    const Result<void> shortGradient = optimizer.step(params, momentum, std::vector<float>{1.0f});
    ASSERT_FALSE(shortGradient.ok());
    EXPECT_NE(shortGradient.error().message.find("do not match"), std::string::npos);
    std::vector<float> shortMomentum = {0.0f};
    EXPECT_FALSE(optimizer.step(params, shortMomentum, std::vector<float>{1.0f, 1.0f}).ok());
    EXPECT_EQ(params, (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(shortMomentum, (std::vector<float>{0.0f}));
}

TEST(OuterOptimizerTest, RejectsNonFinitePseudoGradientWithoutTouchingState)
{
    const OuterOptimizer optimizer;
    std::vector<float> params = {1.0f, 2.0f, 3.0f};
    std::vector<float> momentum = {0.1f, 0.2f, 0.3f};
    for (const float bad : {kNaN, kInf, -kInf}) {
        const Result<void> result = optimizer.step(params, momentum, std::vector<float>{0.1f, 0.1f, bad});
        ASSERT_FALSE(result.ok());
        EXPECT_NE(result.error().message.find("value 2"), std::string::npos) << result.error().message;
    }
    EXPECT_EQ(params, (std::vector<float>{1.0f, 2.0f, 3.0f}));
    EXPECT_EQ(momentum, (std::vector<float>{0.1f, 0.2f, 0.3f}));
}

TEST(OuterOptimizerTest, RejectsInsaneOptions)
{
    std::vector<float> params = {1.0f};
    std::vector<float> momentum = {0.0f};
    const std::vector<float> gradient = {1.0f};
    for (const OuterOptimizerOptions options : {OuterOptimizerOptions{0.0, 0.9}, OuterOptimizerOptions{-0.7, 0.9},
                                                OuterOptimizerOptions{double(kNaN), 0.9},
                                                OuterOptimizerOptions{double(kInf), 0.9},
                                                OuterOptimizerOptions{0.7, 1.0}, OuterOptimizerOptions{0.7, -0.1},
                                                OuterOptimizerOptions{0.7, double(kNaN)}})
        EXPECT_FALSE(OuterOptimizer(options).step(params, momentum, gradient).ok()) << options.learningRate;
    EXPECT_EQ(params[0], 1.0f);
}

TEST(OuterOptimizerTest, ValidateUpdateAcceptsNormUpToTheLimit)
{
    const std::vector<float> update = {3.0f, 4.0f}; // norm 5
    EXPECT_TRUE(validateUpdate(update, 5.0).ok());
    EXPECT_TRUE(validateUpdate({}, 1.0).ok());
    const Result<void> tooLarge = validateUpdate(update, 4.99);
    ASSERT_FALSE(tooLarge.ok());
    EXPECT_NE(tooLarge.error().message.find("L2 norm 5"), std::string::npos) << tooLarge.error().message;
    EXPECT_NE(tooLarge.error().message.find("4.99"), std::string::npos) << tooLarge.error().message;
}

TEST(OuterOptimizerTest, ValidateUpdateNormDoesNotOverflowInFloat)
{
    // Squares of 1e20 overflow float but not double: the norm is 1e20 * sqrt(2), still judged.
    const std::vector<float> update = {1e20f, 1e20f};
    EXPECT_TRUE(validateUpdate(update, 1.5e20).ok());
    EXPECT_FALSE(validateUpdate(update, 1.4e20).ok());
}

TEST(OuterOptimizerTest, ValidateUpdateRejectsNonFiniteValues)
{
    for (const float bad : {kNaN, kInf, -kInf}) {
        std::vector<float> update(100, 0.0f);
        update[42] = bad;
        const Result<void> result = validateUpdate(update, 1e30);
        ASSERT_FALSE(result.ok());
        EXPECT_NE(result.error().message.find("value 42"), std::string::npos) << result.error().message;
        EXPECT_NE(result.error().message.find("not finite"), std::string::npos);
    }
}

TEST(OuterOptimizerTest, ValidateUpdateRejectsABadLimit)
{
    const std::vector<float> update = {1.0f};
    EXPECT_FALSE(validateUpdate(update, 0.0).ok());
    EXPECT_FALSE(validateUpdate(update, -1.0).ok());
    EXPECT_FALSE(validateUpdate(update, std::nan("")).ok());
    EXPECT_FALSE(validateUpdate(update, std::numeric_limits<double>::infinity()).ok());
}

TEST(OuterOptimizerTest, WeightedAverageWeighsByTokens)
{
    const std::vector<float> a = {1.0f, 2.0f, -4.0f};
    const std::vector<float> b = {5.0f, 6.0f, 0.0f};
    const std::vector<WeightedPiece> pieces = {{a, 1000.0}, {b, 3000.0}};
    std::vector<float> out(3, 123.0f);
    const Result<void> result = weightedAverage(pieces, out);
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_FLOAT_EQ(out[0], 4.0f);  // (1 + 15) / 4
    EXPECT_FLOAT_EQ(out[1], 5.0f);  // (2 + 18) / 4
    EXPECT_FLOAT_EQ(out[2], -1.0f); // -4 / 4
}

TEST(OuterOptimizerTest, WeightedAverageOfOnePieceIsThePiece)
{
    const std::vector<float> a = {0.25f, -7.5f};
    const std::vector<WeightedPiece> pieces = {{a, 17.0}};
    std::vector<float> out(2);
    ASSERT_TRUE(weightedAverage(pieces, out).ok());
    EXPECT_EQ(out, a);
}

TEST(OuterOptimizerTest, WeightedAverageRejectsBadWeightsAndSizes)
{
    const std::vector<float> a = {1.0f, 2.0f};
    const std::vector<float> shortPiece = {1.0f};
    std::vector<float> out = {9.0f, 9.0f};
    for (const double weight : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
        const std::vector<WeightedPiece> pieces = {{a, 1.0}, {a, weight}};
        const Result<void> result = weightedAverage(pieces, out);
        ASSERT_FALSE(result.ok()) << weight;
        EXPECT_NE(result.error().message.find("piece 1"), std::string::npos) << result.error().message;
    }
    EXPECT_FALSE(weightedAverage(std::vector<WeightedPiece>{{a, 1.0}, {shortPiece, 1.0}}, out).ok());
    EXPECT_FALSE(weightedAverage({}, out).ok());
    EXPECT_FALSE(weightedAverage(std::vector<WeightedPiece>{{a, DBL_MAX}, {a, DBL_MAX}}, out).ok());
    EXPECT_EQ(out, (std::vector<float>{9.0f, 9.0f}));
}
