// A member settles the ranges whose checker did not agree by the coordinator's ruling on the
// owner's evidence (issue 43, RangeRulings.h), whatever the range's referee said: the owner's
// average where the very average that came is upheld, the checker's as refereed where the
// owner's is refuted, nothing where there is no ruling or another average was upheld. The
// average, the applied averages and the skipped and redone ranges agree afterwards.
#include "RangeRulings.h"

#include "Quantization.h"
#include "Sha256.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

constexpr std::int64_t kCount = 512; // two ranges: [0, 256) and [256, 512)

struct Encoded {
    QByteArray bytes;
    std::vector<float> values; // as members decode them
};

Encoded encoded(float value, std::int64_t count = 256)
{
    const Quantized quantized = quantize(std::vector<float>(std::size_t(count), value)).value();
    const std::vector<std::byte> bytes = encodeQuantized(quantized);
    return {QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size())), dequantize(quantized)};
}

RangeAverage rangeOf(std::int64_t begin, const Encoded &average)
{
    const auto *bytes = reinterpret_cast<const std::byte *>(average.bytes.constData());
    return {begin, begin + 256, {bytes, bytes + average.bytes.size()}};
}

QString hashOf(const Encoded &average)
{
    return QString::fromStdString(Sha256::hexOf(std::span(reinterpret_cast<const std::byte *>(average.bytes.constData()),
                                                          std::size_t(average.bytes.size()))));
}

// An outcome whose first range (owner "o") its checker disputed and its referee settled on
// `applied` (the checker's average, or the owner's; none: skipped), and whose second range held.
AllReduceOutcome disputedOutcome(const Encoded &owners, const std::optional<Encoded> &applied)
{
    const Encoded other = encoded(0.003f);
    AllReduceOutcome outcome;
    outcome.average.assign(std::size_t(kCount), 0.0f);
    if (applied) {
        std::copy(applied->values.begin(), applied->values.end(), outcome.average.begin());
        outcome.appliedAverages.push_back(rangeOf(0, *applied));
        if (applied->bytes != owners.bytes)
            outcome.redoneRanges.emplace_back(0, 256);
    } else {
        outcome.skippedRanges.emplace_back(0, 256);
    }
    std::copy(other.values.begin(), other.values.end(), outcome.average.begin() + 256);
    outcome.appliedAverages.push_back(rangeOf(256, other));
    outcome.disputedRanges.push_back({QStringLiteral("o"), 0, 256, owners.bytes});
    return outcome;
}

// An outcome whose two ranges (the first owner "o"'s) were both applied: `owners` and `other`.
AllReduceOutcome appliedOutcome(const Encoded &owners, const Encoded &other)
{
    AllReduceOutcome outcome;
    outcome.average.assign(std::size_t(kCount), 0.0f);
    std::copy(owners.values.begin(), owners.values.end(), outcome.average.begin());
    std::copy(other.values.begin(), other.values.end(), outcome.average.begin() + 256);
    outcome.appliedAverages = {rangeOf(0, owners), rangeOf(256, other)};
    return outcome;
}

RangeRuling ruling(RangeRuling::State state, const QString &hash) { return {3, QStringLiteral("o"), state, hash}; }

} // namespace

TEST(RangeRulingsTest, AnUpheldAverageIsAppliedWhateverTheRefereeSaid)
{
    const Encoded owners = encoded(0.002f), checkers = encoded(-0.008f);
    AllReduceOutcome outcome = disputedOutcome(owners, checkers);
    ASSERT_TRUE(settleDisputedRanges(outcome, {{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(owners))}}).ok());
    EXPECT_EQ(outcome.average[0], owners.values[0]);
    EXPECT_EQ(outcome.average[255], owners.values[255]);
    EXPECT_NE(outcome.average[256], 0.0f) << "the other range stays";
    ASSERT_EQ(outcome.appliedAverages.size(), 2u);
    EXPECT_EQ(outcome.appliedAverages[0].begin, 0);
    EXPECT_EQ(outcome.appliedAverages[0].payload, rangeOf(0, owners).payload);
    EXPECT_TRUE(outcome.redoneRanges.empty());
    EXPECT_TRUE(outcome.skippedRanges.empty());

    // Also where the referee could not settle it and everyone skipped it.
    outcome = disputedOutcome(owners, std::nullopt);
    ASSERT_TRUE(settleDisputedRanges(outcome, {{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(owners))}}).ok());
    EXPECT_EQ(outcome.average[7], owners.values[7]);
    EXPECT_EQ(outcome.appliedAverages.size(), 2u);
    EXPECT_TRUE(outcome.skippedRanges.empty());
}

