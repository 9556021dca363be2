// BoundedHttpServer in-process against raw sockets on loopback: what it refuses, and when, before
// anything is buffered; keep-alive and pipelining; spooled bodies and streamed files.
#include "BoundedHttpServer.h"
#include "RawHttpClient.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "TlsIdentity.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QSslKey>
#include <QSslSocket>

#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace swarmtrain;
using swarmtrain::test::RawHttpClient;

namespace {

std::string get(const std::string &path, const std::string &extra = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

std::string post(const std::string &path, const std::string &body)
{
    return "POST " + path + " HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class BoundedHttpServerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        limits.headTimeoutMs = 300;
        limits.maxConnectionsPerAddress = 3;
        limits.trustedProxies = {QHostAddress(QStringLiteral("127.0.0.3"))}; // a load balancer in front
        file = dir.write("file.bin", std::string(3 << 20, 'f'));
        server = std::make_unique<BoundedHttpServer>(
            limits, [this](const HttpRequest &request) { return admit(request); },
            [this](const HttpRequest &request, HttpConnection::Replier reply) { handle(request, std::move(reply)); });
        Result<quint16> listening = server->listen(QHostAddress(QHostAddress::LocalHost), 0, std::nullopt);
        ASSERT_TRUE(listening.ok()) << listening.error().message;
        port = *listening;
    }

    HttpAdmission admit(const HttpRequest &request)
    {
        ++admitted;
        HttpAdmission admission;
        const QString path = request.url().path();
        if (path == QLatin1StringView("/echo")) {
            admission.maxBodyBytes = 1024;
        } else if (path == QLatin1StringView("/spool")) {
            admission.maxBodyBytes = 1 << 20;
            admission.spoolDir = QString::fromStdString(dir.path().string());
        } else if (path != QLatin1StringView("/file") && path != QLatin1StringView("/whoami")
                   && !path.startsWith(QLatin1StringView("/get"))) {
            admission.refusal = HttpReply::error(404, QStringLiteral("no such endpoint"));
        }
        return admission;
    }

    // /echo: the body back; /spool: the spooled file's size and the body's hash; /file: a
    // streamed download; /whoami: the client's address as the server sees it; /getN: the path back.
    void handle(const HttpRequest &request, const HttpConnection::Replier &reply)
    {
        HttpReply answer;
        const QString path = request.url().path();
        if (path == QLatin1StringView("/echo")) {
            answer.body = request.body();
        } else if (path == QLatin1StringView("/spool")) {
            answer.body = QByteArray::number(request.bodyFile()->size()) + ' ' + request.bodySha256Hex();
        } else if (path == QLatin1StringView("/file")) {
            auto open = std::make_shared<QFile>(QString::fromStdString(file.string()));
            EXPECT_TRUE(open->open(QIODevice::ReadOnly));
            answer.file = HttpReply::FilePart{open, 1, open->size() - 1};
        } else if (path == QLatin1StringView("/whoami")) {
            answer.body = request.remoteAddress().toString().toLatin1();
        } else {
            answer.body = path.toLatin1();
        }
        reply(answer);
    }

    // Runs `client` on a thread of its own while this thread's event loop serves it.
    void withClient(const std::function<void()> &client)
    {
        std::atomic<bool> done{false};
        std::thread thread([&] {
            client();
            done = true;
            QMetaObject::invokeMethod(QCoreApplication::instance(), [] {}, Qt::QueuedConnection);
        });
        while (!done)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        thread.join();
    }

    test::TempDir dir;
    std::filesystem::path file;
    HttpLimits limits;
    std::unique_ptr<BoundedHttpServer> server;
    int port = 0;
    std::atomic<int> admitted{0};
};

} // namespace

TEST_F(BoundedHttpServerTest, KeepAliveServesRequestsOneAfterAnotherOnOneConnection)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        for (const char *path : {"/get1", "/get2", "/get3"}) {
            ASSERT_TRUE(client.send(get(path)));
            const RawHttpClient::Response answer = client.read();
            EXPECT_EQ(answer.status, 200);
            EXPECT_EQ(answer.body, path);
            EXPECT_EQ(answer.headers.at("connection"), "keep-alive");
        }
        ASSERT_TRUE(client.send(post("/echo", "hello")));
        EXPECT_EQ(client.read().body, "hello");
    });
}

