#include "CoordinatorClient.h"

#include "HttpBackoff.h"
#include "HttpPartFile.h"
#include "HttpTransfer.h"
#include "Identity.h"
#include "Invite.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLoggingCategory>
#include <QUrl>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace swarmtrain {

namespace {

Q_LOGGING_CATEGORY(lcSwarm, "swarmtrain.swarm", QtInfoMsg)

constexpr std::int64_t kMaxJsonAnswerBytes = 16 * 1024 * 1024;
constexpr qsizetype kMaxServerMessageChars = 300;

std::string toStd(QByteArrayView bytes) { return std::string(bytes.data(), std::size_t(bytes.size())); }

// The server's {"error": "..."} as one printable line, or "" when the body has none.
std::string serverMessage(const QByteArray &body)
{
    const QJsonDocument document = QJsonDocument::fromJson(body);
    if (!document.isObject())
        return {};
    QString message = document.object().value(QLatin1StringView("error")).toString().simplified();
    if (message.size() > kMaxServerMessageChars)
        message = message.left(kMaxServerMessageChars) + QStringLiteral("...");
    for (QChar &c : message) {
        if (!c.isPrint())
            c = QLatin1Char('?');
    }
    return message.toStdString();
}

// The first byte of a "Content-Range: bytes FIRST-LAST/TOTAL" header, -1 when malformed.
std::int64_t contentRangeStart(const QByteArray &value)
{
    if (!value.startsWith("bytes "))
        return -1;
    const qsizetype dash = value.indexOf('-');
    bool ok = false;
    const qint64 first = value.mid(6, dash - 6).toLongLong(&ok);
    return ok && dash > 6 ? first : -1;
}

bool isRetryableStatus(int status) { return status == 429 || status >= 500; }

} // namespace

CoordinatorClient::CoordinatorClient(const Identity &identity, CoordinatorClientOptions options)
    : m_options(std::move(options)), m_signer(identity), m_random(std::random_device{}())
{
    const QUrl url(m_options.baseUrl, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != u"http" && scheme != u"https") || url.host().isEmpty()) {
        m_setupError = "the coordinator URL \"" + m_options.baseUrl.toStdString()
                       + "\" is not an http:// or https:// URL";
    } else if (!url.userInfo().isEmpty() || url.hasQuery() || url.hasFragment()) {
        m_setupError = "the coordinator URL \"" + m_options.baseUrl.toStdString()
                       + "\" must not carry a user name, query or fragment";
    } else if (!m_options.pinnedPublicKey.isEmpty() && !m_options.pinnedPublicKey.startsWith(u"sha256//")) {
        m_setupError = "the pinned key must look like sha256//BASE64 (the SHA-256 of the certificate's public key)";
    } else if (!m_options.pinnedPublicKey.isEmpty() && scheme != u"https") {
        // A pin asks for a verified server; plain HTTP cannot give one.
        m_setupError = "a pinned key needs an https:// coordinator URL";
    } else if (!m_options.allowPlainHttp && isPlainHttpOffThisMachine(m_options.baseUrl)) {
        // Loopback never leaves this machine, so plain HTTP there (tests, the local demo) is no risk.
        m_setupError = "refusing plain http:// to " + url.host().toStdString()
                       + ": anyone on the way could forge the coordinator's answers. Use the swarm's https:// invite"
                         " link, or allow plain HTTP explicitly (--allow-plain-http)";
    }
    m_origin = url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment).toEncoded();
    m_basePath = url.path(QUrl::FullyEncoded).toUtf8();
    while (m_basePath.endsWith('/'))
        m_basePath.chop(1);
}

Result<QJsonObject> CoordinatorClient::getJson(const QString &pathAndQuery)
{
    return requestJson("GET", pathAndQuery, {}, {}, false);
}

Result<QJsonObject> CoordinatorClient::postJson(const QString &pathAndQuery, const QJsonObject &body)
{
    return requestJson("POST", pathAndQuery, QJsonDocument(body).toJson(QJsonDocument::Compact), "application/json",
                       false);
}

Result<QJsonObject> CoordinatorClient::postBytes(const QString &pathAndQuery, const QByteArray &body)
{
    return requestJson("POST", pathAndQuery, body, "application/octet-stream", true);
}

Result<QByteArray> CoordinatorClient::requestTarget(const QString &pathAndQuery) const
{
    // The target is signed byte for byte, so it must reach the server unchanged: printable
    // ASCII that needs no further encoding.
    const bool printable = std::all_of(pathAndQuery.begin(), pathAndQuery.end(),
                                       [](QChar c) { return c.unicode() > 0x20 && c.unicode() < 0x7f && c != u'#'; });
    if (!pathAndQuery.startsWith(u'/') || !printable)
        return makeError("bad request path \"" + pathAndQuery.toStdString()
                         + "\": it must start with / and be percent-encoded ASCII");
    return m_basePath + pathAndQuery.toLatin1();
}

