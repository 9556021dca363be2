#include "CoordinatorClient.h"
#include "HttpBackoff.h"
#include "Identity.h"
#include "RequestSignature.h"
#include "TempDir.h"
#include "TestHttpServer.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include <sys/resource.h>

using namespace swarmtrain;
using namespace swarmtrain::test;

namespace {

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

std::string readFile(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// Serves `content` like a coordinator serves a checkpoint: Range requests get a 206 with the
// rest, and X-Content-SHA256 names the whole file's digest.
TestHttpResponse serveFile(const TestHttpRequest &request, const QByteArray &content, bool honourRange = true)
{
    TestHttpResponse response;
    response.addHeader("X-Content-SHA256", sha256Hex(content));
    const QByteArray range = request.header("range");
    if (honourRange && range.startsWith("bytes=") && range.endsWith('-')) {
        const qsizetype start = range.mid(6).chopped(1).toLongLong();
        response.status = 206;
        response.addHeader("Content-Range", "bytes " + QByteArray::number(start) + "-"
                                                       + QByteArray::number(content.size() - 1) + "/"
                                                       + QByteArray::number(content.size()));
        response.body = content.mid(start);
        return response;
    }
    response.body = content;
    return response;
}

} // namespace

class CoordinatorClientTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        Result<Identity> made = Identity::generate();
        ASSERT_TRUE(made);
        identity.emplace(std::move(made).value());
    }

    // Short backoff so that retries cost milliseconds.
    CoordinatorClientOptions optionsFor(const QString &baseUrl) const
    {
        CoordinatorClientOptions options;
        options.baseUrl = baseUrl;
        options.maxAttempts = 3;
        options.initialBackoffMs = 1;
        options.maxBackoffMs = 5;
        options.connectTimeoutMs = 2000;
        options.requestTimeoutMs = 5000;
        return options;
    }

    // What the coordinator will do with every request.
    Result<void> verifySignature(const TestHttpRequest &request)
    {
        const RequestSignature signature{
            QString::fromLatin1(request.header(QByteArray(kKeyIdHeader).toLower())),
            request.header(QByteArray(kTimestampHeader).toLower()).toLongLong(),
            QByteArray::fromBase64(request.header(QByteArray(kSignatureHeader).toLower()))};
        return verifier.verify(identity->publicKey(), request.method, request.target, request.body, signature,
                               QDateTime::currentMSecsSinceEpoch());
    }

    std::optional<Identity> identity;
    RequestVerifier verifier;
    TempDir dir;
    const QByteArray content = QByteArray::fromStdString(generatedText(200'000));
};

TEST_F(CoordinatorClientTest, SignsRequestsSoTheCoordinatorCanVerifyThem)
{
    TestHttpServer server([](const TestHttpRequest &) {
        return TestHttpResponse::json(200, R"({"peer": "p-17", "role": "trainer"})");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));

    const QJsonObject body{{QStringLiteral("flops"), 1.5e13}, {QStringLiteral("gpu"), QStringLiteral("RTX 4090")}};
    const Result<QJsonObject> joined = client.postJson(QStringLiteral("/v1/join?version=0.1"), body);
    ASSERT_TRUE(joined) << joined.error().message;
    EXPECT_EQ(joined->value(QStringLiteral("peer")).toString(), QStringLiteral("p-17"));
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_TRUE(round) << round.error().message;

    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 2);
    EXPECT_EQ(requests[0].method, "POST");
    EXPECT_EQ(requests[0].target, "/v1/join?version=0.1");
    EXPECT_EQ(requests[0].header("content-type"), "application/json");
    EXPECT_EQ(QJsonDocument::fromJson(requests[0].body).object(), body);
    EXPECT_EQ(requests[1].method, "GET");
    EXPECT_TRUE(requests[1].body.isEmpty());
    for (const TestHttpRequest &request : requests) {
        EXPECT_EQ(request.header("x-swarm-key"), identity->keyId().toLatin1());
        const Result<void> verified = verifySignature(request);
        EXPECT_TRUE(verified) << verified.error().message;
    }

    TestHttpRequest tampered = requests[0];
    tampered.body.replace("4090", "4080");
    EXPECT_FALSE(verifySignature(tampered));
}

