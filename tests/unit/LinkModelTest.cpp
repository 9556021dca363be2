#include "LinkModel.h"

#include <gtest/gtest.h>

using namespace swarmtrain::test;

namespace {

const QHostAddress kHomeA(QStringLiteral("127.0.1.1"));
const QHostAddress kHomeB(QStringLiteral("127.0.1.2"));
const QHostAddress kOffice(QStringLiteral("127.0.1.3"));
const QHostAddress kStranger(QStringLiteral("127.0.1.99"));

LinkModel twoSites()
{
    LinkModel model;
    model.setSite(kHomeA, QStringLiteral("home"));
    model.setSite(kHomeB, QStringLiteral("home"));
    model.setSite(kOffice, QStringLiteral("office"));
    model.setLink(QStringLiteral("home"), QStringLiteral("home"), {1, 100'000'000});
    model.setLink(QStringLiteral("office"), QStringLiteral("home"), {40, 1'000'000});
    return model;
}

TEST(LinkModel, SameSitePairsGetTheSiteLink)
{
    EXPECT_EQ(twoSites().shapeBetween(kHomeA, kHomeB), (LinkShape{1, 100'000'000}));
}

TEST(LinkModel, LinksAreSymmetric)
{
    const LinkModel model = twoSites();
    EXPECT_EQ(model.shapeBetween(kHomeA, kOffice), (LinkShape{40, 1'000'000}));
    EXPECT_EQ(model.shapeBetween(kOffice, kHomeB), (LinkShape{40, 1'000'000}));
}

TEST(LinkModel, UnknownAddressesAndUnlinkedSitesGetTheDefault)
{
    LinkModel model = twoSites();
    EXPECT_EQ(model.shapeBetween(kStranger, kHomeA), LinkShape{});
    EXPECT_EQ(model.shapeBetween(kOffice, kOffice), LinkShape{}); // no office-office link was set
    model.setDefaultShape({25, 500});
    EXPECT_EQ(model.shapeBetween(kHomeA, kStranger), (LinkShape{25, 500}));
    EXPECT_EQ(model.siteOf(kStranger), QString());
}

TEST(LinkModel, IPv4MappedAddressesAreTheirIPv4Selves)
{
    const LinkModel model = twoSites();
    EXPECT_EQ(model.siteOf(QHostAddress(QStringLiteral("::ffff:127.0.1.3"))), QStringLiteral("office"));
}

TEST(LinkModel, ASiteCanBeReassigned)
{
    LinkModel model = twoSites();
    model.setSite(kHomeB, QStringLiteral("office"));
    EXPECT_EQ(model.shapeBetween(kHomeA, kHomeB), (LinkShape{40, 1'000'000}));
}

} // namespace
