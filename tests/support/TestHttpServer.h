#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

typedef struct ssl_ctx_st SSL_CTX;

namespace swarmtrain::test {

struct TestHttpRequest {
    QByteArray method;
    QByteArray target; // path and query exactly as received
    QMap<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;

    QByteArray header(const QByteArray &lowerCaseName) const { return headers.value(lowerCaseName); }
};

struct TestHttpResponse {
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    qsizetype sendOnlyBytes = -1; // announce the whole body, send this much, then hang up
    qsizetype chunkBytes = 0;     // with chunkPauseMs: a slow server
    int chunkPauseMs = 0;
    bool hangUpWithoutAnswer = false;

    void addHeader(const QByteArray &name, const QByteArray &value) { headers.append(qMakePair(name, value)); }

    static TestHttpResponse json(int status, const QByteArray &body)
    {
        TestHttpResponse response;
        response.status = status;
        response.addHeader("Content-Type", "application/json");
        response.body = body;
        return response;
    }
};

// A self-signed certificate for 127.0.0.1 made with OpenSSL, and its libcurl pin.
struct TestTlsCertificate {
    QByteArray certificatePem;
    QByteArray privateKeyPem;
    QByteArray pin; // "sha256//" + base64 of the SHA-256 of the SubjectPublicKeyInfo DER

    static TestTlsCertificate selfSigned();
};

// A scripted HTTP/1.1 server on 127.0.0.1 (an OS-chosen port), served by one thread of the
// test: one request per connection, answered by `handler` on that thread.
class TestHttpServer {
public:
    using Handler = std::function<TestHttpResponse(const TestHttpRequest &)>;

    explicit TestHttpServer(Handler handler, std::optional<TestTlsCertificate> tls = std::nullopt);
    ~TestHttpServer();
    TestHttpServer(const TestHttpServer &) = delete;
    TestHttpServer &operator=(const TestHttpServer &) = delete;

    quint16 port() const { return m_port; }
    QString baseUrl() const;
    QList<TestHttpRequest> requests() const;
    int connections() const { return m_connections.load(); }

    // A port nothing listens on (bound, then closed), for connection-refused tests.
    static quint16 unusedPort();

private:
    class Connection;
    void serve();
    void handle(int fd);
    bool pause(int ms);

    Handler m_handler;
    SSL_CTX *m_tls = nullptr;
    int m_listenFd = -1;
    int m_wakePipe[2] = {-1, -1};
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_connections{0};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    QList<TestHttpRequest> m_requests;
    std::thread m_thread;
};

} // namespace swarmtrain::test