TEST_F(BoundedHttpServerTest, PipelinedRequestsAreAnsweredOneByOneInOrder)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        std::string burst;
        for (int i = 0; i < 50; ++i)
            burst += get("/get" + std::to_string(i));
        ASSERT_TRUE(client.send(burst));
        for (int i = 0; i < 50; ++i)
            EXPECT_EQ(client.read().body, "/get" + std::to_string(i));
    });
}

TEST_F(BoundedHttpServerTest, AHeadOverTheLimitIs431AndTheConnectionCloses)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        const std::string huge = "GET /get1 HTTP/1.1\r\nX-Filler: " + std::string(std::size_t(limits.maxHeadBytes), 'x');
        client.send(huge); // the server may hang up before it is all sent
        EXPECT_EQ(client.read().status, 431);
        EXPECT_TRUE(client.waitUntilClosed());
    });
    EXPECT_EQ(admitted, 0) << "nothing of an oversized head reaches the owner";
}

TEST_F(BoundedHttpServerTest, ABodyOverTheRoutesLimitIsRefusedBeforeItIsSent)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        // Only the head: the answer must come without a byte of the announced gigabyte.
        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nContent-Length: 1073741824\r\n\r\n"));
        const RawHttpClient::Response answer = client.read();
        EXPECT_EQ(answer.status, 413);
        EXPECT_NE(answer.body.find("\"error\""), std::string::npos);
        EXPECT_TRUE(client.waitUntilClosed());
    });
}

TEST_F(BoundedHttpServerTest, ASmallOverLimitBodyIsDroppedAndTheConnectionStaysUsable)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send(post("/echo", std::string(4096, 'b'))));
        EXPECT_EQ(client.read().status, 413);
        ASSERT_TRUE(client.send(post("/echo", "after")));
        EXPECT_EQ(client.read().body, "after");
    });
}

TEST_F(BoundedHttpServerTest, BodiesNeedAContentLengthAndChunkedIsRefused)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: test\r\n\r\n"));
        EXPECT_EQ(client.read().status, 411);
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
        EXPECT_EQ(client.read().status, 411);
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"));
        EXPECT_EQ(client.read().status, 400);
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send("GET /get1 HTTP/2.0\r\n\r\n"));
        EXPECT_EQ(client.read().status, 505);
    });
}

TEST_F(BoundedHttpServerTest, AHeadThatDoesNotFinishInTimeIsCutOff)
{
    withClient([&] {
        RawHttpClient slow;
        ASSERT_TRUE(slow.connect(port));
        ASSERT_TRUE(slow.send("GET /get1 HTTP/1.1\r\nX-Slow: "));
        EXPECT_TRUE(slow.waitUntilClosed()) << "the server ends a head that never ends";
    });
    EXPECT_EQ(admitted, 0);
}

TEST_F(BoundedHttpServerTest, ConnectionsPerAddressAreCapped)
{
    withClient([&] {
        RawHttpClient kept[3];
        for (RawHttpClient &client : kept) {
            ASSERT_TRUE(client.connect(port));
            ASSERT_TRUE(client.send(get("/get1")));
            ASSERT_EQ(client.read().status, 200) << "the first three are served";
        }
        RawHttpClient fourth;
        ASSERT_TRUE(fourth.connect(port)); // the kernel accepts it; the server drops it
        fourth.send(get("/get1"));
        EXPECT_EQ(fourth.read().status, 0);
        RawHttpClient other;
        ASSERT_TRUE(other.connect(port, "127.0.0.2"));
        ASSERT_TRUE(other.send(get("/get2")));
        EXPECT_EQ(other.read().status, 200) << "another address has its own share";
    });
}

TEST_F(BoundedHttpServerTest, ASpooledBodyIsHashedAsItArrives)
{
    const std::string body(700'000, 's');
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send(post("/spool", body)));
        const std::string expected = std::to_string(body.size()) + ' '
                                     + QCryptographicHash::hash(QByteArray::fromStdString(body), QCryptographicHash::Sha256)
                                           .toHex()
                                           .toStdString();
        EXPECT_EQ(client.read().body, expected);
    });
}

TEST_F(BoundedHttpServerTest, AStreamedFileArrivesWholeAndTheConnectionGoesOn)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send(get("/file") + get("/get1")));
        const RawHttpClient::Response download = client.read();
        EXPECT_EQ(download.status, 200);
        EXPECT_EQ(download.body.size(), std::size_t(3 << 20) - 1);
        EXPECT_EQ(download.body.find_first_not_of('f'), std::string::npos);
        EXPECT_EQ(client.read().body, "/get1");
    });
}

