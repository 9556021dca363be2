#include "OwnerDisputes.h"
#include "RangeCheckers.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// Owners o0..o{n-1} with ranges in that order, and probation members p0..p{probation-1}.
RoundRecord roundWith(qint64 number, int owners, int probation = 0)
{
    RoundRecord round;
    round.number = number;
    for (int i = 0; i < owners; ++i)
        round.members.push_back({QStringLiteral("o%1").arg(i), true, 100 * i, 100 * (i + 1)});
    for (int i = 0; i < probation; ++i)
        round.members.push_back({QStringLiteral("p%1").arg(i), false, 0, 0, true});
    return round;
}

UpdateReportRecord dispute(const QString &reporter, const QString &disputed, qint64 round = 0)
{
    return {round, 0, reporter, disputed, QStringLiteral("disputed")};
}

} // namespace

TEST(CoordinatorOwnerDisputesTest, ProbationMembersAreNoOnesPartner)
{
    const std::map<QString, QString> checkers = rangeCheckersOf(roundWith(0, 3, 2));
    ASSERT_EQ(checkers.size(), 3u);
    for (const auto &[owner, checker] : checkers) {
        EXPECT_TRUE(owner.startsWith(QLatin1Char('o'))) << owner.toStdString();
        EXPECT_TRUE(checker.startsWith(QLatin1Char('o'))) << checker.toStdString();
    }
    EXPECT_TRUE(rangeCheckersOf(roundWith(0, 1, 3)).empty()) << "one owner has no one to check it";
}

TEST(CoordinatorOwnerDisputesTest, OnlyADisputeOfTheReportersPartnerCounts)
{
    const RoundRecord round = roundWith(0, 5, 1);
    // Round 0 of five owners: o1 checks o0, o0 checks o4, and o0 referees o3's range, which o4
    // checks; o2 has nothing to do with o0 (it referees o0's range: it may dispute o0, not the
    // other way round).
    ASSERT_EQ(rangeCheckersOf(round).at(QStringLiteral("o0")), QStringLiteral("o1"));
    ASSERT_EQ(rangeCheckersOf(round).at(QStringLiteral("o4")), QStringLiteral("o0"));
    ASSERT_EQ(rangeRefereesOf(round).at(QStringLiteral("o3")), QStringLiteral("o0"));
    ASSERT_EQ(rangeCheckersOf(round).at(QStringLiteral("o3")), QStringLiteral("o4"));
    ASSERT_EQ(rangeRefereesOf(round).at(QStringLiteral("o0")), QStringLiteral("o2"));
    const std::vector<UpdateReportRecord> kept = admissibleDisputes(
        round, QStringLiteral("o0"),
        {QStringLiteral("o1"), QStringLiteral("o2"), QStringLiteral("o3"), QStringLiteral("o4"), QStringLiteral("o0"),
         QStringLiteral("p0"), QStringLiteral("stranger")});
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_EQ(kept[0].senderKeyId, QStringLiteral("o1"));
    EXPECT_EQ(kept[1].senderKeyId, QStringLiteral("o3"));
    EXPECT_EQ(kept[2].senderKeyId, QStringLiteral("o4"));
    ASSERT_EQ(admissibleDisputes(round, QStringLiteral("o2"), {QStringLiteral("o0"), QStringLiteral("o1")}).size(), 2u)
        << "the referee of o0's range disputes its owner or its checker";
    for (const UpdateReportRecord &report : kept) {
        EXPECT_EQ(report.reporterKeyId, QStringLiteral("o0"));
        EXPECT_EQ(report.kind, QStringLiteral("disputed"));
        EXPECT_EQ(report.round, 0);
    }
    EXPECT_TRUE(admissibleDisputes(round, QStringLiteral("p0"), {QStringLiteral("o0")}).empty())
        << "a member without a range checks no one";
}

// The client's behaviour over rounds: the liar's checker disputes it, and the liar disputes its
// checker and the owner it checks back. Only the liar is found, from the second round on.
TEST(CoordinatorOwnerDisputesTest, TheLiarIsFoundOnceTwoPartnersDisputedItAndNoHonestOwnerIs)
{
    const QString liar = QStringLiteral("o2");
    std::vector<UpdateReportRecord> disputes;
    for (qint64 number = 0; number < 4; ++number) {
        const RoundRecord round = roundWith(number, 5);
        const std::map<QString, QString> checkers = rangeCheckersOf(round);
        const QString checker = checkers.at(liar);
        disputes.push_back(dispute(checker, liar, number));
        for (const auto &[owner, itsChecker] : checkers) {
            if (itsChecker == liar || owner == liar) {
                for (const UpdateReportRecord &accusation : admissibleDisputes(round, liar, {owner, itsChecker}))
                    disputes.push_back(accusation);
            }
        }
        const std::map<QString, std::size_t> found = lyingOwners(disputes);
        if (number == 0) {
            // Round 0 of five owners: o3 checks o2, and o2 checks o1, which it disputes too.
            EXPECT_EQ(found, (std::map<QString, std::size_t>{{liar, 2}})) << "two partners in one round";
        } else {
            ASSERT_EQ(found.size(), 1u) << "round " << number;
            EXPECT_GE(found.at(liar), 2u);
        }
    }
    EXPECT_EQ(lyingOwners(disputes).at(liar), 4u) << "every other owner was its partner once";
}

