// GET / (the public status page), the figures it reads from GET /v1/status, and GET /v1/health
// for load balancers, against an in-process coordinator over real HTTP on loopback.
#include "ControlMessages.h"
#include "CoordinatorFixture.h"
#include "CoordinatorServer.h"
#include "CoordinatorSetup.h"
#include "OlderCoordinatorDatabase.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

struct Answer {
    int status = 0;
    QByteArray body;
    QMap<QByteArray, QByteArray> headers; // names in lower case
};

// The text between the first `open` and the `close` after it.
QByteArray between(const QByteArray &text, const QByteArray &open, const QByteArray &close)
{
    const qsizetype start = text.indexOf(open);
    const qsizetype end = start < 0 ? -1 : text.indexOf(close, start + open.size());
    return end < 0 ? QByteArray() : text.mid(start + open.size(), end - start - open.size());
}

class StatusPageEndpointTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        config = test::smallCoordinatorConfig(dir);
        Result<CoordinatorSetup> prepared = CoordinatorSetup::prepare(config);
        ASSERT_TRUE(prepared.ok()) << prepared.error().message;
        setup = std::make_unique<CoordinatorSetup>(std::move(prepared).value());
        CoordinatorServerOptions options = CoordinatorServerOptions::from(config, setup->parameterCount);
        options.tickMs = 0;
        server = std::make_unique<CoordinatorServer>(*setup, options, [this]() { return now; });
        Result<quint16> port = server->start(QHostAddress(QHostAddress::LocalHost), 0, std::nullopt);
        ASSERT_TRUE(port.ok()) << port.error().message;
        base = QStringLiteral("http://127.0.0.1:%1").arg(*port);
    }

    void TearDown() override
    {
        server->waitForBackgroundWork();
        QCoreApplication::processEvents();
    }

    Answer send(const QByteArray &method, const QString &path)
    {
        QNetworkRequest request(QUrl(base + path));
        // A POST with an empty body still says so (Content-Length: 0), as any client does.
        QNetworkReply *reply = method == "POST" ? network.post(request, QByteArray()) : network.sendCustomRequest(request, method);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
        loop.exec();
        Answer answer;
        EXPECT_TRUE(reply->isFinished()) << "no answer to " << method.constData() << " " << path.toStdString();
        answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        answer.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            answer.headers.insert(name.toLower(), value);
        reply->deleteLater();
        return answer;
    }

    // The page's HTML; empty (and a failure) when GET / does not answer it.
    QString page()
    {
        const Answer answer = send("GET", QStringLiteral("/"));
        EXPECT_EQ(answer.status, 200);
        return answer.status == 200 ? QString::fromUtf8(answer.body) : QString();
    }

    PeerRecord peer(const QString &keyId, double tokensPerSecond, qint64 lastSeenMs) const
    {
        PeerRecord record;
        record.keyId = keyId;
        record.publicKey = QByteArray(32, 'k');
        record.tokensPerSecond = tokensPerSecond;
        record.lastSeenMs = lastSeenMs;
        record.joinedMs = lastSeenMs;
        return record;
    }

    test::TempDir dir;
    CoordinatorConfig config;
    std::unique_ptr<CoordinatorSetup> setup;
    std::unique_ptr<CoordinatorServer> server;
    QNetworkAccessManager network;
    QString base;
    qint64 now = 1'700'000'000'000;
};

