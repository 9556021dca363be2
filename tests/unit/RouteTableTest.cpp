#include "FileDownload.h"
#include "RouteTable.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

Route route(QHttpServerRequest::Method method, const char *path)
{
    return {method, QString::fromLatin1(path), RouteAccess::Public, RouteBody::None, [] { return qint64(0); }, {}, {}};
}

} // namespace

TEST(RouteTableTest, AnExactPathMatchesOnlyItselfAndItsMethod)
{
    RouteTable routes;
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/status"));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/checkpoint"));
    routes.add(route(QHttpServerRequest::Method::Post, "/v1/checkpoint"));

    const RouteTable::Match status = routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/status"));
    ASSERT_NE(status.route, nullptr);
    EXPECT_EQ(status.route->path, QStringLiteral("/v1/status"));
    const RouteTable::Match upload = routes.match(QHttpServerRequest::Method::Post, QStringLiteral("/v1/checkpoint"));
    ASSERT_NE(upload.route, nullptr);
    EXPECT_EQ(upload.route->method, QHttpServerRequest::Method::Post) << "the same path, the route of its method";

    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Post, QStringLiteral("/v1/status")).status, 405);
    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/statusx")).status, 404);
    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/status/")).status, 404);
}

TEST(RouteTableTest, APrefixRouteHandsOnWhatFollowsAndNeedsSomething)
{
    RouteTable routes;
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/shards/"));
    const RouteTable::Match shard = routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/shards/000003"));
    ASSERT_NE(shard.route, nullptr);
    EXPECT_EQ(shard.pathTail, QStringLiteral("000003"));
    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/shards/")).status, 404);
    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Delete, QStringLiteral("/v1/shards/1")).status, 405);
}

// The status page's "/" is the root alone: were it a prefix, it would answer every path after it.
TEST(RouteTableTest, TheRootPathIsExactNotAPrefixOfEveryPath)
{
    RouteTable routes;
    routes.add(route(QHttpServerRequest::Method::Get, "/"));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/round/commitments"));
    const RouteTable::Match root = routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/"));
    ASSERT_NE(root.route, nullptr);
    EXPECT_EQ(root.route->path, QStringLiteral("/"));
    const RouteTable::Match commitments = routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/v1/round/commitments"));
    ASSERT_NE(commitments.route, nullptr);
    EXPECT_EQ(commitments.route->path, QStringLiteral("/v1/round/commitments"));
    EXPECT_EQ(routes.match(QHttpServerRequest::Method::Get, QStringLiteral("/index.html")).status, 404);
}

TEST(FileDownloadTest, ByteRangesAreReadStrictly)
{
    qint64 begin = 0, end = 0;
    ASSERT_TRUE(parseByteRange("bytes=100-", 1000, begin, end));
    EXPECT_EQ(begin, 100);
    EXPECT_EQ(end, 1000);
    ASSERT_TRUE(parseByteRange("bytes=10-19", 1000, begin, end));
    EXPECT_EQ(end, 20) << "the last byte is included";
    ASSERT_TRUE(parseByteRange("bytes=10-5000", 1000, begin, end));
    EXPECT_EQ(end, 1000) << "a range past the end stops at it";
    for (const char *bad : {"bytes=1000-", "bytes=-5", "bytes=5-1", "bytes=0-1,4-5", "items=0-1", "bytes=a-b", "bytes=-"})
        EXPECT_FALSE(parseByteRange(bad, 1000, begin, end)) << bad;
}