TEST_F(CoordinatorClientTest, PostBytesSendsTheBodyUnchangedAndSigned)
{
    TestHttpServer server([](const TestHttpRequest &request) {
        return TestHttpResponse::json(200, R"({"received": )" + QByteArray::number(request.body.size()) + "}");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    QByteArray upload(1 << 20, '\0');
    for (qsizetype i = 0; i < upload.size(); ++i)
        upload[i] = char((i * 7919) & 0xff);

    const Result<QJsonObject> answer = client.postBytes(QStringLiteral("/v1/checkpoint/upload"), upload);
    ASSERT_TRUE(answer) << answer.error().message;
    EXPECT_EQ(answer->value(QStringLiteral("received")).toInteger(), upload.size());
    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 1);
    EXPECT_EQ(requests[0].body, upload);
    EXPECT_EQ(requests[0].header("content-type"), "application/octet-stream");
    const Result<void> verified = verifySignature(requests[0]);
    EXPECT_TRUE(verified) << verified.error().message;
    EXPECT_GE(client.counters().bytesUp, upload.size());
    EXPECT_GT(client.counters().bytesDown, 0);
}

TEST_F(CoordinatorClientTest, Retries503AndSignsEachRetryAnew)
{
    std::atomic<int> calls{0};
    TestHttpServer server([&](const TestHttpRequest &) {
        if (calls++ == 0)
            return TestHttpResponse::json(503, R"({"error": "restarting"})");
        return TestHttpResponse::json(200, R"({"round": 4})");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));

    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_TRUE(round) << round.error().message;
    EXPECT_EQ(round->value(QStringLiteral("round")).toInt(), 4);
    EXPECT_EQ(client.counters().retries, 1);
    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 2);
    EXPECT_NE(requests[0].header("x-swarm-timestamp"), requests[1].header("x-swarm-timestamp"));
    // The verifier refuses replays, so both passing proves the retry was signed afresh.
    for (const TestHttpRequest &request : requests) {
        const Result<void> verified = verifySignature(request);
        EXPECT_TRUE(verified) << verified.error().message;
    }
}

TEST_F(CoordinatorClientTest, Retries429AndGivesUpOnPersistent5xxWithTheLastStatus)
{
    std::atomic<int> calls{0};
    TestHttpServer server([&](const TestHttpRequest &) {
        TestHttpResponse response = TestHttpResponse::json(calls++ == 0 ? 429 : 500, R"({"error": "database locked"})");
        response.addHeader("Retry-After", "0");
        return response;
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));

    const Result<QJsonObject> status = client.getJson(QStringLiteral("/v1/status"));
    ASSERT_FALSE(status);
    EXPECT_EQ(server.requests().size(), 3);
    EXPECT_TRUE(contains(status.error().message, "HTTP 500")) << status.error().message;
    EXPECT_TRUE(contains(status.error().message, "database locked")) << status.error().message;
    EXPECT_TRUE(contains(status.error().message, "gave up after 3 attempts")) << status.error().message;
    EXPECT_EQ(client.counters().retries, 2);
}

TEST_F(CoordinatorClientTest, DoesNotRetry404AndReportsTheServersMessage)
{
    TestHttpServer server([](const TestHttpRequest &) {
        return TestHttpResponse::json(404, R"({"error": "no such peer"})");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));

    const Result<QJsonObject> heartbeat = client.postJson(QStringLiteral("/v1/heartbeat"), {});
    ASSERT_FALSE(heartbeat);
    EXPECT_EQ(server.requests().size(), 1);
    EXPECT_EQ(client.counters().retries, 0);
    const std::string &message = heartbeat.error().message;
    EXPECT_TRUE(contains(message, "HTTP 404")) << message;
    EXPECT_TRUE(contains(message, "POST /v1/heartbeat")) << message;
    EXPECT_TRUE(contains(message, "no such peer")) << message;
    EXPECT_FALSE(contains(message, "\n")) << message;
}