TEST_F(StatusPageEndpointTest, ServesAnHtmlPageWithStrictSecurityHeaders)
{
    const Answer answer = send("GET", QStringLiteral("/"));
    ASSERT_EQ(answer.status, 200);
    EXPECT_EQ(answer.headers.value("content-type"), QByteArray("text/html; charset=utf-8"));
    EXPECT_EQ(answer.headers.value("x-content-type-options"), QByteArray("nosniff"));
    EXPECT_EQ(answer.headers.value("referrer-policy"), QByteArray("no-referrer"));
    EXPECT_EQ(answer.headers.value("x-frame-options"), QByteArray("DENY"));
    EXPECT_TRUE(answer.body.startsWith("<!DOCTYPE html>"));
    EXPECT_TRUE(answer.body.contains("id=\"loss-chart\""));

    const QByteArray policy = answer.headers.value("content-security-policy");
    EXPECT_TRUE(policy.startsWith("default-src 'none';")) << policy.constData();
    EXPECT_TRUE(policy.contains("connect-src 'self'")) << policy.constData();
    EXPECT_TRUE(policy.contains("img-src data:")) << policy.constData();
    EXPECT_TRUE(policy.contains("frame-ancestors 'none'")) << policy.constData();
    EXPECT_FALSE(policy.contains("unsafe")) << "inline code is allowed by its hash only: " << policy.constData();
    // The hashes allow exactly the page's own inline script and style.
    const auto hashOf = [](const QByteArray &block) {
        return "'sha256-" + QCryptographicHash::hash(block, QCryptographicHash::Sha256).toBase64() + "'";
    };
    const QByteArray script = between(answer.body, "<script>", "</script>");
    const QByteArray style = between(answer.body, "<style>", "</style>");
    ASSERT_FALSE(script.isEmpty());
    ASSERT_FALSE(style.isEmpty());
    EXPECT_TRUE(policy.contains("script-src " + hashOf(script) + ";")) << policy.constData();
    EXPECT_TRUE(policy.contains("style-src " + hashOf(style) + ";")) << policy.constData();
}

TEST_F(StatusPageEndpointTest, ThePageLoadsNothingFromElsewhere)
{
    const QString html = page();
    ASSERT_FALSE(html.isEmpty());
    // No attribute that loads or links anything outside this origin, and none that loads anything
    // at all (the page is one file).
    const QRegularExpression external(QStringLiteral(R"((src|href|srcset|action|poster|data|xlink:href)\s*=\s*["']?\s*(https?:|//))"),
                                      QRegularExpression::CaseInsensitiveOption);
    EXPECT_FALSE(external.match(html).hasMatch()) << external.match(html).captured(0).toStdString();
    const QRegularExpression loads(QStringLiteral(R"(<(link|iframe|object|embed|img|audio|video|source)\b|<script\s+src|@import|url\s*\()"),
                                   QRegularExpression::CaseInsensitiveOption);
    EXPECT_FALSE(loads.match(html).hasMatch()) << loads.match(html).captured(0).toStdString();
    // What the script fetches is the same origin's status and published model list, and only that.
    const QRegularExpression fetches(QStringLiteral(R"(fetch\(\s*([^,)]+))"));
    QStringList fetched;
    for (QRegularExpressionMatchIterator it = fetches.globalMatch(html); it.hasNext();)
        fetched.append(it.next().captured(1));
    EXPECT_EQ(fetched, QStringList({QStringLiteral("MODEL_PATH"), QStringLiteral("STATUS_PATH")}));
    EXPECT_TRUE(html.contains(QStringLiteral("const STATUS_PATH = '/v1/status';")));
    EXPECT_TRUE(html.contains(QStringLiteral("const MODEL_PATH = '/v1/model';")));
}

TEST_F(StatusPageEndpointTest, ThePageNeverTurnsTextIntoMarkup)
{
    // Peers choose their names: the script inserts every value as text. The browser test shows
    // a hostile name staying text; this keeps the dangerous sinks out of the page altogether.
    const QString html = page();
    ASSERT_FALSE(html.isEmpty());
    for (const char *sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                             "createContextualFragment", "DOMParser", "srcdoc"})
        EXPECT_FALSE(html.contains(QLatin1StringView(sink))) << sink;
}

TEST_F(StatusPageEndpointTest, OnlyTheRootIsThePage)
{
    EXPECT_EQ(send("POST", QStringLiteral("/")).status, 405);
    EXPECT_EQ(send("GET", QStringLiteral("/index.html")).status, 404);
    EXPECT_EQ(send("GET", QStringLiteral("/v1/nothing")).status, 404);
    EXPECT_EQ(send("POST", QStringLiteral("/v1/nothing")).status, 404);
    EXPECT_EQ(send("GET", QStringLiteral("/v1/status")).status, 200);
}

