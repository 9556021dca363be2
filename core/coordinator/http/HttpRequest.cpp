#include "HttpRequest.h"

#include <QFile>

namespace swarmtrain {

namespace {

HttpRequest::Method methodOf(QByteArrayView name)
{
    using Method = HttpRequest::Method;
    if (name == "GET")
        return Method::Get;
    if (name == "POST")
        return Method::Post;
    if (name == "PUT")
        return Method::Put;
    if (name == "DELETE")
        return Method::Delete;
    if (name == "HEAD")
        return Method::Head;
    if (name == "OPTIONS")
        return Method::Options;
    if (name == "PATCH")
        return Method::Patch;
    return Method::Unknown;
}

bool isToken(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (char c : text) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
        if (!ok)
            return false;
    }
    return true;
}

// Content-Length: digits only (no sign, no spaces inside), at most 18 of them so it fits.
std::optional<qint64> parseLength(QByteArrayView text)
{
    if (text.isEmpty() || text.size() > 18)
        return std::nullopt;
    qint64 value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

QList<QByteArrayView> splitLines(QByteArrayView head)
{
    QList<QByteArrayView> lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i < head.size(); ++i) {
        if (head[i] != '\n')
            continue;
        QByteArrayView line = head.sliced(start, i - start);
        if (line.endsWith('\r'))
            line.chop(1);
        lines.append(line);
        start = i + 1;
    }
    return lines;
}

} // namespace

QByteArray HttpRequest::value(QByteArrayView name) const
{
    for (const auto &[key, value] : m_headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QByteArray HttpRequest::lastValue(QByteArrayView name) const
{
    for (auto header = m_headers.crbegin(); header != m_headers.crend(); ++header) {
        if (header->first.compare(name, Qt::CaseInsensitive) == 0)
            return header->second;
    }
    return {};
}

void HttpRequest::setBody(QByteArray body, QByteArray sha256Hex)
{
    m_body = std::move(body);
    m_bodySha256Hex = std::move(sha256Hex);
}

void HttpRequest::setBodyFile(std::shared_ptr<QFile> file, QByteArray sha256Hex)
{
    m_bodyFile = std::move(file);
    m_bodySha256Hex = std::move(sha256Hex);
}

std::variant<HttpRequest, HttpRequest::ParseError> HttpRequest::parseHead(QByteArrayView head, int maxHeaders)
{
    const QList<QByteArrayView> lines = splitLines(head);
    if (lines.isEmpty())
        return ParseError{400, QStringLiteral("no request line")};
    const QList<QByteArray> parts = lines.front().toByteArray().split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || !parts[1].startsWith('/'))
        return ParseError{400, QStringLiteral("the request line is not \"METHOD /target HTTP/1.1\"")};
    HttpRequest request;
    request.m_methodName = parts[0];
    request.m_method = methodOf(parts[0]);
    request.m_target = parts[1];
    request.m_url = QUrl::fromEncoded(parts[1]);
    if (!request.m_url.isValid())
        return ParseError{400, QStringLiteral("the request target is not a valid URL path")};
    if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0")
        return ParseError{505, QStringLiteral("only HTTP/1.1 and HTTP/1.0 are spoken")};
    const bool http10 = parts[2] == "HTTP/1.0";
    if (lines.size() - 2 > maxHeaders)
        return ParseError{431, QStringLiteral("more than %1 header fields").arg(maxHeaders)};
    std::optional<qint64> length;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArrayView line = lines[i];
        if (line.isEmpty())
            break;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line.first(colon)))
            return ParseError{400, QStringLiteral("a header line is not \"Name: value\" (folded lines are refused)")};
        const QByteArray name = line.first(colon).toByteArray().toLower();
        const QByteArray value = line.sliced(colon + 1).toByteArray().trimmed();
        if (name == "content-length") {
            const std::optional<qint64> parsed = parseLength(value);
            if (!parsed || (length && *length != *parsed))
                return ParseError{400, QStringLiteral("Content-Length is not one whole number")};
            length = parsed;
        } else if (name == "transfer-encoding") {
            return ParseError{411, QStringLiteral("Transfer-Encoding is not accepted: send a Content-Length")};
        }
        request.m_headers.append(qMakePair(name, value));
    }
    const QByteArray connection = request.value("connection").toLower();
    request.m_keepAlive = http10 ? connection.contains("keep-alive") : !connection.contains("close");
    request.m_expectsContinue = request.value("expect").toLower() == "100-continue";
    const bool bodyMethod = request.m_method == Method::Post || request.m_method == Method::Put
                            || request.m_method == Method::Patch;
    if (bodyMethod && !length)
        return ParseError{411, QStringLiteral("a %1 needs a Content-Length").arg(QString::fromLatin1(parts[0]))};
    request.m_contentLength = length.value_or(0);
    return request;
}

} // namespace swarmtrain