HttpRequest CoordinatorClient::signedRequest(QByteArrayView method, const QByteArray &target, const QByteArray &body,
                                             bool largeTransfer)
{
    RequestSignature signature;
    {
        std::lock_guard lock(m_signerMutex);
        signature = m_signer.sign(method, target, body, QDateTime::currentMSecsSinceEpoch());
    }
    HttpRequest request;
    request.method = method.toByteArray();
    request.url = m_origin + target;
    request.body = body;
    request.pinnedPublicKey = m_options.pinnedPublicKey.toLatin1();
    request.sourceAddress = m_options.sourceAddress.toLatin1();
    request.headers = {
        QByteArray(kKeyIdHeader) + ": " + signature.keyId.toLatin1(),
        QByteArray(kTimestampHeader) + ": " + QByteArray::number(signature.timestampMs),
        QByteArray(kSignatureHeader) + ": " + signature.signature.toBase64(),
        "Accept: application/json",
        "Expect:", // no 100-continue round trip before uploads
    };
    request.connectTimeoutMs = m_options.connectTimeoutMs;
    if (largeTransfer)
        request.stallTimeoutMs = m_options.requestTimeoutMs;
    else
        request.totalTimeoutMs = m_options.requestTimeoutMs;
    request.maxBodyBytes = kMaxJsonAnswerBytes;
    return request;
}

std::string CoordinatorClient::describeHttpError(QByteArrayView method, const QByteArray &target, int status,
                                                 const QByteArray &body) const
{
    std::string line = std::string(kHttpErrorPrefix) + std::to_string(status) + " to " + toStd(method) + " "
                       + toStd(target);
    if (const std::string message = serverMessage(body); !message.empty())
        line += ": " + message;
    return line;
}

int CoordinatorClient::httpStatus(const Error &error)
{
    if (!error.message.starts_with(kHttpErrorPrefix))
        return 0;
    return std::atoi(error.message.c_str() + kHttpErrorPrefix.size());
}

Result<void> CoordinatorClient::withRetries(const std::string &what, const std::function<Attempt()> &attempt)
{
    if (!m_setupError.empty())
        return makeError(m_setupError);
    const int maxAttempts = std::max(1, m_options.maxAttempts);
    std::string lastError;
    for (int number = 1;; ++number) {
        if (cancelled())
            return makeError(kCancelled);
        Attempt outcome = attempt();
        if (outcome.kind == Attempt::Done)
            return {};
        if (outcome.kind == Attempt::Fail)
            return makeError(outcome.error);
        lastError = std::move(outcome.error);
        if (number >= maxAttempts)
            break;
        std::int64_t delayMs = 0;
        {
            std::lock_guard lock(m_waitMutex);
            const double uniform = std::uniform_real_distribution<double>(0.0, 1.0)(m_random);
            delayMs = backoffDelayMs(number - 1, m_options.initialBackoffMs, m_options.maxBackoffMs,
                                     outcome.retryAfterMs, uniform);
        }
        qCWarning(lcSwarm).noquote() << QString::fromStdString(what) << "failed:" << QString::fromStdString(lastError)
                                     << "- retry" << number << "of" << maxAttempts - 1 << "in" << delayMs << "ms";
        m_retries.fetch_add(1, std::memory_order_relaxed);
        if (!waitUnlessCancelled(delayMs))
            return makeError(kCancelled);
    }
    return makeError(lastError + " (gave up after " + std::to_string(maxAttempts) + " attempts)");
}

CoordinatorClient::Attempt CoordinatorClient::transferFailure(const HttpResponse &response, const std::string &what,
                                                             const std::string &task) const
{
    switch (response.outcome) {
    case HttpOutcome::Cancelled:
        return {Attempt::Fail, kCancelled};
    case HttpOutcome::NetworkError:
        if (response.noHttpAnswer && m_origin.startsWith("http://")
            && speaksTls("https://" + m_origin.mid(7), m_options.connectTimeoutMs)) {
            return {Attempt::Fail, "the coordinator at " + toStd(m_origin.mid(7)) + std::string(kWrongScheme) + "use https://"
                                       + toStd(m_origin.mid(7)) + " or the swarm's invite link (swarmtrain://join?...), "
                                       + "which also pins its certificate"};
        }
        return {Attempt::Retry,
                "cannot reach the coordinator at " + toStd(m_origin) + " (" + what + "): " + response.error};
    case HttpOutcome::TlsError:
        return {Attempt::Fail, "TLS with the coordinator at " + toStd(m_origin) + " failed: " + response.error};
    case HttpOutcome::Failed:
    case HttpOutcome::Answered:
        break;
    }
    return {Attempt::Fail, task + " failed: " + response.error};
}

