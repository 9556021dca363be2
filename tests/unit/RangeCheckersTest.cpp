#include "RangeCheckers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <set>

using namespace swarmtrain;

namespace {

std::vector<RangeOwner> fourOwners()
{
    // Out of range order on purpose: pairs follow the ranges, not the list.
    return {{QStringLiteral("c"), 200}, {QStringLiteral("a"), 0}, {QStringLiteral("d"), 300}, {QStringLiteral("b"), 100}};
}

} // namespace

TEST(RangeCheckersTest, NoOwnerChecksItselfAndEveryOwnerChecksExactlyOneRange)
{
    for (qint64 round = 0; round < 7; ++round) {
        const std::map<QString, QString> checkers = rangeCheckers(fourOwners(), round);
        ASSERT_EQ(checkers.size(), 4u);
        std::set<QString> checking;
        for (const auto &[owner, checker] : checkers) {
            EXPECT_NE(owner, checker) << "round " << round;
            checking.insert(checker);
        }
        EXPECT_EQ(checking.size(), 4u) << "round " << round;
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
            const std::map<QString, QString> checkers = rangeCheckers(list, round), referees = rangeReferees(list, round);
            ASSERT_EQ(referees.size(), std::size_t(owners));
            std::set<QString> refereeing;
            for (const auto &[owner, referee] : referees) {
                EXPECT_NE(referee, owner) << owners << " owners, round " << round;
                EXPECT_NE(referee, checkers.at(owner)) << owners << " owners, round " << round;
                refereeing.insert(referee);
            }
            EXPECT_EQ(refereeing.size(), std::size_t(owners)) << owners << " owners, round " << round;
        }
    }
}

TEST(RangeCheckersTest, TwoOwnersHaveNoReferee)
{
    EXPECT_TRUE(rangeReferees({{QStringLiteral("a"), 0}, {QStringLiteral("b"), 5}}, 4).empty());
    EXPECT_TRUE(rangeReferees({{QStringLiteral("a"), 0}}, 4).empty());
}

// How often a coalition holding c of n owners controls a check (issue 43; hosting.md, "Range
// checks and colluders"), by simulating the selection over random placements of the coalition
// in range order (1,000) and n - 1 rounds each (one whole rotation):
//  - it decides one of its own ranges when that range's checker is another of its members:
//    (c - 1) / (n - 1) of its ranges' rounds;
//  - it can frame an honest owner when that range's checker and referee are both its members:
//    c (c - 1) / ((n - 1) (n - 2)) of the honest ranges' rounds, on average over placements.
// The measured frequencies must match these: the first within half a percentage point, the
// second within 5% of itself and 0.2 points.
TEST(RangeCheckersTest, ACoalitionControlsChecksAsOftenAsTheTableInTheHostingDocsSays)
{
    std::mt19937 random(43);
    for (const int n : {10, 30}) {
        for (const double f : {0.1, 0.2, 0.33}) {
            const int c = int(std::lround(f * n));
            std::vector<RangeOwner> owners;
            for (int i = 0; i < n; ++i)
                owners.push_back({QStringLiteral("o%1").arg(i), qint64(i) * 100});
            qint64 ownRounds = 0, decided = 0, decidedChecked = 0, honestRounds = 0, framable = 0;
            for (int placement = 0; placement < 1000; ++placement) {
                std::vector<int> order(static_cast<std::size_t>(n), 0);
                std::iota(order.begin(), order.end(), 0);
                std::shuffle(order.begin(), order.end(), random);
                std::set<QString> coalition;
                for (int k = 0; k < c; ++k)
                    coalition.insert(QStringLiteral("o%1").arg(order[std::size_t(k)]));
                for (qint64 round = 0; round < n - 1; ++round) {
                    const std::map<QString, QString> checkers = rangeCheckers(owners, round);
                    const std::map<QString, QString> referees = rangeReferees(owners, round);
                    for (const RangeOwner &owner : owners) {
                        const bool checkedByUs = coalition.contains(checkers.at(owner.keyId));
                        if (coalition.contains(owner.keyId)) {
                            ++ownRounds;
                            decided += checkedByUs;
                            // Where the referee checks too (the coordinator rules), both must be theirs.
                            decidedChecked += checkedByUs && coalition.contains(referees.at(owner.keyId));
                        } else {
                            ++honestRounds;
                            framable += checkedByUs && coalition.contains(referees.at(owner.keyId));
                        }
                    }
                }
            }
            const double decideExpected = c > 0 ? double(c - 1) / (n - 1) : 0.0;
            const double frameExpected = double(c) * (c - 1) / (double(n - 1) * (n - 2));
            const double bothExpected = c > 2 ? double(c - 1) * (c - 2) / (double(n - 1) * (n - 2)) : 0.0;
            const double decideMeasured = ownRounds > 0 ? double(decided) / double(ownRounds) : 0.0;
            const double bothMeasured = ownRounds > 0 ? double(decidedChecked) / double(ownRounds) : 0.0;
            const double frameMeasured = double(framable) / double(honestRounds);
            std::cout << "n=" << n << " f=" << f << " c=" << c << ": decides its own range " << decideMeasured << " ("
                      << decideExpected << "), with the referee checking too " << bothMeasured << " (" << bothExpected
                      << "), checks and referees an honest range " << frameMeasured << " (" << frameExpected << ")" << std::endl;
            EXPECT_NEAR(decideMeasured, decideExpected, 0.005) << "n=" << n << " c=" << c;
            EXPECT_NEAR(frameMeasured, frameExpected, 0.002 + 0.05 * frameExpected) << "n=" << n << " c=" << c;
            EXPECT_NEAR(bothMeasured, bothExpected, 0.002 + 0.05 * bothExpected) << "n=" << n << " c=" << c;
        }
    }
}
