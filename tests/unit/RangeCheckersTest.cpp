#include "RangeCheckers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <set>

using namespace swarmtrain;

namespace {

std::vector<RangeOwner> fourOwners()
{
    // Out of range order on purpose: pairs follow the ranges, not the list.
    return {{QStringLiteral("c"), 200}, {QStringLiteral("a"), 0}, {QStringLiteral("d"), 300}, {QStringLiteral("b"), 100}};
}

} // namespace

// Seeds of drawn pairs, and 0: the rotation.
constexpr quint64 kSeeds[] = {0, 1, 0x5eed, 0xffff'ffff'ffff'ffffULL, 0x9e37'79b9'7f4a'7c15ULL};

TEST(RangeCheckersTest, NoOwnerChecksItselfAndEveryOwnerChecksExactlyOneRange)
{
    for (qint64 round = 0; round < 7; ++round) {
        for (const quint64 seed : kSeeds) {
            const std::map<QString, QString> checkers = rangeCheckers(fourOwners(), round, seed);
            ASSERT_EQ(checkers.size(), 4u);
            std::set<QString> checking;
            for (const auto &[owner, checker] : checkers) {
                EXPECT_NE(owner, checker) << "round " << round << " seed " << seed;
                checking.insert(checker);
            }
            EXPECT_EQ(checking.size(), 4u) << "round " << round << " seed " << seed;
        }
    }
}

