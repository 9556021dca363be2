// Runs the real swarmtrain-coordinator, talks to it as a peer does, kills it with SIGKILL and
// checks that a restart on the same state dir carries on where it was.
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "TestApplication.h"
#include "Identity.h"
#include "Invite.h"
#include "OlderCoordinatorDatabase.h"
#include "RequestSignature.h"
#include "SqliteSchema.h"
#include "TempDir.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>

using namespace swarmtrain;
using swarmtrain::test::TempDir;

namespace {

using swarmtrain::test::application;

// A coordinator child process; its first stdout line tells where it listens.
class CoordinatorProcess {
public:
    // Returns the first line it printed ("listening on ..."), or "" when it ended first.
    std::string start(const std::vector<std::string> &args, const std::filesystem::path &errFile)
    {
        const std::filesystem::path outFile = errFile.string() + ".out";
        if (!m_child.start(SWARMTRAIN_COORDINATOR, args, outFile, errFile))
            return {};
        std::string out;
        test::waitUntil([&] { return (out = m_child.output()).find('\n') != std::string::npos || m_child.exited(); },
                        std::chrono::seconds(30));
        return out.substr(0, out.find('\n'));
    }

    int stop(int signal) { return m_child.kill(signal); }
    int wait() { return m_child.waitForExit(std::chrono::seconds(30)); }

private:
    test::ChildProcess m_child;
};

class CoordinatorProcessTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        application();
        dir.write("data.txt", swarmtrain::test::generatedText(30000));
    }

    std::vector<std::string> args(const std::string &nLayer = "1") const
    {
        return {"--listen", "127.0.0.1:0", "--state-dir", (dir.path() / "state").string(), "--data",
                (dir.path() / "data.txt").string(), "--n-layer", nLayer, "--n-head", "2", "--n-embd", "16",
                "--block-size", "16", "--batch-size", "4", "--eval-iters", "2", "--shard-tokens", "8192",
                "--rounds", "fixed", // its peers speak the protocol by hand, reporting no steps
                "--plain-http"};
    }

    void startCoordinator()
    {
        const std::string line = process.start(args(), dir.path() / "err");
        const std::string prefix = "listening on http://127.0.0.1:";
        ASSERT_EQ(line.rfind(prefix, 0), 0u) << "got '" << line << "'; stderr: " << test::readWholeFile(dir.path() / "err");
        base = QString::fromStdString("http://127.0.0.1:" + line.substr(prefix.size()));
    }

    std::pair<int, QJsonObject> request(const QByteArray &method, const QByteArray &target, const QJsonObject &body,
                                        bool sign)
    {
        const QByteArray bytes = method == "GET" ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
        QNetworkRequest request(QUrl(base + QString::fromLatin1(target)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        if (sign) {
            const RequestSignature signature =
                signer.sign(method, target, bytes, QDateTime::currentMSecsSinceEpoch());
            request.setRawHeader(kKeyIdHeader, signature.keyId.toLatin1());
            request.setRawHeader(kTimestampHeader, QByteArray::number(signature.timestampMs));
            request.setRawHeader(kSignatureHeader, signature.signature.toBase64());
        }
        QNetworkReply *reply = method == "GET" ? network.get(request) : network.post(request, bytes);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(10'000, &loop, &QEventLoop::quit);
        loop.exec();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject json = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return {status, json};
    }

    QJsonObject status() { return request("GET", "/v1/status", {}, false).second; }

    TempDir dir;
    CoordinatorProcess process;
    QNetworkAccessManager network;
    QString base;
    Identity identity = Identity::generate().value();
    RequestSigner signer{identity};
};

} // namespace

TEST_F(CoordinatorProcessTest, SurvivesSigkillWithPeersRoundsAndCredit)
{
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    const auto joined =
        request("POST", "/v1/join",
                QJsonObject{{QStringLiteral("public_key"), QString::fromLatin1(identity.publicKey().toBase64())},
                            {QStringLiteral("device"), QJsonObject{{QStringLiteral("gpu"), QStringLiteral("none")}}},
                            {QStringLiteral("endpoint"), QString()},
                            {QStringLiteral("client_version"), QStringLiteral("test")}},
                true);
    ASSERT_EQ(joined.first, 200);
    EXPECT_EQ(joined.second.value(QLatin1StringView("peer_id")).toString(), identity.keyId());
    EXPECT_EQ(status().value(QLatin1StringView("peers_total")).toInt(), 1);

    // A lone ready peer runs round 0 by itself; its report completes the round.
    const auto beat = request("POST", "/v1/heartbeat",
                              QJsonObject{{QStringLiteral("state"), QStringLiteral("ready")},
                                          {QStringLiteral("base_round"), 0}},
                              true);
    ASSERT_EQ(beat.first, 200);
    EXPECT_EQ(beat.second.value(QLatin1StringView("round_state")).toString(), QStringLiteral("running"));
    const auto report = request("POST", "/v1/contribution",
                                QJsonObject{{QStringLiteral("round"), 0},
                                            {QStringLiteral("tokens"), 5000},
                                            {QStringLiteral("flops"), 1e9},
                                            {QStringLiteral("seconds"), 3.0},
                                            {QStringLiteral("loss"), 2.9},
                                            {QStringLiteral("params_hash"), QString(64, QLatin1Char('c'))}},
                                true);
    ASSERT_EQ(report.first, 200);
    EXPECT_TRUE(report.second.value(QLatin1StringView("accepted")).toBool());
    EXPECT_TRUE(report.second.value(QLatin1StringView("upload_checkpoint")).toBool());
    const double credit = report.second.value(QLatin1StringView("credit")).toDouble();
    EXPECT_GT(credit, 0.0);

    const int killed = process.stop(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(killed) && WTERMSIG(killed) == SIGKILL);
    ASSERT_NO_FATAL_FAILURE(startCoordinator());

    const QJsonObject after = status();
    EXPECT_EQ(after.value(QLatin1StringView("peers_total")).toInt(), 1);
    EXPECT_EQ(after.value(QLatin1StringView("round")).toInt(), 1) << "round 0 stays completed";
    const QJsonArray leaders = after.value(QLatin1StringView("leaderboard")).toArray();
    ASSERT_EQ(leaders.size(), 1);
    EXPECT_EQ(leaders.at(0).toObject().value(QLatin1StringView("peer_id")).toString(), identity.keyId());
    EXPECT_DOUBLE_EQ(leaders.at(0).toObject().value(QLatin1StringView("credit")).toDouble(), credit);
    // Still a known peer: its signed requests are accepted without joining again.
    const auto again = request("POST", "/v1/heartbeat",
                               QJsonObject{{QStringLiteral("state"), QStringLiteral("idle")},
                                           {QStringLiteral("base_round"), 1}},
                               true);
    EXPECT_EQ(again.first, 200);

    // SIGTERM ends it cleanly.
    const int terminated = process.stop(SIGTERM);
    EXPECT_TRUE(WIFEXITED(terminated) && WEXITSTATUS(terminated) == 0) << terminated;
}

TEST_F(CoordinatorProcessTest, ServesHttpsByDefaultThatOnlyTheInvitesPinOpens)
{
    std::vector<std::string> defaults = args();
    defaults.pop_back(); // no --plain-http
    test::ChildProcess child;
    ASSERT_TRUE(child.start(SWARMTRAIN_COORDINATOR, defaults, dir.path() / "tls.out", dir.path() / "tls.err"));
    std::string out;
    const bool printed = test::waitUntil([&] { return (out = child.output()).find("invite ") != std::string::npos
                                                          && out.back() == '\n'; },
                                         std::chrono::seconds(60));
    ASSERT_TRUE(printed) << out << test::readWholeFile(dir.path() / "tls.err");
    EXPECT_EQ(out.rfind("listening on https://127.0.0.1:", 0), 0u) << out;
    const std::size_t at = out.find("invite ") + 7;
    const Result<Invite> invite = parseInvite(QString::fromStdString(out.substr(at, out.find('\n', at) - at)));
    ASSERT_TRUE(invite) << invite.error().message;
    EXPECT_TRUE(invite->swarmUrl.startsWith(QStringLiteral("https://127.0.0.1:"))) << invite->swarmUrl.toStdString();
    EXPECT_TRUE(invite->pin.startsWith(QStringLiteral("sha256//")));

    CoordinatorClient pinned(identity, CoordinatorClientOptions{invite->swarmUrl, invite->pin, 3, 100, 1000});
    const Result<QJsonObject> joined = pinned.postJson(
        QStringLiteral("/v1/join"),
        QJsonObject{{QStringLiteral("public_key"), QString::fromLatin1(identity.publicKey().toBase64())},
                    {QStringLiteral("device"), QJsonObject{{QStringLiteral("gpu"), QStringLiteral("none")}}},
                    {QStringLiteral("endpoint"), QString()},
                    {QStringLiteral("client_version"), QStringLiteral("test")}});
    ASSERT_TRUE(joined) << joined.error().message;
    EXPECT_EQ(joined->value(QLatin1StringView("peer_id")).toString(), identity.keyId());

    // Another key's pin (a man in the middle's certificate, as the client sees it) is refused,
    // and so is the certificate with no pin at all.
    const QString otherPin = QStringLiteral("sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    for (const QString &pin : {otherPin, QString()}) {
        CoordinatorClient client(identity, CoordinatorClientOptions{invite->swarmUrl, pin, 1, 100, 1000});
        const Result<QJsonObject> refused = client.getJson(QStringLiteral("/v1/status"));
        ASSERT_FALSE(refused) << pin.toStdString();
        EXPECT_NE(refused.error().message.find("TLS"), std::string::npos) << refused.error().message;
    }
    EXPECT_EQ(child.kill(SIGINT), 0);
}

TEST_F(CoordinatorProcessTest, DifferentModelOnTheSameStateDirIsAClearError)
{
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    process.stop(SIGTERM);
    const std::string line = process.start(args("2"), dir.path() / "err");
    EXPECT_EQ(line, "");
    EXPECT_EQ(process.wait(), 1);
    const std::string err = test::readWholeFile(dir.path() / "err");
    EXPECT_NE(err.find("swarmtrain-coordinator: error: the model"), std::string::npos) << err;
}

TEST_F(CoordinatorProcessTest, BadFlagIsAOneLineError)
{
    const std::string line = process.start({"--state-dir", "x", "--data", "y", "--listen", "oops"}, dir.path() / "err");
    EXPECT_EQ(line, "");
    EXPECT_EQ(process.wait(), 1);
    const std::string err = test::readWholeFile(dir.path() / "err");
    EXPECT_EQ(err.rfind("swarmtrain-coordinator: error: --listen", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(CoordinatorProcessTest, HelpListsTheFlagsAndExitsZero)
{
    process.start({"--help"}, dir.path() / "err");
    EXPECT_EQ(process.wait(), 0);
    const std::string out = test::readWholeFile(dir.path() / "err.out");
    EXPECT_NE(out.find("Usage: swarmtrain-coordinator [OPTIONS]"), std::string::npos) << out;
    EXPECT_NE(out.find("--round-deadline X in [1, 604800]"), std::string::npos) << out;
    EXPECT_NE(out.find("(default: 600)"), std::string::npos) << out;
}

// --migrate-only brings an existing database to this version's schema and exits without serving
// (issue 20): an operator runs it before an upgraded coordinator's first start.
TEST_F(CoordinatorProcessTest, MigrateOnlyUpgradesTheDatabaseAndExits)
{
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    process.stop(SIGTERM);
    const std::filesystem::path file = dir.path() / "state" / "coordinator.db";
    ASSERT_NO_FATAL_FAILURE(test::makeVersion9(file));

    const std::string line =
        process.start({"--state-dir", (dir.path() / "state").string(), "--migrate-only"}, dir.path() / "err");
    EXPECT_EQ(line, "schema version " + std::to_string(kSqliteSchemaVersion)) << test::readWholeFile(dir.path() / "err");
    EXPECT_EQ(process.wait(), 0);
    test::editDatabase(file, [](QSqlQuery &query) {
        ASSERT_TRUE(query.exec(QStringLiteral("PRAGMA user_version")) && query.next());
        EXPECT_EQ(query.value(0).toInt(), kSqliteSchemaVersion);
    });

    // Without --migrate-only the data stays required.
    process.start({"--state-dir", (dir.path() / "state").string()}, dir.path() / "err");
    EXPECT_EQ(process.wait(), 1);
    EXPECT_EQ(test::readWholeFile(dir.path() / "err"), "swarmtrain-coordinator: error: --data is required\n");
}

// GET /v1/health of a running coordinator, timer and all: what HAProxy's check reads.
TEST_F(CoordinatorProcessTest, HealthAnswersWhileItRuns)
{
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    const auto [code, health] = request("GET", "/v1/health", {}, false);
    EXPECT_EQ(code, 200);
    EXPECT_EQ(health.value(QLatin1StringView("status")).toString(), QStringLiteral("ok"));
    EXPECT_EQ(health.value(QLatin1StringView("role")).toString(), QStringLiteral("leader"));
    EXPECT_GE(health.value(QLatin1StringView("timed_work_lag_ms")).toInteger(-1), 0);
}