bool CoordinatorClient::waitUnlessCancelled(std::int64_t delayMs)
{
    std::unique_lock lock(m_waitMutex);
    return !m_wake.wait_for(lock, std::chrono::milliseconds(delayMs), [this] { return cancelled(); });
}

Result<QJsonObject> CoordinatorClient::requestJson(QByteArrayView method, const QString &pathAndQuery,
                                                   const QByteArray &body, QByteArrayView contentType,
                                                   bool largeTransfer)
{
    Result<QByteArray> target = requestTarget(pathAndQuery);
    if (!target)
        return target.error();
    const std::string what = toStd(method) + " " + toStd(*target);
    QJsonObject answer;

    Result<void> done = withRetries(what, [&]() -> Attempt {
        HttpRequest request = signedRequest(method, *target, body, largeTransfer);
        if (!contentType.isEmpty())
            request.headers.append("Content-Type: " + contentType.toByteArray());
        HttpHooks hooks;
        hooks.cancelled = [this] { return cancelled(); };
        const HttpResponse response = performHttpRequest(request, hooks);
        m_bytesUp.fetch_add(response.bytesUp, std::memory_order_relaxed);
        m_bytesDown.fetch_add(response.bytesDown, std::memory_order_relaxed);

        if (response.outcome != HttpOutcome::Answered)
            return transferFailure(response, what, what);
        if (response.success()) {
            if (response.status == 204)
                return {Attempt::Done, {}};
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(response.body, &parseError);
            if (parseError.error != QJsonParseError::NoError || !document.isObject())
                return {Attempt::Fail, "invalid JSON from coordinator (" + what + ")"};
            answer = document.object();
            return {Attempt::Done, {}};
        }
        const std::string error = describeHttpError(method, *target, response.status, response.body);
        if (isRetryableStatus(response.status))
            return {Attempt::Retry, error, response.retryAfterMs};
        return {Attempt::Fail, error};
    });
    if (!done)
        return done.error();
    qCDebug(lcSwarm).noquote() << QString::fromStdString(what) << "ok";
    return answer;
}

CoordinatorClient::Attempt CoordinatorClient::downloadAttempt(const QByteArray &target, const std::string &what,
                                                             HttpPartFile &part, const std::filesystem::path &file,
                                                             const std::function<void(qint64, qint64)> &progress,
                                                             Download &download)
{
    const std::int64_t offset = part.size();
    std::int64_t base = offset; // where this answer's bytes start in the file
    bool unexpectedRange = false;
    HttpRequest request = signedRequest("GET", target, {}, true);
    if (offset > 0)
        request.headers.append("Range: bytes=" + QByteArray::number(offset) + "-");
    else if (!download.heldSha256.isEmpty())
        request.headers.append("If-None-Match: \"" + download.heldSha256 + "\"");

    HttpHooks hooks;
    hooks.cancelled = [this] { return cancelled(); };
    hooks.onHeaders = [&](int status, const QMap<QByteArray, QByteArray> &headers) {
        if (status == 206 && contentRangeStart(headers.value("content-range")) != offset) {
            unexpectedRange = true;
            hooks.hookError = "the coordinator answered another byte range than asked";
            return false;
        }
        if (status >= 200 && status < 300 && status != 206 && offset > 0) {
            // The whole file instead of the rest: start the .part over.
            base = 0;
            if (Result<void> truncated = part.truncate(); !truncated) {
                hooks.hookError = truncated.error().message;
                return false;
            }
        }
        return true;
    };
    hooks.sink = [&](const char *data, std::size_t bytes) {
        Result<void> appended = part.append(data, bytes);
        if (!appended)
            hooks.hookError = appended.error().message;
        return bool(appended);
    };
    if (progress) {
        hooks.progress = [&](std::int64_t received, std::int64_t expectedBytes) {
            progress(base + received, expectedBytes < 0 ? -1 : base + expectedBytes);
        };
    }
    const HttpResponse response = performHttpRequest(request, hooks);
    m_bytesUp.fetch_add(response.bytesUp, std::memory_order_relaxed);
    m_bytesDown.fetch_add(response.bytesDown, std::memory_order_relaxed);

    if (unexpectedRange || (response.outcome == HttpOutcome::Answered && response.status == 416 && offset > 0)) {
        // The server cannot continue this .part (the file changed, say): fetch it whole.
        if (Result<void> truncated = part.truncate(); !truncated)
            return {Attempt::Fail, truncated.error().message};
        return {Attempt::Retry, what + ": the coordinator could not resume at byte " + std::to_string(offset)};
    }
    if (response.outcome != HttpOutcome::Answered)
        return transferFailure(response, what, "downloading " + file.string());
    if (response.status == 304 && offset == 0 && !download.heldSha256.isEmpty()) {
        download.unchanged = true;
        return {Attempt::Done, {}};
    }
    if (response.success()) {
        download.announcedSha256 = response.header("x-content-sha256").trimmed().toLower();
        return {Attempt::Done, {}};
    }
    const std::string error = describeHttpError("GET", target, response.status, response.body);
    if (isRetryableStatus(response.status))
        return {Attempt::Retry, error, response.retryAfterMs};
    return {Attempt::Fail, error};
}

