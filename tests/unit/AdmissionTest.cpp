#include "Admission.h"
#include "CoordinatorRounds.h"
#include "WorkAccounting.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

PeerRecord peerAt(const QString &address)
{
    PeerRecord peer;
    peer.address = address;
    return peer;
}

} // namespace

TEST(AdmissionTest, SubnetsAreSlash24AndSlash64AndMappedAddressesAreIpv4)
{
    EXPECT_EQ(admission::subnetOf(QHostAddress(QStringLiteral("203.0.113.77"))), QStringLiteral("203.0.113.0/24"));
    EXPECT_EQ(admission::subnetOf(QHostAddress(QStringLiteral("::ffff:203.0.113.77"))), QStringLiteral("203.0.113.0/24"));
    EXPECT_EQ(admission::subnetOf(QHostAddress(QStringLiteral("2001:db8:1:2:3:4:5:6"))), QStringLiteral("2001:db8:1:2::/64"));
    EXPECT_EQ(admission::normalized(QHostAddress(QStringLiteral("::ffff:10.0.0.1"))), QHostAddress(QStringLiteral("10.0.0.1")));
}

TEST(AdmissionTest, LimitsCountTheAddressAndTheSubnet)
{
    TrustSettings settings;
    settings.maxPeersPerAddress = 2;
    settings.maxPeersPerSubnet = 3;
    const QHostAddress from(QStringLiteral("198.51.100.9"));
    EXPECT_TRUE(admission::checkAddressLimits(settings, from, {peerAt(QStringLiteral("198.51.100.9"))}).ok());
    EXPECT_FALSE(admission::checkAddressLimits(
        settings, from, {peerAt(QStringLiteral("198.51.100.9")), peerAt(QStringLiteral("::ffff:198.51.100.9"))}).ok());
    EXPECT_FALSE(admission::checkAddressLimits(settings, from,
                                               {peerAt(QStringLiteral("198.51.100.1")), peerAt(QStringLiteral("198.51.100.2")),
                                                peerAt(QStringLiteral("198.51.100.3"))})
                     .ok());
    EXPECT_TRUE(admission::checkAddressLimits(settings, from,
                                              {peerAt(QStringLiteral("198.51.101.1")), peerAt(QStringLiteral("198.51.101.2")),
                                               peerAt(QStringLiteral("198.51.101.3"))})
                    .ok());
    settings.maxPeersPerAddress = settings.maxPeersPerSubnet = 0;
    EXPECT_TRUE(admission::checkAddressLimits(settings, from, std::vector<PeerRecord>(100, peerAt(QStringLiteral("198.51.100.9")))).ok());
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