TEST(CoordinatorOwnerDisputesTest, NoOneLeadsWithoutMorePartnersThanEachOfItsOwn)
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c"), d = QStringLiteral("d");
    EXPECT_TRUE(lyingOwners({dispute(a, b)}).empty()) << "one dispute cannot say who lied";
    EXPECT_TRUE(lyingOwners({dispute(a, b), dispute(b, a), dispute(a, b, 3)}).empty()) << "the same pair again";
    EXPECT_TRUE(lyingOwners({dispute(a, b), dispute(c, d)}).empty());
    EXPECT_TRUE(lyingOwners({dispute(a, b), dispute(b, c), dispute(c, a)}).empty()) << "a tie names no one";
    EXPECT_TRUE(lyingOwners({dispute(a, a), dispute(a, a, 1)}).empty());
    const std::map<QString, std::size_t> chain = lyingOwners({dispute(a, b), dispute(c, b, 1)});
    EXPECT_EQ(chain, (std::map<QString, std::size_t>{{b, 2}})) << "who reported whom does not matter";
    // b has three partners, but a, which b disputed among others, has as many.
    EXPECT_TRUE(lyingOwners({dispute(a, b), dispute(c, b), dispute(d, b), dispute(a, c), dispute(a, d)}).empty());
}

// The client's behaviour with a referee: a lying owner is disputed in one round by its checker
// and by the referee that confirmed the checker, and is named at once. A referee that accuses
// the two partners of a range it referees (no dispute needed) names itself.
TEST(CoordinatorOwnerDisputesTest, ALyingOwnerIsNamedInItsFirstRoundByItsCheckerAndItsReferee)
{
    const RoundRecord round = roundWith(3, 4);
    const QString liar = QStringLiteral("o1");
    const QString checker = rangeCheckersOf(round).at(liar), referee = rangeRefereesOf(round).at(liar);
    std::vector<UpdateReportRecord> disputes = admissibleDisputes(round, checker, {liar});
    for (const UpdateReportRecord &report : admissibleDisputes(round, referee, {liar}))
        disputes.push_back(report);
    ASSERT_EQ(disputes.size(), 2u);
    EXPECT_EQ(lyingOwners(disputes), (std::map<QString, std::size_t>{{liar, 2}}));

    const QString lyingReferee = rangeRefereesOf(round).at(QStringLiteral("o0"));
    const std::vector<UpdateReportRecord> accusations =
        admissibleDisputes(round, lyingReferee, {QStringLiteral("o0"), rangeCheckersOf(round).at(QStringLiteral("o0"))});
    ASSERT_EQ(accusations.size(), 2u);
    EXPECT_EQ(lyingOwners(accusations), (std::map<QString, std::size_t>{{lyingReferee, 2}}));
}

// An owner whose evidence the coordinator upheld (issue 43): the disputes of it that round count
// for nothing, and those it made count against the peers it disputed only. Otherwise an honest
// owner whose lying checkers change each round would be the one with most partners.
TEST(CoordinatorOwnerDisputesTest, AnOwnerWhoseEvidenceHeldIsNotTheOneItsLyingCheckersName)
{
    const QString h = QStringLiteral("h"), c1 = QStringLiteral("c1"), c2 = QStringLiteral("c2"), c3 = QStringLiteral("c3"),
                  r = QStringLiteral("r");
    std::vector<UpdateReportRecord> disputes;
    for (const auto &[checker, round] : {std::pair{c1, 1}, std::pair{c2, 2}, std::pair{c3, 3}}) {
        disputes.push_back(dispute(checker, h, round));
        disputes.push_back(dispute(h, checker, round));
    }
    const std::map<QString, std::size_t> hub{{h, 3}};
    EXPECT_EQ(lyingOwners(disputes), hub) << "without its evidence";
    EXPECT_TRUE(lyingOwners(disputes, {{1, 0, h}, {2, 0, h}, {3, 0, h}}).empty());
    EXPECT_EQ(lyingOwners(disputes, {{1, 1, h}, {2, 1, h}, {3, 1, h}}), hub) << "a ruling of another attempt";
    // A referee that found c1's average wrong too: c1 has two partners, h none.
    disputes.push_back(dispute(r, c1, 1));
    EXPECT_EQ(lyingOwners(disputes, {{1, 0, h}, {2, 0, h}, {3, 0, h}}), (std::map<QString, std::size_t>{{c1, 2}}));
}
