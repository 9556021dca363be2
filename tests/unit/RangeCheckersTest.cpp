#include "RangeCheckers.h"

#include <gtest/gtest.h>

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
