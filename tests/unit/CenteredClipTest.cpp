#include "CenteredClip.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace swarmtrain;

namespace {

class CenteredClipTest : public ::testing::Test {
protected:
    // `count` pieces: one shared direction plus each piece's own noise, as pseudo-gradients of
    // peers that trained on different shards; piece i's noise is scaled by 1 + unevenness * i.
    void makePieces(std::size_t count, std::size_t n, float noise, float unevenness = 0.0f)
    {
        std::mt19937 rng(11);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        common.assign(n, 0.0f);
        for (float &x : common)
            x = 0.01f * normal(rng);
        pieces.assign(count, common);
        for (std::size_t i = 0; i < count; ++i) {
            for (float &x : pieces[i])
                x += noise * (1.0f + unevenness * float(i)) * normal(rng);
        }
    }

    std::vector<float> aggregate(CenteredClipOptions options = {})
    {
        std::vector<std::span<const float>> spans(pieces.begin(), pieces.end());
        std::vector<float> out(pieces.front().size());
        Result<CenteredClipReport> r = centeredClip(spans, out, options);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        if (r.ok())
            lastReport = *r;
        return out;
    }

    std::vector<float> meanOf(std::size_t first, std::size_t last) const
    {
        std::vector<float> mean(pieces.front().size(), 0.0f);
        for (std::size_t i = first; i < last; ++i) {
            for (std::size_t j = 0; j < mean.size(); ++j)
                mean[j] += pieces[i][j] / float(last - first);
        }
        return mean;
    }

    static double distance(const std::vector<float> &a, const std::vector<float> &b)
    {
        double sum = 0.0;
        for (std::size_t j = 0; j < a.size(); ++j)
            sum += (double(a[j]) - b[j]) * (double(a[j]) - b[j]);
        return std::sqrt(sum);
    }

    static double norm(const std::vector<float> &a) { return distance(a, std::vector<float>(a.size(), 0.0f)); }

    std::vector<float> common;
    std::vector<std::vector<float>> pieces;
    CenteredClipReport lastReport;
};

} // namespace

TEST_F(CenteredClipTest, AgreeingPiecesGiveTheirMean)
{
    makePieces(4, 4096, 0.003f);
    const std::vector<float> clipped = aggregate();
    const std::vector<float> mean = meanOf(0, 4);
    EXPECT_TRUE(lastReport.clipped.empty());
    EXPECT_LT(distance(clipped, mean), 1e-4 * norm(mean));
}

TEST_F(CenteredClipTest, IdenticalPiecesGiveThemselves)
{
    makePieces(3, 1000, 0.0f);
    EXPECT_EQ(aggregate(), common);
    EXPECT_EQ(lastReport.tau, 0.0);
}

TEST_F(CenteredClipTest, APieceScaledAHundredfoldMovesTheResultLittle)
{
    makePieces(4, 4096, 0.003f);
    const std::vector<float> honest = meanOf(0, 3);
    for (float &x : pieces[3])
        x *= 100.0f;
    const std::vector<float> plain = meanOf(0, 4);
    const std::vector<float> clipped = aggregate();
    EXPECT_EQ(lastReport.clipped, std::vector<std::size_t>{3});
    EXPECT_EQ(lastReport.leftOut, std::vector<std::size_t>{3});
    // The plain mean is dragged 25 times the update's length away; the robust one is the
    // honest pieces' mean.
    EXPECT_GT(distance(plain, honest), 20.0 * norm(honest));
    EXPECT_LT(distance(clipped, honest), 1e-5 * norm(honest));
    // Clipped but kept, it moves the result by less than the honest pieces' own spread.
    CenteredClipOptions keep;
    keep.leaveOutOutliers = false;
    const std::vector<float> kept = aggregate(keep);
    EXPECT_TRUE(lastReport.leftOut.empty());
    EXPECT_GT(distance(kept, honest), 1e-3 * norm(honest));
    EXPECT_LT(distance(kept, honest), 0.3 * norm(honest));
}

TEST_F(CenteredClipTest, ColludingIdenticalPiecesDoNotTakeTheResultOver)
{
    // h honest pieces of unequal spread (some end up left out) and h - 1 colluding senders
    // that send one and the same piece. Leaving honest pieces out raises the colluders' share
    // of what remains; the result must still keep well away from their piece. (Running
    // CenteredClip again over only the pieces kept, tried once to make a left-out piece change
    // no bit, ended exactly on the colluders' piece in every one of these cases.)
    for (const float unevenness : {0.3f, 0.5f}) {
        for (std::size_t honest = 5; honest <= 7; ++honest) {
            makePieces(honest, 2048, 0.003f, unevenness);
            const std::vector<float> honestMean = meanOf(0, honest);
            pieces.insert(pieces.end(), honest - 1, common);
            const std::vector<float> result = aggregate();
            EXPECT_FALSE(lastReport.leftOut.empty()) << "no honest piece was left out: not the case this test builds";
            EXPECT_GT(distance(result, common), 0.2 * distance(honestMean, common))
                << honest << " honest pieces, unevenness " << unevenness;
        }
    }
}

