#include "Admission.h"
#include "CoordinatorRounds.h"
#include "WorkAccounting.h"

#include <gtest/gtest.h>

using namespace swarmtrain;


TEST(AdmissionTest, SubnetsAreSlash24AndSlash64AndMappedAddressesAreIpv4)
{
    EXPECT_EQ(subnetOf(QHostAddress(QStringLiteral("203.0.113.77"))), QStringLiteral("203.0.113.0/24"));
    EXPECT_EQ(subnetOf(QHostAddress(QStringLiteral("::ffff:203.0.113.77"))), QStringLiteral("203.0.113.0/24"));
    EXPECT_EQ(subnetOf(QHostAddress(QStringLiteral("2001:db8:1:2:3:4:5:6"))), QStringLiteral("2001:db8:1:2::/64"));
    EXPECT_EQ(normalizedAddress(QHostAddress(QStringLiteral("::ffff:10.0.0.1"))), QHostAddress(QStringLiteral("10.0.0.1")));
    EXPECT_EQ(subnetOf(QHostAddress()), QString());
}

TEST(AdmissionTest, LimitsCountTheAddressAndTheSubnet)
{
    TrustSettings settings;
    settings.maxPeersPerAddress = 2;
    settings.maxPeersPerSubnet = 3;
    const QHostAddress from(QStringLiteral("198.51.100.9"));
    EXPECT_TRUE(admission::checkAddressLimits(settings, from, {1, 1}).ok());
    Result<void> address = admission::checkAddressLimits(settings, from, {2, 2});
    ASSERT_FALSE(address.ok());
    EXPECT_EQ(address.error().message,
              "2 identities from 198.51.100.9 are online already, the most this swarm allows from one address");
    Result<void> subnet = admission::checkAddressLimits(settings, from, {0, 3});
    ASSERT_FALSE(subnet.ok());
    EXPECT_EQ(subnet.error().message,
              "3 identities from 198.51.100.0/24 are online already, the most this swarm allows from one subnet");
    settings.maxPeersPerAddress = settings.maxPeersPerSubnet = 0;
    EXPECT_TRUE(admission::checkAddressLimits(settings, from, {100, 100}).ok());
}

TEST(AdmissionTest, InviteAndAllowlist)
{
    TrustSettings settings;
    EXPECT_TRUE(admission::checkAdmission(settings, QStringLiteral("k"), QString()).ok());
    settings.admission = Admission::Invite;
    EXPECT_FALSE(admission::checkAdmission(settings, QStringLiteral("k"), QString()).ok()) << "no token made yet";
    settings.inviteToken = QStringLiteral("abc123");
    EXPECT_FALSE(admission::checkAdmission(settings, QStringLiteral("k"), QStringLiteral("abc124")).ok());
    EXPECT_FALSE(admission::checkAdmission(settings, QStringLiteral("k"), QStringLiteral("abc12")).ok());
    EXPECT_TRUE(admission::checkAdmission(settings, QStringLiteral("k"), QStringLiteral("abc123")).ok());
    settings.admission = Admission::Allowlist;
    settings.allowedKeys = {QStringLiteral("k")};
    EXPECT_TRUE(admission::checkAdmission(settings, QStringLiteral("k"), QString()).ok());
    EXPECT_FALSE(admission::checkAdmission(settings, QStringLiteral("j"), QString()).ok());
}

TEST(AdmissionTest, AnEndpointMustBeOnTheRequestsAddress)
{
    const QHostAddress from(QStringLiteral("::ffff:192.0.2.4"));
    EXPECT_TRUE(admission::checkEndpointHost(QStringLiteral("192.0.2.4"), from).ok());
    EXPECT_FALSE(admission::checkEndpointHost(QStringLiteral("192.0.2.5"), from).ok());
    EXPECT_FALSE(admission::checkEndpointHost(QStringLiteral("victim.example"), from).ok());
}

TEST(AdmissionTest, AClaimMustFitTheRoundsWork)
{
    const RoundWork work{1000, 1e6};
    ContributionRecord claim;
    claim.tokens = 1000;
    claim.flops = 3e9;
    claim.seconds = 3;
    claim.loss = 2;
    EXPECT_TRUE(work.checkClaim(claim).ok());
    for (auto lie : std::vector<std::function<void(ContributionRecord &)>>{
             [](ContributionRecord &c) { c.tokens = 1001; }, [](ContributionRecord &c) { c.tokens = 0; },
             [](ContributionRecord &c) { c.flops = 5e9 * 1000; }, [](ContributionRecord &c) { c.loss = std::nan(""); },
             [](ContributionRecord &c) { c.seconds = -1; }}) {
        ContributionRecord lied = claim;
        lie(lied);
        EXPECT_FALSE(work.checkClaim(lied).ok());
    }
    // A time-budgeted round: up to the cap's tokens (credited only as the steps admitted).
    const RoundWork budgeted{1000, 1e6, 4000};
    claim.tokens = 4000;
    EXPECT_TRUE(budgeted.checkClaim(claim).ok());
    claim.tokens = 4001;
    EXPECT_FALSE(budgeted.checkClaim(claim).ok());
}

TEST(AdmissionTest, AWeightedMajorityNeedsMoreThanHalfTheWeight)
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b");
    EXPECT_EQ(CoordinatorRounds::weightedMajority({{a, 10.0}, {b, 1.0}, {b, 1.0}, {b, 1.0}}), a);
    EXPECT_EQ(CoordinatorRounds::weightedMajority({{a, 5.0}, {b, 5.0}}), std::nullopt);
    EXPECT_EQ(CoordinatorRounds::weightedMajority({}), std::nullopt);
}
