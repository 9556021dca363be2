#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>

#include <cstdint>
#include <functional>
#include <string>

namespace swarmtrain {

// One HTTP exchange through a libcurl easy handle, blocking the calling thread. Retries,
// signing and what the answer means are the caller's business (CoordinatorClient).
struct HttpRequest {
    QByteArray method; // "GET" or "POST"
    QByteArray url;
    QList<QByteArray> headers; // "Name: value"
    QByteArray body;           // sent when method is POST
    QByteArray pinnedPublicKey; // "sha256//BASE64": accept only this TLS key, self-signed or not
    QByteArray sourceAddress;   // the local IP address to connect from; "" for the system's choice
    long connectTimeoutMs = 5000;
    long totalTimeoutMs = 0;  // 0: none
    long stallTimeoutMs = 0;  // 0: none; else fail when no byte moves for this long (big transfers)
    std::int64_t maxBodyBytes = 16 * 1024 * 1024; // for a 2xx answer that is not given to a sink
};

enum class HttpOutcome {
    Answered,     // a complete HTTP answer, whatever its status
    NetworkError, // connect, resolve, timeout, reset: worth retrying
    TlsError,     // the certificate or pinned key was refused: retrying will not help
    Failed,       // bad URL, too large an answer, a hook refused: retrying will not help
    Cancelled,
};

struct HttpResponse {
    HttpOutcome outcome = HttpOutcome::Failed;
    std::string error; // one line, when outcome is not Answered
    int status = 0;
    QMap<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;                        // unless a sink took it; error bodies are cut at 64 KiB
    std::int64_t retryAfterMs = -1;         // from a Retry-After header, -1 without one
    std::int64_t bytesUp = 0;
    std::int64_t bytesDown = 0;
    // An http:// request that got no HTTP answer back (an empty or garbled reply): what a TLS
    // server does with plain HTTP. speaksTls() can tell.
    bool noHttpAnswer = false;

    QByteArray header(const QByteArray &lowerCaseName) const { return headers.value(lowerCaseName); }
    bool success() const { return outcome == HttpOutcome::Answered && status >= 200 && status < 300; }
};

struct HttpHooks {
    std::function<bool()> cancelled; // polled while the transfer runs
    // Called once the final answer's headers are in; returning false aborts (outcome Failed,
    // error `hookError`, which the hook sets).
    std::function<bool(int status, const QMap<QByteArray, QByteArray> &headers)> onHeaders;
    // Receives a 2xx body instead of the in-memory buffer; false aborts like onHeaders.
    std::function<bool(const char *data, std::size_t size)> sink;
    std::function<void(std::int64_t received, std::int64_t expected)> progress; // expected -1 when unknown
    std::string hookError;
};

HttpResponse performHttpRequest(const HttpRequest &request, HttpHooks &hooks);

// Whether a TLS server answers at `httpsUrl`'s host and port: a handshake only, its certificate
// unchecked, no request sent.
bool speaksTls(const QByteArray &httpsUrl, long timeoutMs);

} // namespace swarmtrain