TEST_F(BoundedHttpServerTest, ExpectContinueIsAnsweredBeforeTheBodyOrRefusedInstead)
{
    withClient([&] {
        RawHttpClient client;
        ASSERT_TRUE(client.connect(port));
        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
        EXPECT_EQ(client.read().status, 100) << "go on";
        ASSERT_TRUE(client.send("hello"));
        EXPECT_EQ(client.read().body, "hello");

        ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n"));
        const RawHttpClient::Response refused = client.read();
        EXPECT_EQ(refused.status, 413) << "refused without waiting for the body it need not send";
        EXPECT_EQ(refused.headers.at("connection"), "close");
    });
}

TEST_F(BoundedHttpServerTest, OverTlsAStreamedFileArrivesWhole)
{
    std::filesystem::create_directories(dir.path() / "tls");
    Result<TlsIdentity> identity = TlsIdentity::loadOrCreateSelfSigned(dir.path() / "tls");
    ASSERT_TRUE(identity.ok()) << identity.error().message;
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificate(QSslCertificate(identity->certificatePem, QSsl::Pem));
    tls.setPrivateKey(QSslKey(identity->privateKeyPem, QSsl::Ec, QSsl::Pem));
    BoundedHttpServer secure(
        limits, [this](const HttpRequest &request) { return admit(request); },
        [this](const HttpRequest &request, HttpConnection::Replier reply) { handle(request, std::move(reply)); });
    Result<quint16> listening = secure.listen(QHostAddress(QHostAddress::LocalHost), 0, tls);
    ASSERT_TRUE(listening.ok()) << listening.error().message;
    QByteArray received;
    withClient([&] {
        QSslSocket client; // blocking calls: this thread has no event loop
        client.setPeerVerifyMode(QSslSocket::VerifyNone);
        client.connectToHostEncrypted(QStringLiteral("127.0.0.1"), *listening);
        ASSERT_TRUE(client.waitForEncrypted(120'000)) << client.errorString().toStdString();
        client.write(QByteArray::fromStdString(get("/file")));
        const qsizetype whole = (3 << 20) - 1;
        while (received.size() < whole + 100 && client.waitForReadyRead(120'000)) {
            received += client.readAll();
            if (received.contains("\r\n\r\n") && received.size() - received.indexOf("\r\n\r\n") - 4 >= whole)
                break;
        }
    });
    const qsizetype bodyAt = received.indexOf("\r\n\r\n") + 4;
    EXPECT_TRUE(received.startsWith("HTTP/1.1 200 OK"));
    EXPECT_EQ(received.size() - bodyAt, (3 << 20) - 1);
}

// Behind a load balancer (--trusted-proxy) a request is from the address the balancer added last
// to X-Forwarded-For; anyone else's X-Forwarded-For, and whatever a client put before it, is a lie
// that changes nothing.
TEST_F(BoundedHttpServerTest, OnlyATrustedProxyNamesTheClientsAddress)
{
    const auto whoami = [&](const char *from, const std::string &headers) {
        RawHttpClient client;
        EXPECT_TRUE(client.connect(port, from));
        EXPECT_TRUE(client.send(get("/whoami", headers)));
        return client.read().body;
    };
    withClient([&] {
        EXPECT_EQ(whoami("127.0.0.1", "X-Forwarded-For: 203.0.113.9\r\n"), "127.0.0.1") << "not a proxy";
        EXPECT_EQ(whoami("127.0.0.3", "X-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: 10.0.0.1, 203.0.113.9\r\n"),
                  "203.0.113.9")
            << "the proxy's own header comes last, and its last entry is the address it saw";
        EXPECT_EQ(whoami("127.0.0.3", "X-Forwarded-For: 2001:db8::7\r\n"), "2001:db8::7");
        EXPECT_EQ(whoami("127.0.0.3", "X-Forwarded-For: not-an-address\r\n"), "127.0.0.3");
        EXPECT_EQ(whoami("127.0.0.3", "X-Forwarded-For: 10.0.0.1, \r\n"), "127.0.0.3");
        EXPECT_EQ(whoami("127.0.0.3", ""), "127.0.0.3");
        // The proxy carries everyone's requests: its connections are not capped per address.
        RawHttpClient kept[5];
        for (RawHttpClient &client : kept) {
            ASSERT_TRUE(client.connect(port, "127.0.0.3"));
            ASSERT_TRUE(client.send(get("/get1")));
            EXPECT_EQ(client.read().status, 200);
        }
    });
}