Result<void> CoordinatorClient::commitVerified(HttpPartFile &part, const std::filesystem::path &file,
                                               const std::string &wanted)
{
    if (wanted.empty()) {
        part.discard();
        return makeError("cannot verify " + file.string() + ": no SHA-256 was expected and the coordinator sent "
                         + "no X-Content-SHA256; the download was deleted");
    }
    const std::string actual = part.sha256Hex();
    if (actual != wanted) {
        part.discard();
        return makeError(std::string(kHashMismatchPrefix) + file.string() + ": expected " + wanted + ", got " + actual
                         + "; the download was deleted");
    }
    if (Result<void> committed = part.commit(file); !committed)
        return committed;
    qCInfo(lcSwarm).noquote() << "downloaded" << QString::fromStdString(file.string())
                              << QStringLiteral("(%1 bytes, SHA-256 verified)").arg(part.size());
    return {};
}

Result<void> CoordinatorClient::download(const QString &path, const std::filesystem::path &file,
                                         const QString &expectedSha256Hex,
                                         const std::function<void(qint64 done, qint64 total)> &progress)
{
    const QString expected = expectedSha256Hex.toLower();
    const bool hexOnly = std::all_of(expected.begin(), expected.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
    });
    if (!expected.isEmpty() && (expected.size() != 64 || !hexOnly))
        return makeError("the expected SHA-256 of " + file.string() + " is not 64 hex digits");
    if (!m_setupError.empty())
        return makeError(m_setupError);
    Result<QByteArray> target = requestTarget(path);
    if (!target)
        return target.error();
    const std::string what = "GET " + toStd(*target);

    std::filesystem::path partPath = file;
    partPath += ".part";
    Result<HttpPartFile> opened = HttpPartFile::open(partPath);
    if (!opened)
        return opened.error();
    HttpPartFile &part = *opened;
    if (part.size() > 0)
        qCInfo(lcSwarm).noquote() << "resuming" << QString::fromStdString(partPath.string()) << "at" << part.size();
    // A caller that does not say which file it wants may hold it already: the file there is
    // named in If-None-Match, and kept when the coordinator answers that it is still its file.
    // (One that names the file wants a new one: hashing the old first would only cost time.)
    Download download;
    std::error_code ec;
    if (expected.isEmpty() && part.size() == 0 && std::filesystem::is_regular_file(file, ec)) {
        if (Result<std::string> held = HttpPartFile::sha256OfFile(file); held)
            download.heldSha256 = QByteArray::fromStdString(*held);
    }

    Result<void> fetched = withRetries(what, [&]() { return downloadAttempt(*target, what, part, file, progress, download); });
    if (!fetched)
        return fetched; // the .part stays for the next try
    if (download.unchanged) {
        part.discard();
        qCInfo(lcSwarm).noquote() << QString::fromStdString(file.string()) << "is the coordinator's current file already";
        return {};
    }
    const QByteArray &announcedSha256 = download.announcedSha256;

    return commitVerified(part, file, expected.isEmpty() ? toStd(announcedSha256) : expected.toStdString());
}

void CoordinatorClient::cancel()
{
    {
        std::lock_guard lock(m_waitMutex);
        m_cancelled.store(true);
    }
    m_wake.notify_all();
}

void CoordinatorClient::resetCancel() { m_cancelled.store(false); }

CoordinatorClient::Counters CoordinatorClient::counters() const
{
    return {m_bytesUp.load(std::memory_order_relaxed), m_bytesDown.load(std::memory_order_relaxed),
            m_retries.load(std::memory_order_relaxed)};
}

} // namespace swarmtrain