TEST_F(CoordinatorClientTest, RejectsAnAnswerThatIsNotAJsonObject)
{
    for (const QByteArray &body : {QByteArray("<html>proxy error</html>"), QByteArray("[1, 2]"), QByteArray(),
                                   QByteArray(R"({"round": 4)")}) {
        TestHttpServer server([&](const TestHttpRequest &) { return TestHttpResponse::json(200, body); });
        CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
        const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
        ASSERT_FALSE(round) << body.toStdString();
        EXPECT_TRUE(contains(round.error().message, "invalid JSON from coordinator")) << round.error().message;
        EXPECT_EQ(server.requests().size(), 1);
    }
}

TEST_F(CoordinatorClientTest, RefusesAnOversizedJsonAnswer)
{
    TestHttpServer server([](const TestHttpRequest &) {
        return TestHttpResponse::json(200, "{\"pad\": \"" + QByteArray(17 * 1024 * 1024, 'x') + "\"}");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const Result<QJsonObject> status = client.getJson(QStringLiteral("/v1/status"));
    ASSERT_FALSE(status);
    EXPECT_TRUE(contains(status.error().message, "larger than 16 MiB")) << status.error().message;
    EXPECT_EQ(server.requests().size(), 1);
}

TEST_F(CoordinatorClientTest, GivesUpOnARefusedConnectionAfterMaxAttempts)
{
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(TestHttpServer::unusedPort());
    CoordinatorClient client(*identity, optionsFor(url));
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(round);
    const std::string &message = round.error().message;
    EXPECT_TRUE(contains(message, "cannot reach the coordinator at " + url.toStdString())) << message;
    EXPECT_TRUE(contains(message, "gave up after 3 attempts")) << message;
    EXPECT_EQ(client.counters().retries, 2);
}

TEST_F(CoordinatorClientTest, RefusesBadPathsAndUrlsWithoutSendingAnything)
{
    TestHttpServer server([](const TestHttpRequest &) { return TestHttpResponse::json(200, "{}"); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    for (const QString &path : {QStringLiteral("v1/round"), QStringLiteral("/v1/peers/a b"),
                                QStringLiteral("/v1/round#x"), QStringLiteral("/v1/peers/\u00e9")}) {
        const Result<QJsonObject> answer = client.getJson(path);
        ASSERT_FALSE(answer) << path.toStdString();
        EXPECT_TRUE(contains(answer.error().message, "bad request path")) << answer.error().message;
    }
    for (const QString &url : {QStringLiteral("ftp://127.0.0.1:21"), QStringLiteral("127.0.0.1:80"),
                               QStringLiteral("http://user:secret@127.0.0.1:%1").arg(server.port())}) {
        CoordinatorClient bad(*identity, optionsFor(url));
        const Result<QJsonObject> answer = bad.getJson(QStringLiteral("/v1/round"));
        ASSERT_FALSE(answer) << url.toStdString();
        EXPECT_TRUE(contains(answer.error().message, "coordinator URL")) << answer.error().message;
    }
    EXPECT_EQ(server.connections(), 0);
}

TEST_F(CoordinatorClientTest, KeepsThePathPrefixOfTheBaseUrlInTheSignedTarget)
{
    TestHttpServer server([](const TestHttpRequest &) { return TestHttpResponse::json(200, "{}"); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl() + QStringLiteral("/swarm/")));
    ASSERT_TRUE(client.getJson(QStringLiteral("/v1/round?since=3")));
    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 1);
    EXPECT_EQ(requests[0].target, "/swarm/v1/round?since=3");
    const Result<void> verified = verifySignature(requests[0]);
    EXPECT_TRUE(verified) << verified.error().message;
}

TEST_F(CoordinatorClientTest, DownloadVerifiesAgainstTheAnnouncedSha256)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "checkpoint.safetensors";
    qint64 lastDone = 0, lastTotal = 0;

    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), file, {}, [&](qint64 d, qint64 t) {
        lastDone = d;
        lastTotal = t;
    });
    ASSERT_TRUE(done) << done.error().message;
    EXPECT_EQ(readFile(file), content.toStdString());
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "checkpoint.safetensors.part"));
    EXPECT_EQ(lastDone, content.size());
    EXPECT_EQ(lastTotal, content.size());
    EXPECT_GE(client.counters().bytesDown, content.size());
    const Result<void> verified = verifySignature(server.requests().value(0));
    EXPECT_TRUE(verified) << verified.error().message;
}