TEST(RangeRulingsTest, ARangeIsSkippedWithoutARulingOrWhenAnotherAverageWasUpheld)
{
    const Encoded owners = encoded(0.002f), checkers = encoded(-0.008f), honest = encoded(0.0021f);
    for (const std::map<QString, RangeRuling> &rulings :
         {std::map<QString, RangeRuling>{},
          std::map<QString, RangeRuling>{{QStringLiteral("o"), ruling(RangeRuling::State::Pending, {})}},
          // A lying owner that sent the coordinator honest evidence and members another average.
          std::map<QString, RangeRuling>{{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(honest))}}}) {
        AllReduceOutcome outcome = disputedOutcome(owners, checkers);
        ASSERT_TRUE(settleDisputedRanges(outcome, rulings).ok());
        EXPECT_EQ(outcome.average[0], 0.0f);
        ASSERT_EQ(outcome.appliedAverages.size(), 1u);
        EXPECT_EQ(outcome.appliedAverages[0].begin, 256);
        EXPECT_EQ(outcome.skippedRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 256}}));
        EXPECT_TRUE(outcome.redoneRanges.empty());
    }
}

TEST(RangeRulingsTest, ARefutedOwnersRangeStaysAsTheCheckerAveragedItAndNeverAsTheOwnerDid)
{
    const Encoded owners = encoded(0.01f), checkers = encoded(0.002f);
    AllReduceOutcome outcome = disputedOutcome(owners, checkers);
    ASSERT_TRUE(settleDisputedRanges(outcome, {{QStringLiteral("o"), ruling(RangeRuling::State::Refuted, hashOf(owners))}}).ok());
    EXPECT_EQ(outcome.average[0], checkers.values[0]);
    EXPECT_EQ(outcome.appliedAverages[0].payload, rangeOf(0, checkers).payload);
    EXPECT_EQ(outcome.redoneRanges.size(), 1u);

    // A referee that sided with the refuted owner: the range is skipped.
    outcome = disputedOutcome(owners, owners);
    ASSERT_TRUE(settleDisputedRanges(outcome, {{QStringLiteral("o"), ruling(RangeRuling::State::Refuted, hashOf(owners))}}).ok());
    EXPECT_EQ(outcome.average[0], 0.0f);
    EXPECT_EQ(outcome.appliedAverages.size(), 1u);
    EXPECT_EQ(outcome.skippedRanges.size(), 1u);
}

TEST(RangeRulingsTest, AnUpheldAverageThatDoesNotDecodeLeavesTheOutcomeAsItWas)
{
    Encoded owners = encoded(0.002f);
    owners.bytes.chop(1);
    const Encoded checkers = encoded(-0.008f);
    AllReduceOutcome outcome = disputedOutcome(owners, checkers);
    const std::vector<float> before = outcome.average;
    EXPECT_FALSE(settleDisputedRanges(outcome, {{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(owners))}}).ok());
    EXPECT_EQ(outcome.average, before);
    EXPECT_EQ(outcome.appliedAverages.size(), 2u);
}