TEST_F(CenteredClipTest, ASignFlippedPieceMovesTheResultLittle)
{
    makePieces(4, 4096, 0.003f);
    const std::vector<float> honest = meanOf(0, 3);
    for (float &x : pieces[3])
        x = -x;
    const std::vector<float> plain = meanOf(0, 4);
    const std::vector<float> clipped = aggregate();
    EXPECT_GT(distance(plain, honest), 0.4 * norm(honest));
    EXPECT_LT(distance(clipped, honest), 0.3 * norm(honest));
    EXPECT_LT(distance(clipped, honest), 0.5 * distance(plain, honest));
}

TEST_F(CenteredClipTest, NaNAndInfAreIgnoredAndNeverReturned)
{
    makePieces(4, 512, 0.003f);
    pieces[1][7] = std::numeric_limits<float>::quiet_NaN();
    pieces[2][9] = std::numeric_limits<float>::infinity();
    const std::vector<float> clipped = aggregate();
    EXPECT_EQ(lastReport.ignored, (std::vector<std::size_t>{1, 2}));
    for (float x : clipped)
        ASSERT_TRUE(std::isfinite(x));
    // Two pieces left, at equal distance from their midpoint: their mean.
    std::vector<float> mean(512);
    for (std::size_t j = 0; j < mean.size(); ++j)
        mean[j] = 0.5f * (pieces[0][j] + pieces[3][j]);
    EXPECT_LT(distance(clipped, mean), 1e-5);

    for (auto &piece : pieces)
        piece[0] = std::numeric_limits<float>::quiet_NaN();
    std::vector<std::span<const float>> spans(pieces.begin(), pieces.end());
    std::vector<float> out(512);
    EXPECT_FALSE(centeredClip(spans, out).ok()) << "no usable piece";
}

TEST_F(CenteredClipTest, PiecesOfAnotherLengthAreAnError)
{
    makePieces(2, 100, 0.01f);
    pieces[1].resize(99);
    std::vector<std::span<const float>> spans(pieces.begin(), pieces.end());
    std::vector<float> out(100);
    EXPECT_FALSE(centeredClip(spans, out).ok());
}

// Weights (issue 18: a peer's pieces weigh by the tokens it trained) count a piece as that many
// copies of it in the center and the mean: equal weights change nothing, whole weights give the
// weighted mean of the honest pieces, a heavy piece is not an outlier for being heavy (nor does
// it make the light ones outliers: two members, one faster), and weights that are no positive
// number are refused.
TEST_F(CenteredClipTest, AWeightCountsAPieceAsThatManyCopies)
{
    makePieces(5, 1024, 0.003f, 0.2f);
    pieces[4] = pieces[3];
    for (float &x : pieces[4])
        x *= 30.0f; // an outlier, so that clipping and the leave-out both take part
    std::vector<std::span<const float>> spans(pieces.begin(), pieces.end());
    std::vector<float> plain(1024), equal(1024);
    const CenteredClipReport unweighted = centeredClip(spans, plain).value();
    const std::vector<double> twoAndAHalf(pieces.size(), 2.5);
    const CenteredClipReport same = centeredClip(spans, equal, {}, twoAndAHalf).value();
    EXPECT_EQ(equal, plain) << "equal weights changed the result";
    EXPECT_EQ(same.leftOut, unweighted.leftOut);

    const std::vector<double> weights = {1, 3, 1, 2, 1};
    std::vector<float> weighted(1024), honestMean(1024, 0.0f);
    const CenteredClipReport byWeight = centeredClip(spans, weighted, {}, weights).value();
    for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < honestMean.size(); ++j)
            honestMean[j] += float(weights[i] / 7.0) * pieces[i][j];
    }
    EXPECT_LT(distance(weighted, honestMean), 1e-5 * norm(honestMean));
    EXPECT_EQ(byWeight.leftOut, std::vector<std::size_t>{4});
    EXPECT_GT(distance(weighted, plain), 1e-4 * norm(plain)) << "the weights changed nothing";

    // Two honest members, one of which trained four times the steps: both count.
    const std::vector<std::span<const float>> two(spans.begin(), spans.begin() + 2);
    std::vector<float> pair(1024);
    const CenteredClipReport twoWeighted = centeredClip(two, pair, {}, std::vector<double>{1, 4}).value();
    EXPECT_TRUE(twoWeighted.leftOut.empty()) << "the lighter piece was left out";
    EXPECT_GT(twoWeighted.tau, 0.0);
    for (std::size_t j = 0; j < pair.size(); j += 97)
        EXPECT_NEAR(pair[j], 0.2f * pieces[0][j] + 0.8f * pieces[1][j], 1e-5f);

    std::vector<float> out(1024);
    EXPECT_FALSE(centeredClip(spans, out, {}, std::vector<double>{1, 1}).ok()) << "one weight a piece";
    EXPECT_FALSE(centeredClip(spans, out, {}, std::vector<double>{1, 1, 0, 1, 1}).ok());
    EXPECT_FALSE(centeredClip(spans, out, {}, std::vector<double>{1, 1, std::nan(""), 1, 1}).ok());
    EXPECT_FALSE(centeredClip(spans, out, {}, std::vector<double>{1, -2, 1, 1, 1}).ok());
}
