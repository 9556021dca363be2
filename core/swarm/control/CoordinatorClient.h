#pragma once

#include "RequestSignature.h"
#include "Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <string_view>

namespace swarmtrain {

class HttpPartFile;
class Identity;
struct HttpRequest;
struct HttpResponse;

struct CoordinatorClientOptions {
    QString baseUrl;         // http://host:port or https://host:port
    QString pinnedPublicKey; // "" or "sha256//BASE64": SHA-256 of the server certificate's
                             // SubjectPublicKeyInfo DER, base64 (libcurl's CURLOPT_PINNEDPUBLICKEY);
                             // when set, a self-signed certificate is accepted only if it matches.
    int maxAttempts = 5;
    int initialBackoffMs = 250; // exponential, full jitter
    int maxBackoffMs = 30000;
    int connectTimeoutMs = 5000;
    // The whole exchange for JSON calls; for postBytes() and download(), which move large
    // files, the longest time without a byte moving.
    int requestTimeoutMs = 30000;
    // The local address requests leave from ("" for the system's choice): a peer whose data plane
    // listens on one address of several talks to the coordinator from it, since the coordinator
    // accepts only a data-plane endpoint on the address a join comes from.
    QString sourceAddress{};
    // Plain http:// to a host other than loopback is refused unless this is set: without TLS
    // anyone on the path can forge the coordinator's answers (rounds, members, checkpoints).
    bool allowPlainHttp = false;
};

// The client's control plane (DESIGN.md, "Swarm protocol"): signed HTTP(S) calls to the
// coordinator through libcurl. Calls block the calling thread (the swarm worker's), retry
// connection failures, timeouts, 429 and 5xx with backoff, and fail with one clear line.
// `identity` must outlive the client.
class CoordinatorClient {
public:
    struct Counters {
        qint64 bytesUp = 0;
        qint64 bytesDown = 0;
        qint64 retries = 0;
    };

    CoordinatorClient(const Identity &identity, CoordinatorClientOptions options);
    CoordinatorClient(const CoordinatorClient &) = delete;
    CoordinatorClient &operator=(const CoordinatorClient &) = delete;

    Result<QJsonObject> getJson(const QString &pathAndQuery);
    Result<QJsonObject> postJson(const QString &pathAndQuery, const QJsonObject &body);
    Result<QJsonObject> postBytes(const QString &pathAndQuery, const QByteArray &body); // e.g. a checkpoint upload

    // Downloads to `file` through FILE.part, resuming an existing .part with a Range request,
    // verifies the SHA-256 of the whole file against expectedSha256Hex, or when that is empty
    // against the X-Content-SHA256 answer header, then renames it into place atomically. A
    // mismatch deletes the .part; a failed or cancelled transfer keeps it for the next try.
    // With none expected, a whole `file` already there is named in If-None-Match and kept when
    // the coordinator answers 304 (the Model page's state, asked for at each prompt).
    // progress(done, total) counts bytes of the whole file; total is -1 when unknown.
    Result<void> download(const QString &path, const std::filesystem::path &file, const QString &expectedSha256Hex,
                          const std::function<void(qint64 done, qint64 total)> &progress = {});

    // Thread-safe: running and later calls fail promptly with the error "cancelled" until
    // resetCancel(), so a cancel that lands between two calls is not lost.
    void cancel();
    void resetCancel();
    static bool isCancelled(const Error &error) { return error.message == kCancelled; }
    // A download whose bytes were not the ones expected (deleted): asking again gets the same.
    static bool isHashMismatch(const Error &error) { return error.message.starts_with(kHashMismatchPrefix); }
    // The HTTP status of a call the coordinator answered with an error (4xx, or 5xx after the
    // retries); 0 when it never answered.
    static int httpStatus(const Error &error);
    // The swarm's URL says http:// and the coordinator speaks HTTPS: no retry can help.
    static bool isWrongScheme(const Error &error) { return error.message.find(kWrongScheme) != std::string::npos; }

    Counters counters() const;

private:
    static constexpr const char *kCancelled = "cancelled";
    static constexpr std::string_view kHttpErrorPrefix = "coordinator answered HTTP ";
    static constexpr std::string_view kWrongScheme = " speaks HTTPS, not HTTP: ";
    static constexpr std::string_view kHashMismatchPrefix = "SHA-256 mismatch for ";

    // What one attempt of a call came to.
    struct Attempt {
        enum Kind { Done, Retry, Fail } kind;
        std::string error;
        std::int64_t retryAfterMs = -1;
    };

    Result<QJsonObject> requestJson(QByteArrayView method, const QString &pathAndQuery, const QByteArray &body,
                                    QByteArrayView contentType, bool largeTransfer);
    Result<void> withRetries(const std::string &what, const std::function<Attempt()> &attempt);
    Result<QByteArray> requestTarget(const QString &pathAndQuery) const;
    HttpRequest signedRequest(QByteArrayView method, const QByteArray &target, const QByteArray &body,
                              bool largeTransfer);
    std::string describeHttpError(QByteArrayView method, const QByteArray &target, int status,
                                  const QByteArray &body) const;
    // A download's state across its tries.
    struct Download {
        QByteArray heldSha256;      // of the whole file already there, sent as If-None-Match
        bool unchanged = false;     // the coordinator answered 304: that file is its current one
        QByteArray announcedSha256; // X-Content-SHA256 of the answer
    };
    // One try of download(): the rest of the file from where `part` ends.
    Attempt downloadAttempt(const QByteArray &target, const std::string &what, HttpPartFile &part,
                            const std::filesystem::path &file, const std::function<void(qint64, qint64)> &progress,
                            Download &download);
    // Moves the finished `part` to `file` if its SHA-256 is `wanted`; deletes it otherwise.
    Result<void> commitVerified(HttpPartFile &part, const std::filesystem::path &file, const std::string &wanted);
    Attempt transferFailure(const HttpResponse &response, const std::string &what, const std::string &task) const;
    bool cancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    bool waitUnlessCancelled(std::int64_t delayMs);

    CoordinatorClientOptions m_options;
    QByteArray m_origin;     // scheme://host:port
    QByteArray m_basePath;   // a path prefix of baseUrl, without the trailing '/'
    std::string m_setupError; // a bad baseUrl or pin, reported by every call

    std::mutex m_signerMutex;
    RequestSigner m_signer;

    std::mutex m_waitMutex;
    std::condition_variable m_wake;
    std::mt19937_64 m_random; // jitter; guarded by m_waitMutex
    std::atomic<bool> m_cancelled{false};

    std::atomic<qint64> m_bytesUp{0};
    std::atomic<qint64> m_bytesDown{0};
    std::atomic<qint64> m_retries{0};
};

} // namespace swarmtrain