TEST(RangeRulingsTest, ARulingFromTheWireIsCheckedBeforeItIsBelieved)
{
    const RangeRuling upheld = ruling(RangeRuling::State::Upheld, QString(64, QLatin1Char('a')));
    const Result<RangeRuling> back = RangeRuling::fromJson(upheld.toJson());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->state, RangeRuling::State::Upheld);
    EXPECT_EQ(back->averageSha256, upheld.averageSha256);
    EXPECT_EQ(RangeRuling::fromJson(ruling(RangeRuling::State::Pending, {}).toJson())->state, RangeRuling::State::Pending);
    QJsonObject bad = upheld.toJson();
    bad.insert(QStringLiteral("state"), QStringLiteral("maybe"));
    EXPECT_FALSE(RangeRuling::fromJson(bad).ok());
    bad = upheld.toJson();
    bad.remove(QStringLiteral("average_sha256"));
    EXPECT_FALSE(RangeRuling::fromJson(bad).ok()) << "a ruling names the average it ruled on";
    bad = upheld.toJson();
    bad.insert(QStringLiteral("average_sha256"), QString(64, QLatin1Char('G')));
    EXPECT_FALSE(RangeRuling::fromJson(bad).ok());
    bad = upheld.toJson();
    bad.insert(QStringLiteral("owner"), QString(65, QLatin1Char('a')));
    EXPECT_FALSE(RangeRuling::fromJson(bad).ok());
}

// An audited range (RangeAudit) that no checker disputed stays only where the coordinator upheld
// the very average that came: a refuted one, another one upheld, or no ruling by the member's
// wait and the range is skipped. A disputed audited range is left to settleDisputedRanges(), or
// redone where that skipped it, and a range skipped already stays skipped.
TEST(RangeRulingsTest, AnAuditedRangeStaysOnlyWhereTheAverageThatCameIsUpheld)
{
    const Encoded owners = encoded(0.002f), other = encoded(0.003f);
    const std::vector<DisputedRange> audited{{QStringLiteral("o"), 0, 256, {}}};
    AllReduceOutcome upheld = appliedOutcome(owners, other);
    settleAuditedRanges(upheld, audited, {{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(owners))}});
    EXPECT_EQ(upheld.average, appliedOutcome(owners, other).average);
    EXPECT_EQ(upheld.appliedAverages.size(), 2u);
    EXPECT_TRUE(upheld.skippedRanges.empty());

    for (const std::map<QString, RangeRuling> &rulings : std::vector<std::map<QString, RangeRuling>>{
             {{QStringLiteral("o"), ruling(RangeRuling::State::Refuted, hashOf(owners))}},
             {{QStringLiteral("o"), ruling(RangeRuling::State::Upheld, hashOf(encoded(-0.008f)))}},
             {}}) {
        AllReduceOutcome outcome = appliedOutcome(owners, other);
        settleAuditedRanges(outcome, audited, rulings);
        EXPECT_EQ(outcome.average[0], 0.0f);
        EXPECT_EQ(outcome.average[255], 0.0f);
        EXPECT_EQ(outcome.average[256], other.values[0]) << "the other range stays";
        ASSERT_EQ(outcome.appliedAverages.size(), 1u);
        EXPECT_EQ(outcome.appliedAverages[0].begin, 256);
        EXPECT_EQ(outcome.skippedRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 256}}));
    }

    // Refuted, with the range as the coordinator recomputed it: that is applied, but only the very
    // bytes the ruling names.
    const Encoded recomputed = encoded(0.0025f);
    RangeRuling refuted = ruling(RangeRuling::State::Refuted, hashOf(owners));
    refuted.redoneSha256 = hashOf(recomputed);
    AllReduceOutcome redone = appliedOutcome(owners, other);
    settleAuditedRanges(redone, audited, {{QStringLiteral("o"), refuted}}, {{QStringLiteral("o"), recomputed.bytes}});
    EXPECT_EQ(redone.average[0], recomputed.values[0]);
    EXPECT_EQ(redone.average[255], recomputed.values[255]);
    ASSERT_EQ(redone.appliedAverages.size(), 2u);
    EXPECT_EQ(redone.appliedAverages[0].payload, rangeOf(0, recomputed).payload);
    EXPECT_TRUE(redone.skippedRanges.empty());
    EXPECT_EQ(redone.redoneRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 256}}));
    AllReduceOutcome forged = appliedOutcome(owners, other);
    settleAuditedRanges(forged, audited, {{QStringLiteral("o"), refuted}}, {{QStringLiteral("o"), encoded(0.5f).bytes}});
    EXPECT_EQ(forged.average[0], 0.0f) << "other bytes than the ruling names: skipped";
    EXPECT_EQ(forged.skippedRanges.size(), 1u);

    // Disputed as well: the dispute's settlement stands (here, the checker's average as refereed).
    const Encoded checkers = encoded(-0.008f);
    AllReduceOutcome disputed = disputedOutcome(owners, checkers);
    settleAuditedRanges(disputed, audited, {{QStringLiteral("o"), ruling(RangeRuling::State::Refuted, hashOf(owners))}});
    EXPECT_EQ(disputed.average[0], checkers.values[0]);
    EXPECT_EQ(disputed.appliedAverages.size(), 2u);

    // Disputed by its referee alone (the checker vouched, so no average of its own), refuted: the
    // dispute's settlement skips it, and the range as the coordinator recomputed it goes in.
    AllReduceOutcome refereed = disputedOutcome(owners, std::nullopt);
    ASSERT_TRUE(settleDisputedRanges(refereed, {{QStringLiteral("o"), refuted}}).ok());
    EXPECT_EQ(refereed.skippedRanges.size(), 1u);
    settleAuditedRanges(refereed, audited, {{QStringLiteral("o"), refuted}}, {{QStringLiteral("o"), recomputed.bytes}});
    EXPECT_EQ(refereed.average[0], recomputed.values[0]);
    EXPECT_TRUE(refereed.skippedRanges.empty());
    EXPECT_EQ(refereed.redoneRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 256}}));
    ASSERT_EQ(refereed.appliedAverages.size(), 2u);
    EXPECT_EQ(refereed.appliedAverages[0].payload, rangeOf(0, recomputed).payload);

    // Skipped already: nothing to settle.
    AllReduceOutcome skipped = disputedOutcome(owners, std::nullopt);
    skipped.disputedRanges.clear();
    settleAuditedRanges(skipped, audited, {});
    EXPECT_EQ(skipped.skippedRanges.size(), 1u);
    EXPECT_EQ(skipped.appliedAverages.size(), 1u);
}

