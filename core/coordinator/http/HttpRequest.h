#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QHttpServerRequest>
#include <QList>
#include <QPair>
#include <QUrl>
#include <QUrlQuery>

#include <memory>
#include <optional>
#include <variant>

class QFile;

namespace swarmtrain {

// One HTTP/1.1 request as BoundedHttpServer read it: its head, and a body that is either in
// memory (small, bounded by its route) or spooled to a file (a state upload), with the body's
// SHA-256 computed as it arrived.
class HttpRequest {
public:
    // The route table's methods are Qt HTTP Server's enum; only the enum is used from that module.
    using Method = QHttpServerRequest::Method;

    Method method() const { return m_method; }
    const QByteArray &methodName() const { return m_methodName; }
    const QByteArray &target() const { return m_target; } // path and query exactly as sent (and signed)
    const QUrl &url() const { return m_url; }
    QUrlQuery query() const { return QUrlQuery(m_url); }
    // A header's value (names are case-insensitive); empty when absent.
    QByteArray value(QByteArrayView name) const;
    // The last header of that name: the one a proxy added after any the client sent.
    QByteArray lastValue(QByteArrayView name) const;
    const QList<QPair<QByteArray, QByteArray>> &headers() const { return m_headers; }
    QHostAddress remoteAddress() const { return m_remoteAddress; }
    bool keepAlive() const { return m_keepAlive; }
    bool expectsContinue() const { return m_expectsContinue; }
    qint64 contentLength() const { return m_contentLength; }

    // The body when it was kept in memory.
    const QByteArray &body() const { return m_body; }
    // The file the body was spooled to, or null when it is in memory.
    const std::shared_ptr<QFile> &bodyFile() const { return m_bodyFile; }
    // Lower-case hex SHA-256 of the body, however it was kept.
    const QByteArray &bodySha256Hex() const { return m_bodySha256Hex; }

    // Parses a complete head (request line and headers, up to and including the empty line).
    // Fails with the status to answer (400, 411, 501, 505) and why.
    struct ParseError {
        int status;
        QString message;
    };
    static std::variant<HttpRequest, ParseError> parseHead(QByteArrayView head, int maxHeaders);

    void setRemoteAddress(const QHostAddress &address) { m_remoteAddress = address; }
    void setBody(QByteArray body, QByteArray sha256Hex);
    void setBodyFile(std::shared_ptr<QFile> file, QByteArray sha256Hex);

private:
    Method m_method = Method::Unknown;
    QByteArray m_methodName;
    QByteArray m_target;
    QUrl m_url;
    QList<QPair<QByteArray, QByteArray>> m_headers; // names in lower case
    QHostAddress m_remoteAddress;
    bool m_keepAlive = true;
    bool m_expectsContinue = false;
    qint64 m_contentLength = 0;
    QByteArray m_body;
    std::shared_ptr<QFile> m_bodyFile;
    QByteArray m_bodySha256Hex;
};

} // namespace swarmtrain