TEST_F(CoordinatorClientTest, DownloadResumesAPartFileWithARangeRequest)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "shard-3.bin";
    dir.write("shard-3.bin.part", content.left(30'000).toStdString());
    qint64 firstDone = -1, lastDone = 0, lastTotal = 0;

    const QString expected = QString::fromLatin1(sha256Hex(content));
    const Result<void> done = client.download(QStringLiteral("/v1/shards/3"), file, expected, [&](qint64 d, qint64 t) {
        if (firstDone < 0 && d > 0)
            firstDone = d;
        lastDone = d;
        lastTotal = t;
    });
    ASSERT_TRUE(done) << done.error().message;
    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 1);
    EXPECT_EQ(requests[0].header("range"), "bytes=30000-");
    EXPECT_EQ(readFile(file), content.toStdString());
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "shard-3.bin.part"));
    EXPECT_GE(firstDone, 30'000);
    EXPECT_EQ(lastDone, content.size());
    EXPECT_EQ(lastTotal, content.size());
    EXPECT_LT(client.counters().bytesDown, content.size()); // only the rest travelled
}

TEST_F(CoordinatorClientTest, DownloadStartsOverWhenTheServerIgnoresTheRange)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content, false); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "shard.bin";
    dir.write("shard.bin.part", content.left(1000).toStdString());

    const QString expected = QString::fromLatin1(sha256Hex(content));
    const Result<void> done = client.download(QStringLiteral("/v1/shards/1"), file, expected);
    ASSERT_TRUE(done) << done.error().message;
    EXPECT_EQ(server.requests().value(0).header("range"), "bytes=1000-");
    EXPECT_EQ(readFile(file), content.toStdString());
}

TEST_F(CoordinatorClientTest, DownloadCutOffMidwayResumesOnTheRetry)
{
    std::atomic<int> calls{0};
    TestHttpServer server([&](const TestHttpRequest &request) {
        TestHttpResponse response = serveFile(request, content);
        if (calls++ == 0)
            response.sendOnlyBytes = 50'000; // then the connection drops
        return response;
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "checkpoint.bin";

    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), file, {});
    ASSERT_TRUE(done) << done.error().message;
    const QList<TestHttpRequest> requests = server.requests();
    ASSERT_EQ(requests.size(), 2);
    EXPECT_TRUE(requests[0].header("range").isEmpty());
    EXPECT_EQ(requests[1].header("range"), "bytes=50000-");
    EXPECT_EQ(readFile(file), content.toStdString());
    EXPECT_EQ(client.counters().retries, 1);
}

TEST_F(CoordinatorClientTest, TamperedDownloadLeavesNoFileAndNoPart)
{
    QByteArray tampered = content;
    tampered[100'000] = char(tampered[100'000] ^ 1);
    TestHttpServer server([&](const TestHttpRequest &request) {
        TestHttpResponse response = serveFile(request, tampered);
        response.headers[0].second = sha256Hex(content); // announces the genuine digest
        return response;
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));

    for (const QString &expected : {QString(), QString::fromLatin1(sha256Hex(content))}) {
        const std::filesystem::path file = dir.path() / "global.safetensors";
        const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), file, expected);
        ASSERT_FALSE(done);
        EXPECT_TRUE(contains(done.error().message, "SHA-256 mismatch")) << done.error().message;
        EXPECT_TRUE(contains(done.error().message, file.string())) << done.error().message;
        EXPECT_FALSE(std::filesystem::exists(file));
        EXPECT_FALSE(std::filesystem::exists(dir.path() / "global.safetensors.part"));
    }
}