TEST_F(StatusPageEndpointTest, StatusCarriesTheSwarmsThroughputAndModelSize)
{
    // Two peers heartbeating now and one gone for an hour: the throughput is the online ones'.
    ASSERT_TRUE(setup->store->savePeer(peer(QStringLiteral("a1"), 1200.0, now)).ok());
    ASSERT_TRUE(setup->store->savePeer(peer(QStringLiteral("b2"), 300.5, now - 1000)).ok());
    ASSERT_TRUE(setup->store->savePeer(peer(QStringLiteral("c3"), 9000.0, now - 3'600'000)).ok());

    const Answer answer = send("GET", QStringLiteral("/v1/status"));
    ASSERT_EQ(answer.status, 200);
    const QJsonObject status = QJsonDocument::fromJson(answer.body).object();
    EXPECT_DOUBLE_EQ(status.value(QLatin1StringView("tokens_per_second")).toDouble(-1), 1500.5);
    EXPECT_EQ(status.value(QLatin1StringView("parameter_count")).toInteger(-1), setup->parameterCount);
    EXPECT_GT(setup->parameterCount, 0);
    EXPECT_EQ(status.value(QLatin1StringView("peers")).toInteger(-1), 2);
    EXPECT_EQ(status.value(QLatin1StringView("peers_total")).toInteger(-1), 3);
    // Clients that read the status as StatusAnswer still can.
    Result<StatusAnswer> decoded = StatusAnswer::fromJson(status);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->peers, 2);
}

TEST_F(StatusPageEndpointTest, StatusThroughputIsZeroWithNobodyOnline)
{
    const QJsonObject status = QJsonDocument::fromJson(send("GET", QStringLiteral("/v1/status")).body).object();
    ASSERT_TRUE(status.value(QLatin1StringView("tokens_per_second")).isDouble());
    EXPECT_EQ(status.value(QLatin1StringView("tokens_per_second")).toDouble(-1), 0.0);
}

// A load balancer's health check: 200 with the instance's role while its store answers.
TEST_F(StatusPageEndpointTest, HealthSaysTheStoreAnswersAndThisInstanceLeads)
{
    const Answer answer = send("GET", QStringLiteral("/v1/health"));
    ASSERT_EQ(answer.status, 200) << answer.body.constData();
    const QJsonObject health = QJsonDocument::fromJson(answer.body).object();
    EXPECT_EQ(health.value(QLatin1StringView("status")).toString(), QStringLiteral("ok"));
    EXPECT_EQ(health.value(QLatin1StringView("store")).toString(), QStringLiteral("reachable"));
    EXPECT_EQ(health.value(QLatin1StringView("role")).toString(), QStringLiteral("leader"));
    EXPECT_EQ(health.value(QLatin1StringView("round")).toInteger(-1), 0);
    EXPECT_EQ(health.value(QLatin1StringView("timed_work_lag_ms")).toInteger(-1), 0) << "no timer in this test";
    EXPECT_EQ(send("POST", QStringLiteral("/v1/health")).status, 405);
}

// A store that fails its reads takes the instance out of the balancer's rotation (503), saying why.
TEST_F(StatusPageEndpointTest, HealthIs503WhenTheStoreFails)
{
    ASSERT_NO_FATAL_FAILURE(test::editDatabase(config.stateDir / "coordinator.db", [](QSqlQuery &query) {
        ASSERT_TRUE(query.exec(QStringLiteral("DROP TABLE rounds")));
    }));
    const Answer answer = send("GET", QStringLiteral("/v1/health"));
    EXPECT_EQ(answer.status, 503);
    const QJsonObject health = QJsonDocument::fromJson(answer.body).object();
    EXPECT_EQ(health.value(QLatin1StringView("store")).toString(), QStringLiteral("unreachable"));
    EXPECT_TRUE(health.value(QLatin1StringView("error")).toString().contains(QLatin1StringView("rounds")))
        << answer.body.constData();
}

} // namespace
