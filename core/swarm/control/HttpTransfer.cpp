#include "HttpTransfer.h"

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>

namespace swarmtrain {

namespace {

// Error answers only feed a one-line message; a 2xx body has its own limit.
constexpr qsizetype kMaxErrorBodyBytes = 64 * 1024;

void initCurlOnce()
{
    // curl_global_init is not thread-safe and must run before any handle exists; it stays
    // initialised for the life of the process.
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
    void operator()(CURL *curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
    void operator()(curl_slist *list) const { curl_slist_free_all(list); }
};

struct Exchange {
    HttpHooks &hooks;
    const HttpRequest &request;
    HttpResponse response;
    bool headersDone = false;
    bool abortedByHook = false;
    bool tooLarge = false;

    bool isSuccess() const { return response.status >= 200 && response.status < 300; }
};

size_t onHeaderLine(char *data, size_t size, size_t count, void *user)
{
    auto &exchange = *static_cast<Exchange *>(user);
    const size_t bytes = size * count;
    const QByteArray line = QByteArray(data, qsizetype(bytes)).trimmed();
    if (line.startsWith("HTTP/")) {
        // A new answer (after a 1xx, say): forget the previous one's headers.
        const QList<QByteArray> parts = line.split(' ');
        exchange.response.status = parts.size() > 1 ? parts[1].toInt() : 0;
        exchange.response.headers.clear();
        return bytes;
    }
    if (line.isEmpty()) {
        if (exchange.response.status >= 200 && !exchange.headersDone) {
            exchange.headersDone = true;
            const HttpHooks &hooks = exchange.hooks;
            if (hooks.onHeaders && !hooks.onHeaders(exchange.response.status, exchange.response.headers)) {
                exchange.abortedByHook = true;
                return 0;
            }
        }
        return bytes;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon > 0)
        exchange.response.headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
    return bytes;
}

size_t onBody(char *data, size_t size, size_t count, void *user)
{
    auto &exchange = *static_cast<Exchange *>(user);
    const size_t bytes = size * count;
    if (exchange.isSuccess()) {
        if (exchange.hooks.sink) {
            if (!exchange.hooks.sink(data, bytes)) {
                exchange.abortedByHook = true;
                return 0;
            }
            return bytes;
        }
        if (exchange.response.body.size() + qint64(bytes) > exchange.request.maxBodyBytes) {
            exchange.tooLarge = true;
            return 0;
        }
        exchange.response.body.append(data, qsizetype(bytes));
        return bytes;
    }
    const qsizetype room = std::max<qsizetype>(0, kMaxErrorBodyBytes - exchange.response.body.size());
    exchange.response.body.append(data, std::min(room, qsizetype(bytes)));
    return bytes;
}

int onProgress(void *user, curl_off_t downloadTotal, curl_off_t downloadNow, curl_off_t, curl_off_t)
{
    auto &exchange = *static_cast<Exchange *>(user);
    if (exchange.hooks.cancelled && exchange.hooks.cancelled())
        return 1;
    if (exchange.hooks.progress && exchange.headersDone && exchange.isSuccess())
        exchange.hooks.progress(downloadNow, downloadTotal > 0 ? downloadTotal : -1);
    return 0;
}

HttpOutcome classify(CURLcode code)
{
    switch (code) {
    case CURLE_OK:
        return HttpOutcome::Answered;
    case CURLE_ABORTED_BY_CALLBACK:
        return HttpOutcome::Cancelled;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_USE_SSL_FAILED:
        return HttpOutcome::TlsError;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_NOT_BUILT_IN:
    case CURLE_UNKNOWN_OPTION:
    case CURLE_FAILED_INIT:
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
        return HttpOutcome::Failed;
    default:
        // Refused or reset connections, timeouts, a server that closed mid-answer.
        return HttpOutcome::NetworkError;
    }
}

// Everything the transfer is told before it runs: the request, its limits and pin, and the
// callbacks that feed `exchange`.
void configure(CURL *handle, const HttpRequest &request, curl_slist *headers, Exchange &exchange, char *errorText)
{
    curl_easy_setopt(handle, CURLOPT_URL, request.url.constData());
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L); // we run on worker threads
    curl_easy_setopt(handle, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
    // The request target is signed as given; curl must send it unchanged.
    curl_easy_setopt(handle, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(handle, CURLOPT_USERAGENT, "SwarmTrain");
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorText);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMs);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, request.totalTimeoutMs);
    if (request.stallTimeoutMs > 0) {
        curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, std::max(1L, request.stallTimeoutMs / 1000));
    }
    if (!request.pinnedPublicKey.isEmpty()) {
        // The pin is the identity check: a self-signed certificate carries no CA chain and
        // often no matching host name, so only its key is compared.
        curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(handle, CURLOPT_PINNEDPUBLICKEY, request.pinnedPublicKey.constData());
    }
    // "host!": an address to bind, never an interface name to look up.
    const QByteArray interface = "host!" + request.sourceAddress;
    if (!request.sourceAddress.isEmpty())
        curl_easy_setopt(handle, CURLOPT_INTERFACE, interface.constData());
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    if (request.method == "GET") {
        curl_easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    } else {
        if (request.method != "POST")
            curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.constData());
        curl_easy_setopt(handle, CURLOPT_POST, 1L);
        curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
        curl_easy_setopt(handle, CURLOPT_POSTFIELDS, request.body.constData());
    }
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, onHeaderLine);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &exchange);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &exchange);
    curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &exchange);
}

} // namespace