TEST_F(CoordinatorClientTest, DownloadKeepsAnExistingFileWhenTheNewOneIsBad)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.write("global.safetensors", "the previous checkpoint");

    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), file, QString(64, u'0'));
    ASSERT_FALSE(done);
    EXPECT_EQ(readFile(file), "the previous checkpoint");
    const Result<void> badHex = client.download(QStringLiteral("/v1/checkpoint"), file, QStringLiteral("abc"));
    ASSERT_FALSE(badHex);
    EXPECT_TRUE(contains(badHex.error().message, "64 hex digits")) << badHex.error().message;
}

// A file already there is not fetched again when no SHA-256 is expected: asked for with
// If-None-Match, and kept when the server answers 304. One that is not the server's current file
// is replaced; a caller that names the file it wants gets it as ever.
TEST_F(CoordinatorClientTest, DownloadKeepsAFileTheServerSaysIsCurrent)
{
    const QByteArray etag = '"' + sha256Hex(content) + '"';
    TestHttpServer server([&](const TestHttpRequest &request) {
        if (request.header("if-none-match") == etag) {
            TestHttpResponse unchanged;
            unchanged.status = 304;
            return unchanged;
        }
        return serveFile(request, content);
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.write("global.safetensors", content.toStdString());

    const Result<void> kept = client.download(QStringLiteral("/v1/checkpoint"), file, {});
    ASSERT_TRUE(kept) << kept.error().message;
    ASSERT_EQ(server.requests().size(), 1);
    EXPECT_EQ(server.requests()[0].header("if-none-match"), etag);
    EXPECT_LT(client.counters().bytesDown, content.size());
    EXPECT_EQ(readFile(file), content.toStdString());
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "global.safetensors.part"));

    dir.write("global.safetensors", "an older state");
    const Result<void> replaced = client.download(QStringLiteral("/v1/checkpoint"), file, {});
    ASSERT_TRUE(replaced) << replaced.error().message;
    ASSERT_EQ(server.requests().size(), 2);
    EXPECT_EQ(server.requests()[1].header("if-none-match"), '"' + sha256Hex(QByteArray("an older state")) + '"');
    EXPECT_EQ(readFile(file), content.toStdString());

    ASSERT_TRUE(client.download(QStringLiteral("/v1/checkpoint"), file, QString::fromLatin1(sha256Hex(content))));
    ASSERT_EQ(server.requests().size(), 3);
    EXPECT_TRUE(server.requests()[2].header("if-none-match").isEmpty());
    EXPECT_EQ(readFile(file), content.toStdString());
}