// A range applied without a verdict because its checker committed to nothing stands on the audit
// alone: not drawn (or no draw in time), it is skipped; drawn, settleAuditedRanges() rules on it.
TEST(RangeRulingsTest, ARangeWhoseCheckerStalledStaysOnlyWhereTheAuditDrewIt)
{
    const Encoded owners = encoded(0.002f), other = encoded(0.003f);
    const auto unchecked = [&] {
        AllReduceOutcome outcome = appliedOutcome(owners, other);
        outcome.uncheckedRanges.push_back({QStringLiteral("o"), 0, 256, {}});
        return outcome;
    };
    for (const QStringList &audited : {QStringList{}, QStringList{QStringLiteral("p")}}) {
        AllReduceOutcome outcome = unchecked();
        skipUnauditedRanges(outcome, audited);
        EXPECT_EQ(outcome.average[0], 0.0f);
        EXPECT_EQ(outcome.average[256], other.values[0]) << "a checked range stays";
        ASSERT_EQ(outcome.appliedAverages.size(), 1u);
        EXPECT_EQ(outcome.appliedAverages[0].begin, 256);
        EXPECT_EQ(outcome.skippedRanges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 256}}));
    }
    AllReduceOutcome drawn = unchecked();
    skipUnauditedRanges(drawn, {QStringLiteral("o")});
    EXPECT_EQ(drawn.average, unchecked().average);
    EXPECT_EQ(drawn.appliedAverages.size(), 2u);
    settleAuditedRanges(drawn, {{QStringLiteral("o"), 0, 256, {}}}, {});
    EXPECT_EQ(drawn.average[0], 0.0f) << "drawn, and no ruling by the member's wait: skipped";
}