TEST(RangeCheckersTest, AnOwnerMeetsEveryOtherOwnerAsItsCheckerOverNMinusOneRounds)
{
    std::set<QString> checkersOfA;
    for (qint64 round = 10; round < 13; ++round)
        checkersOfA.insert(rangeCheckers(fourOwners(), round).at(QStringLiteral("a")));
    EXPECT_EQ(checkersOfA, (std::set<QString>{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
    EXPECT_EQ(rangeCheckers(fourOwners(), 0).at(QStringLiteral("a")), QStringLiteral("b")); // the next range
}

TEST(RangeCheckersTest, OneOwnerHasNoChecker)
{
    EXPECT_TRUE(rangeCheckers({{QStringLiteral("a"), 0}}, 3).empty());
    EXPECT_TRUE(rangeCheckers({}, 3).empty());
    const std::map<QString, QString> two = rangeCheckers({{QStringLiteral("a"), 0}, {QStringLiteral("b"), 5}}, 9);
    EXPECT_EQ(two.at(QStringLiteral("a")), QStringLiteral("b"));
    EXPECT_EQ(two.at(QStringLiteral("b")), QStringLiteral("a"));
}

TEST(RangeCheckersTest, EveryRangesRefereeIsAThirdOwnerAndEveryOwnerRefereesExactlyOneRange)
{
    for (qint64 owners = 3; owners <= 5; ++owners) {
        std::vector<RangeOwner> list;
        for (qint64 i = 0; i < owners; ++i)
            list.push_back({QString(QChar(char16_t(u'a' + i))), 100 * (owners - i)}); // range order is reversed
        for (qint64 round = 0; round < 9; ++round) {
            for (const quint64 seed : kSeeds) {
                const std::map<QString, QString> checkers = rangeCheckers(list, round, seed);
                const std::map<QString, QString> referees = rangeReferees(list, round, seed);
                ASSERT_EQ(referees.size(), std::size_t(owners));
                std::set<QString> refereeing;
                for (const auto &[owner, referee] : referees) {
                    EXPECT_NE(referee, owner) << owners << " owners, round " << round << " seed " << seed;
                    EXPECT_NE(referee, checkers.at(owner)) << owners << " owners, round " << round << " seed " << seed;
                    refereeing.insert(referee);
                }
                EXPECT_EQ(refereeing.size(), std::size_t(owners)) << owners << " owners, round " << round << " seed " << seed;
            }
        }
    }
}

TEST(RangeCheckersTest, ASeedDrawsTheSamePairsWhateverOrderTheOwnersComeInAndAnotherSeedOthers)
{
    std::vector<RangeOwner> owners = fourOwners(), reversed(owners.rbegin(), owners.rend());
    std::set<std::map<QString, QString>> drawn;
    for (quint64 seed = 1; seed <= 60; ++seed) {
        const std::map<QString, QString> checkers = rangeCheckers(owners, 5, seed);
        EXPECT_EQ(checkers, rangeCheckers(reversed, 5, seed)) << "seed " << seed;
        EXPECT_EQ(checkers, rangeCheckers(owners, 6, seed)) << "the round's number does not count with a seed";
        EXPECT_EQ(rangeReferees(owners, 5, seed), rangeReferees(reversed, 5, seed)) << "seed " << seed;
        drawn.insert(checkers);
    }
    // Four owners in a random cycle: 3! = 6 cycles, each one pairing. 60 seeds miss one with
    // odds of about 6 (5/6)^60, under 1e-4; the seeds are fixed, so this either holds or never.
    EXPECT_EQ(drawn.size(), 6u);
}

// Every other owner is as likely to be an owner's checker, and its referee: 40,000 seeds, five
// owners, each of the four others within a percentage point of a quarter.
TEST(RangeCheckersTest, EveryOtherOwnerIsAsLikelyToBeDrawnAsARangesCheckerOrReferee)
{
    std::vector<RangeOwner> owners;
    for (int i = 0; i < 5; ++i)
        owners.push_back({QStringLiteral("o%1").arg(i), qint64(i) * 10});
    std::map<QString, int> checks, referees;
    constexpr int kDraws = 40'000;
    for (quint64 seed = 1; seed <= kDraws; ++seed) {
        ++checks[rangeCheckers(owners, 0, seed * 0x9e37'79b9ULL).at(QStringLiteral("o2"))];
        ++referees[rangeReferees(owners, 0, seed * 0x9e37'79b9ULL).at(QStringLiteral("o2"))];
    }
    EXPECT_FALSE(checks.contains(QStringLiteral("o2")));
    EXPECT_FALSE(referees.contains(QStringLiteral("o2")));
    for (const QString other : {QStringLiteral("o0"), QStringLiteral("o1"), QStringLiteral("o3"), QStringLiteral("o4")}) {
        EXPECT_NEAR(double(checks[other]) / kDraws, 0.25, 0.01) << other.toStdString();
        EXPECT_NEAR(double(referees[other]) / kDraws, 0.25, 0.01) << other.toStdString();
    }
}

TEST(RangeCheckersTest, TwoOwnersHaveNoReferee)
{
    EXPECT_TRUE(rangeReferees({{QStringLiteral("a"), 0}, {QStringLiteral("b"), 5}}, 4).empty());
    EXPECT_TRUE(rangeReferees({{QStringLiteral("a"), 0}}, 4).empty());
}

// How often a coalition holding c of n owners controls a check (issue 43; hosting.md, "Range
// checks and colluders"), by simulating the selection. The coalition holds the first c ranges:
// identities that joined one after another, the placement the rotation by round favoured. The
// pairs are drawn from 20,000 seeds:
//  - it decides one of its own ranges when that range's checker is another of its members:
//    (c - 1) / (n - 1) of its ranges' rounds;
//  - where the referee checks every average too, only when the referee is one of theirs as well:
//    (c - 1) (c - 2) / ((n - 1) (n - 2));
//  - it can frame an honest owner when that range's checker and referee are both its members:
//    c (c - 1) / ((n - 1) (n - 2)) of the honest ranges' rounds.
// The measured frequencies must match these: the first within half a percentage point, the
// others within 5% of themselves and 0.2 points. The rotation by round (seed 0), over one whole
// turn, lets the same coalition hold both partners of its own ranges at least 1.5 times as often
// (c >= 3): why the pairs are drawn.
TEST(RangeCheckersTest, ACoalitionControlsChecksAsOftenAsTheTableInTheHostingDocsSays)
{
    constexpr quint64 kDraws = 20'000;
    for (const int n : {10, 30}) {
        for (const double f : {0.1, 0.2, 0.33}) {
            const int c = int(std::lround(f * n));
            std::vector<RangeOwner> owners;
            std::set<QString> coalition;
            for (int i = 0; i < n; ++i) {
                owners.push_back({QStringLiteral("o%1").arg(i), qint64(i) * 100});
                if (i < c)
                    coalition.insert(owners.back().keyId);
            }
            struct Counts {
                qint64 ownRounds = 0, decided = 0, decidedChecked = 0, honestRounds = 0, framable = 0;
            };
            const auto count = [&](Counts &counts, qint64 round, quint64 seed) {
                const std::map<QString, QString> checkers = rangeCheckers(owners, round, seed);
                const std::map<QString, QString> referees = rangeReferees(owners, round, seed);
                for (const RangeOwner &owner : owners) {
                    const bool checkedByUs = coalition.contains(checkers.at(owner.keyId));
                    const bool bothOurs = checkedByUs && coalition.contains(referees.at(owner.keyId));
                    if (coalition.contains(owner.keyId)) {
                        ++counts.ownRounds;
                        counts.decided += checkedByUs;
                        counts.decidedChecked += bothOurs;
                    } else {
                        ++counts.honestRounds;
                        counts.framable += bothOurs;
                    }
                }
            };
            Counts drawn, rotated;
            for (quint64 draw = 1; draw <= kDraws; ++draw)
                count(drawn, 0, draw * 0x2545'f491'4f6c'dd1dULL);
            for (qint64 round = 0; round < n - 1; ++round)
                count(rotated, round, 0);
            const auto share = [](qint64 part, qint64 whole) { return whole > 0 ? double(part) / double(whole) : 0.0; };
            const double decideExpected = c > 0 ? double(c - 1) / (n - 1) : 0.0;
            const double frameExpected = double(c) * (c - 1) / (double(n - 1) * (n - 2));
            const double bothExpected = c > 2 ? double(c - 1) * (c - 2) / (double(n - 1) * (n - 2)) : 0.0;
            const double decideMeasured = share(drawn.decided, drawn.ownRounds);
            const double bothMeasured = share(drawn.decidedChecked, drawn.ownRounds);
            const double frameMeasured = share(drawn.framable, drawn.honestRounds);
            const double bothRotated = share(rotated.decidedChecked, rotated.ownRounds);
            std::cout << "n=" << n << " f=" << f << " c=" << c << ": decides its own range " << decideMeasured << " ("
                      << decideExpected << "), with the referee checking too " << bothMeasured << " (" << bothExpected
                      << "; rotated " << bothRotated << "), checks and referees an honest range " << frameMeasured
                      << " (" << frameExpected << ")" << std::endl;
            EXPECT_NEAR(decideMeasured, decideExpected, 0.005) << "n=" << n << " c=" << c;
            EXPECT_NEAR(frameMeasured, frameExpected, 0.002 + 0.05 * frameExpected) << "n=" << n << " c=" << c;
            EXPECT_NEAR(bothMeasured, bothExpected, 0.002 + 0.05 * bothExpected) << "n=" << n << " c=" << c;
            if (c >= 3)
                EXPECT_GE(bothRotated, 1.5 * bothExpected) << "n=" << n << " c=" << c;
        }
    }
}