TEST_F(CoordinatorClientTest, DownloadWithoutAnyDigestIsRefused)
{
    TestHttpServer server([&](const TestHttpRequest &) {
        TestHttpResponse response;
        response.body = content;
        return response;
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "unverified.bin";
    const Result<void> done = client.download(QStringLiteral("/v1/shards/9"), file, {});
    ASSERT_FALSE(done);
    EXPECT_TRUE(contains(done.error().message, "X-Content-SHA256")) << done.error().message;
    EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(CoordinatorClientTest, DownloadErrorStatusIsReportedAndKeepsThePart)
{
    TestHttpServer server([](const TestHttpRequest &) {
        return TestHttpResponse::json(403, R"({"error": "not a member of this round"})");
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path part = dir.write("ckpt.part", "earlier bytes");
    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), dir.path() / "ckpt", {});
    ASSERT_FALSE(done);
    EXPECT_TRUE(contains(done.error().message, "HTTP 403")) << done.error().message;
    EXPECT_TRUE(contains(done.error().message, "not a member of this round")) << done.error().message;
    EXPECT_EQ(server.requests().size(), 1);
    EXPECT_EQ(readFile(part), "earlier bytes");
}

TEST_F(CoordinatorClientTest, DownloadThatCannotBeWrittenFailsClearlyAndIsNotRetried)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "big.bin";

    // A file size limit makes writes fail past 64 KiB, as a full disk would.
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved;
    limited.rlim_cur = 64 * 1024;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), file, {});
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);

    ASSERT_FALSE(done);
    EXPECT_TRUE(contains(done.error().message, "cannot write " + file.string() + ".part")) << done.error().message;
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_EQ(server.requests().size(), 1);
    EXPECT_LE(std::filesystem::file_size(dir.path() / "big.bin.part"), 64u * 1024);

    // Once there is room again, the next call resumes where the write failed.
    const Result<void> resumed = client.download(QStringLiteral("/v1/checkpoint"), file, {});
    ASSERT_TRUE(resumed) << resumed.error().message;
    EXPECT_EQ(server.requests().value(1).header("range"), "bytes=65536-");
    EXPECT_EQ(readFile(file), content.toStdString());
}

TEST_F(CoordinatorClientTest, DownloadRefusesAPartThatIsNotAFile)
{
    TestHttpServer server([&](const TestHttpRequest &request) { return serveFile(request, content); });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    std::filesystem::create_symlink("/dev/zero", dir.path() / "odd.bin.part");
    const Result<void> done = client.download(QStringLiteral("/v1/checkpoint"), dir.path() / "odd.bin", {});
    ASSERT_FALSE(done);
    EXPECT_TRUE(contains(done.error().message, "not a regular file")) << done.error().message;
    EXPECT_EQ(server.connections(), 0);
}

TEST_F(CoordinatorClientTest, CancelFromAnotherThreadStopsASlowDownload)
{
    const QByteArray big(4 * 1024 * 1024, 'w');
    TestHttpServer server([&](const TestHttpRequest &request) {
        TestHttpResponse response = serveFile(request, big);
        response.chunkBytes = 4096; // about 20 s for the whole file
        response.chunkPauseMs = 20;
        return response;
    });
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const std::filesystem::path file = dir.path() / "slow.bin";
    std::promise<void> started;
    std::once_flag once;

    std::future<Result<void>> download = std::async(std::launch::async, [&] {
        return client.download(QStringLiteral("/v1/checkpoint"), file, {}, [&](qint64 done, qint64) {
            if (done > 0)
                std::call_once(once, [&] { started.set_value(); });
        });
    });
    ASSERT_EQ(started.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    client.cancel();
    const Result<void> result = download.get();

    ASSERT_FALSE(result);
    EXPECT_TRUE(CoordinatorClient::isCancelled(result.error())) << result.error().message;
    EXPECT_FALSE(std::filesystem::exists(file));
    // What arrived is kept for the next try.
    const auto kept = std::filesystem::file_size(dir.path() / "slow.bin.part");
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, std::uintmax_t(big.size()));
    EXPECT_EQ(server.requests().size(), 1);
}

