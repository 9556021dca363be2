#include "LinkBook.h"
#include "SqlCoordinatorStore.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

PeerRecord peer(const QString &keyId, bool reachable)
{
    PeerRecord p;
    p.keyId = keyId;
    p.publicKey = QByteArray(32, keyId.at(0).toLatin1());
    p.reachable = reachable;
    p.endpoint = reachable ? QStringLiteral("127.0.1.%1:7000").arg(keyId.at(0).unicode()) : QString();
    return p;
}

QStringList idsOf(const std::vector<ProbePeerInfo> &peers)
{
    QStringList ids;
    for (const ProbePeerInfo &p : peers)
        ids.append(p.peerId);
    ids.sort();
    return ids;
}

class LinkBookTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        store = SqlCoordinatorStore::openSqlite(dir.path() / "c.db").value();
        book = std::make_unique<LinkBook>(*store, options());
        book->setOnlinePeers({peer(QStringLiteral("a"), true), peer(QStringLiteral("b"), true),
                              peer(QStringLiteral("c"), false), peer(QStringLiteral("d"), false)},
                             0);
    }

    static LinkBookOptions options()
    {
        LinkBookOptions o;
        o.probePeersPerHeartbeat = 8;
        o.pairTtlMs = 10'000;
        o.refreshAfterMs = 60'000;
        return o;
    }

    TempDir dir;
    std::unique_ptr<SqlCoordinatorStore> store;
    std::unique_ptr<LinkBook> book;
};

} // namespace

TEST_F(LinkBookTest, PartnersHearOfEachOtherAndTwoOutboundOnlyPeersAreNeverPaired)
{
    const std::vector<ProbePeerInfo> forA = book->probePeers(peer(QStringLiteral("a"), true), 1000);
    EXPECT_EQ(idsOf(forA), (QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
    const auto c = std::find_if(forA.begin(), forA.end(), [](const ProbePeerInfo &p) { return p.peerId == u'c'; });
    EXPECT_TRUE(c->endpoint.isEmpty()) << "c only dials out: a accepts its probes, it cannot dial c";
    EXPECT_EQ(c->publicKey, QByteArray(32, 'c'));

    // c hears of a (who was given c), and gets b; never d, since neither could dial the other.
    EXPECT_EQ(idsOf(book->probePeers(peer(QStringLiteral("c"), false), 2000)),
              (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
}

TEST_F(LinkBookTest, AMeasuredLinkEndsThePartnershipForThatSideAndIsNotProbedAgainSoon)
{
    (void)book->probePeers(peer(QStringLiteral("a"), true), 1000);
    ASSERT_TRUE(book->record(QStringLiteral("a"), {{QStringLiteral("b"), 10.0, 5e6}}, 2000).ok());
    const QStringList again = idsOf(book->probePeers(peer(QStringLiteral("a"), true), 3000));
    EXPECT_FALSE(again.contains(QStringLiteral("b"))) << "a measured b since they were paired";
    EXPECT_TRUE(again.contains(QStringLiteral("c")));
    EXPECT_TRUE(idsOf(book->probePeers(peer(QStringLiteral("b"), true), 3000)).contains(QStringLiteral("a")))
        << "b has not measured a yet";
    // After the partnership expired, the fresh link keeps a and b apart.
    EXPECT_FALSE(idsOf(book->probePeers(peer(QStringLiteral("a"), true), 20'000)).contains(QStringLiteral("b")));
}

TEST_F(LinkBookTest, ReportsAreBlendedKeptAndBoundedToOnlinePeers)
{
    ASSERT_TRUE(book->record(QStringLiteral("a"),
                             {{QStringLiteral("b"), 10.0, 4e6}, {QStringLiteral("a"), 1.0, 1e12},
                              {QStringLiteral("stranger"), 1.0, 1e12}, {QStringLiteral("b"), 99.0, 1.0}},
                             1000)
                    .ok());
    ASSERT_TRUE(book->record(QStringLiteral("a"), {{QStringLiteral("b"), 30.0, 2e6}}, 2000).ok());
    const std::vector<LinkRecord> stored = store->links(0).value();
    ASSERT_EQ(stored.size(), 1u) << "a's link to itself, to a stranger and a second b in one heartbeat are dropped";
    EXPECT_DOUBLE_EQ(stored[0].rttMs, 20.0) << "half the new, half the old";
    EXPECT_DOUBLE_EQ(stored[0].bytesPerSecond, 3e6);

    LinkBook restarted(*store, options());
    ASSERT_TRUE(restarted.load(3000).ok());
    const LinkMatrix matrix = restarted.matrix({QStringLiteral("a"), QStringLiteral("b")}, 3000);
    EXPECT_TRUE(matrix.at(0, 1).measured) << "a restarted coordinator keeps the links";
    EXPECT_DOUBLE_EQ(matrix.at(0, 1).bytesPerSecond, 3e6);
}

TEST_F(LinkBookTest, UploadBandwidthsAreWhatTheMatrixSaysWithoutBuildingIt)
{
    ASSERT_TRUE(book->record(QStringLiteral("a"), {{QStringLiteral("b"), 1.0, 8e6}, {QStringLiteral("c"), 1.0, 6e6}}, 1000)
                    .ok());
    ASSERT_TRUE(book->record(QStringLiteral("c"), {{QStringLiteral("a"), 1.0, 1e6}}, 1000).ok());
    const std::vector<QString> peers = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                                        QStringLiteral("d")};
    const std::vector<double> bandwidths = book->uploadBandwidths(peers, 2000);
    const LinkMatrix matrix = book->matrix(peers, 2000);
    ASSERT_EQ(bandwidths.size(), 4u);
    for (int i = 0; i < 4; ++i)
        EXPECT_DOUBLE_EQ(bandwidths[std::size_t(i)], matrix.peerBandwidth(i).value_or(0.0)) << i;
    EXPECT_DOUBLE_EQ(bandwidths[0], 8e6) << "a's uploads: 6 and 8 MB/s, the upper middle";
    EXPECT_DOUBLE_EQ(bandwidths[1], 8e6) << "b uploaded nothing: what it received";
    EXPECT_DOUBLE_EQ(bandwidths[3], 0.0) << "nothing known of d";
}