HttpResponse performHttpRequest(const HttpRequest &request, HttpHooks &hooks)
{
    initCurlOnce();
    Exchange exchange{hooks, request, {}};
    std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
    if (!curl) {
        exchange.response.error = "cannot start a libcurl transfer";
        return exchange.response;
    }
    std::unique_ptr<curl_slist, ListDeleter> headers;
    for (const QByteArray &header : request.headers) {
        curl_slist *appended = curl_slist_append(headers.get(), header.constData());
        if (!appended) {
            exchange.response.error = "out of memory";
            return exchange.response;
        }
        if (!headers)
            headers.reset(appended); // later appends return the same head
    }

    char errorText[CURL_ERROR_SIZE] = {};
    CURL *handle = curl.get();
    configure(handle, request, headers.get(), exchange, errorText);
    const CURLcode code = curl_easy_perform(handle);

    HttpResponse &response = exchange.response;
    curl_off_t up = 0, down = 0, retryAfterSeconds = 0;
    curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &up);
    curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, &down);
    response.bytesUp = up;
    response.bytesDown = down;
    const bool hasRetryAfter = response.headers.contains("retry-after");
    if (hasRetryAfter && curl_easy_getinfo(handle, CURLINFO_RETRY_AFTER, &retryAfterSeconds) == CURLE_OK)
        response.retryAfterMs = std::int64_t(retryAfterSeconds) * 1000;

    response.outcome = classify(code);
    if (exchange.abortedByHook) {
        response.outcome = HttpOutcome::Failed;
        response.error = hooks.hookError.empty() ? "the transfer was refused" : hooks.hookError;
    } else if (exchange.tooLarge) {
        response.outcome = HttpOutcome::Failed;
        response.error = "the answer is larger than " + std::to_string(request.maxBodyBytes / (1024 * 1024)) + " MiB";
    } else if (code != CURLE_OK) {
        response.error = errorText[0] != '\0' ? errorText : curl_easy_strerror(code);
    }
    response.noHttpAnswer = request.url.startsWith("http://")
                            && (code == CURLE_GOT_NOTHING || code == CURLE_WEIRD_SERVER_REPLY || code == CURLE_RECV_ERROR
                                || code == CURLE_UNSUPPORTED_PROTOCOL);
    return response;
}

bool speaksTls(const QByteArray &httpsUrl, long timeoutMs)
{
    initCurlOnce();
    std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
    if (!curl)
        return false;
    CURL *handle = curl.get();
    curl_easy_setopt(handle, CURLOPT_URL, httpsUrl.constData());
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECT_ONLY, 1L); // connect and shake hands, send nothing
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMs);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeoutMs);
    return curl_easy_perform(handle) == CURLE_OK;
}

} // namespace swarmtrain