TEST_F(CoordinatorClientTest, CancelInterruptsTheBackoffWaitAndStaysUntilReset)
{
    std::promise<void> firstRequest;
    std::atomic<bool> healthy{false};
    std::atomic<bool> seen{false};
    TestHttpServer server([&](const TestHttpRequest &) {
        if (healthy)
            return TestHttpResponse::json(200, "{}");
        TestHttpResponse response = TestHttpResponse::json(503, R"({"error": "busy"})");
        response.addHeader("Retry-After", "60");
        if (!seen.exchange(true))
            firstRequest.set_value();
        return response;
    });
    CoordinatorClientOptions options = optionsFor(server.baseUrl());
    options.maxBackoffMs = 60'000; // Retry-After makes the wait a full minute
    CoordinatorClient client(*identity, options);

    std::future<Result<QJsonObject>> call = std::async(std::launch::async, [&] {
        return client.getJson(QStringLiteral("/v1/round"));
    });
    ASSERT_EQ(firstRequest.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    client.cancel();
    ASSERT_EQ(call.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    const Result<QJsonObject> result = call.get();
    ASSERT_FALSE(result);
    EXPECT_TRUE(CoordinatorClient::isCancelled(result.error())) << result.error().message;
    EXPECT_EQ(server.requests().size(), 1);

    healthy = true;
    const Result<QJsonObject> stillCancelled = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(stillCancelled);
    EXPECT_EQ(server.requests().size(), 1);
    client.resetCancel();
    const Result<QJsonObject> again = client.getJson(QStringLiteral("/v1/round"));
    EXPECT_TRUE(again) << again.error().message;
}

class CoordinatorClientTlsTest : public CoordinatorClientTest {
protected:
    TestTlsCertificate certificate = TestTlsCertificate::selfSigned();
    TestHttpServer server{[](const TestHttpRequest &) { return TestHttpResponse::json(200, R"({"round": 9})"); },
                          certificate};
};

TEST_F(CoordinatorClientTlsTest, TheRightPinAcceptsASelfSignedCertificate)
{
    CoordinatorClientOptions options = optionsFor(server.baseUrl());
    options.pinnedPublicKey = QString::fromLatin1(certificate.pin);
    CoordinatorClient client(*identity, options);
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_TRUE(round) << round.error().message;
    EXPECT_EQ(round->value(QStringLiteral("round")).toInt(), 9);
    ASSERT_EQ(server.requests().size(), 1);
    const Result<void> verified = verifySignature(server.requests()[0]);
    EXPECT_TRUE(verified) << verified.error().message;
}

TEST_F(CoordinatorClientTlsTest, AWrongPinIsRefusedWithoutRetrying)
{
    CoordinatorClientOptions options = optionsFor(server.baseUrl());
    options.pinnedPublicKey = QString::fromLatin1(TestTlsCertificate::selfSigned().pin);
    CoordinatorClient client(*identity, options);
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(round);
    EXPECT_TRUE(contains(round.error().message, "TLS")) << round.error().message;
    EXPECT_EQ(server.requests().size(), 0);
    EXPECT_EQ(client.counters().retries, 0);
}

TEST_F(CoordinatorClientTlsTest, ASelfSignedCertificateWithoutAPinIsRefused)
{
    CoordinatorClient client(*identity, optionsFor(server.baseUrl()));
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(round);
    EXPECT_TRUE(contains(round.error().message, "TLS")) << round.error().message;
    EXPECT_EQ(server.requests().size(), 0);
}

// http:// to a server that speaks TLS: one attempt, and an error that says to use https://.
TEST_F(CoordinatorClientTlsTest, PlainHttpToATlsServerSaysItSpeaksHttpsWithoutRetrying)
{
    const QString address = QStringLiteral("127.0.0.1:%1").arg(server.port());
    CoordinatorClient client(*identity, optionsFor(QStringLiteral("http://") + address));
    const Result<QJsonObject> round = client.getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(round);
    EXPECT_TRUE(contains(round.error().message, "speaks HTTPS, not HTTP: use https://" + address.toStdString()))
        << round.error().message;
    EXPECT_EQ(client.counters().retries, 0);
    EXPECT_EQ(server.requests().size(), 0);
}

TEST_F(CoordinatorClientTlsTest, APinNeedsHttpsAndTheRightForm)
{
    CoordinatorClientOptions plain = optionsFor(QStringLiteral("http://127.0.0.1:%1").arg(server.port()));
    plain.pinnedPublicKey = QString::fromLatin1(certificate.pin);
    const Result<QJsonObject> overHttp = CoordinatorClient(*identity, plain).getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(overHttp);
    EXPECT_TRUE(contains(overHttp.error().message, "https://")) << overHttp.error().message;

    CoordinatorClientOptions malformed = optionsFor(server.baseUrl());
    malformed.pinnedPublicKey = QStringLiteral("AB:CD:EF");
    const Result<QJsonObject> badPin = CoordinatorClient(*identity, malformed).getJson(QStringLiteral("/v1/round"));
    ASSERT_FALSE(badPin);
    EXPECT_TRUE(contains(badPin.error().message, "sha256//")) << badPin.error().message;
    EXPECT_EQ(server.connections(), 0);
}

TEST_F(CoordinatorClientTest, RefusesPlainHttpToAHostOffThisMachineUnlessAllowed)
{
    // Fails before anything is sent: one attempt, no retries, a line that says what to do.
    CoordinatorClientOptions options = optionsFor(QStringLiteral("http://10.1.2.3:8470"));
    const Result<QJsonObject> refused = CoordinatorClient(*identity, options).getJson(QStringLiteral("/v1/status"));
    ASSERT_FALSE(refused);
    EXPECT_TRUE(contains(refused.error().message, "refusing plain http:// to 10.1.2.3")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "--allow-plain-http")) << refused.error().message;
    for (const char *url : {"http://swarm.example.org", "http://[2001:db8::1]:8470", "HTTP://192.168.1.5:8470"}) {
        const Result<QJsonObject> other =
            CoordinatorClient(*identity, optionsFor(QString::fromLatin1(url))).getJson(QStringLiteral("/v1/status"));
        ASSERT_FALSE(other) << url;
        EXPECT_TRUE(contains(other.error().message, "refusing plain http://")) << url << ": " << other.error().message;
    }

    // Allowed: the client goes out and tries (nothing answers at that address in a test).
    options.allowPlainHttp = true;
    options.maxAttempts = 1;
    options.connectTimeoutMs = 1;
    const Result<QJsonObject> tried = CoordinatorClient(*identity, options).getJson(QStringLiteral("/v1/status"));
    ASSERT_FALSE(tried);
    EXPECT_FALSE(contains(tried.error().message, "refusing")) << tried.error().message;
}

TEST_F(CoordinatorClientTest, PlainHttpToLoopbackNeedsNoPermission)
{
    TestHttpServer server([](const TestHttpRequest &) { return TestHttpResponse::json(200, R"({"round": 1})"); });
    for (const QString &host : {QStringLiteral("127.0.0.1"), QStringLiteral("localhost")}) {
        CoordinatorClient client(*identity, optionsFor(QStringLiteral("http://%1:%2").arg(host).arg(server.port())));
        const Result<QJsonObject> answer = client.getJson(QStringLiteral("/v1/round"));
        ASSERT_TRUE(answer) << answer.error().message;
        EXPECT_EQ(answer->value(QStringLiteral("round")).toInt(), 1);
    }
}

TEST(HttpBackoffTest, GrowsExponentiallyUpToTheCapWithFullJitter)
{
    EXPECT_EQ(backoffDelayMs(0, 250, 30'000, -1, 0.999999), 249);
    EXPECT_EQ(backoffDelayMs(2, 250, 30'000, -1, 0.5), 500);     // 250 * 4 * 0.5
    EXPECT_EQ(backoffDelayMs(20, 250, 30'000, -1, 0.5), 15'000); // capped at 30 s
    EXPECT_EQ(backoffDelayMs(3, 250, 30'000, -1, 0.0), 0);
}

TEST(HttpBackoffTest, RetryAfterIsAFloorCappedAtTheMaximum)
{
    EXPECT_EQ(backoffDelayMs(0, 250, 30'000, 5'000, 0.1), 5'000);
    EXPECT_EQ(backoffDelayMs(0, 250, 30'000, 3'600'000, 0.1), 30'000);
    EXPECT_EQ(backoffDelayMs(5, 250, 30'000, 1'000, 0.5), 4'000);
}
