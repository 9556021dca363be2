#include "HttpConnection.h"

#include "CoordinatorLog.h"

#include <QFile>
#include <QSslSocket>
#include <QTemporaryFile>

#ifdef Q_OS_WIN
#include <winsock2.h>
#else
#include <sys/socket.h>
#endif

namespace swarmtrain {

namespace {

constexpr qint64 kReadPiece = 64 * 1024;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 206: return "Partial Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "Status";
    }
}

// Where a head ends: after its empty line ("\r\n\r\n", or "\n\n" from lax clients); -1 if not yet.
qsizetype headEnd(const QByteArray &buffer)
{
    const qsizetype crlf = buffer.indexOf("\r\n\r\n");
    const qsizetype lf = buffer.indexOf("\n\n");
    if (crlf >= 0 && (lf < 0 || crlf + 2 <= lf))
        return crlf + 4;
    return lf >= 0 ? lf + 2 : -1;
}

// A connection cut for abuse ends with a reset: a graceful close would leave its unsent bytes
// queued in the kernel, for minutes, for a client that never reads them.
void resetOnClose(qintptr descriptor)
{
    if (descriptor < 0)
        return;
    const linger reset{1, 0};
    ::setsockopt(descriptor, SOL_SOCKET, SO_LINGER, reinterpret_cast<const char *>(&reset), sizeof reset);
}

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, const HttpLimits &limits, HttpBudget &budget, Admit admit,
                               Handle handle, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_limits(limits)
    , m_budget(budget)
    , m_admit(std::move(admit))
    , m_handle(std::move(handle))
    , m_address(socket->peerAddress())
{
    m_socket->setParent(this);
    // Bounded: while a request is handled nothing is read, and TCP makes the client wait.
    m_socket->setReadBufferSize(m_limits.readBufferBytes);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::process);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::written);
    // TLS hands plaintext on to its encrypted buffer at once: that one is what must drain.
    if (auto *tls = qobject_cast<QSslSocket *>(m_socket))
        connect(tls, &QSslSocket::encryptedBytesWritten, this, &HttpConnection::written);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::gone);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpConnection::timedOut);
    m_timer.start(m_limits.idleTimeoutMs);
}

HttpConnection::~HttpConnection() { releaseBudget(); }

void HttpConnection::process()
{
    bool progress = true;
    while (progress) {
        switch (m_state) {
        case State::Head:
            progress = readHead();
            break;
        case State::Body:
            progress = readBody();
            break;
        case State::Discard:
            progress = discardBody();
            break;
        default:
            return; // handling or writing: the next request waits
        }
    }
}

QByteArray HttpConnection::take(qint64 max)
{
    if (!m_leftover.isEmpty()) {
        QByteArray piece = m_leftover.left(max);
        m_leftover.remove(0, piece.size());
        return piece;
    }
    return m_socket->read(std::min(max, kReadPiece));
}

bool HttpConnection::readHead()
{
    const bool started = !m_head.isEmpty();
    const QByteArray piece = take(m_limits.maxHeadBytes + 1 - m_head.size());
    if (piece.isEmpty())
        return false;
    if (!started)
        m_timer.start(m_limits.headTimeoutMs); // the whole head must come within this time
    m_head += piece;
    const qsizetype end = headEnd(m_head);
    if (end < 0 || end > m_limits.maxHeadBytes) {
        if (end < 0 && m_head.size() <= m_limits.maxHeadBytes)
            return true;
        refuse(HttpReply::error(431, QStringLiteral("the request line and headers exceed %1 bytes")
                                         .arg(m_limits.maxHeadBytes)),
               false);
        return false;
    }
    m_leftover.prepend(m_head.mid(end));
    const QByteArray head = m_head.left(end);
    m_head.clear();
    auto parsed = HttpRequest::parseHead(head, m_limits.maxHeaders);
    if (auto *error = std::get_if<HttpRequest::ParseError>(&parsed)) {
        refuse(HttpReply::error(error->status, error->message), false);
        return false;
    }
    HttpRequest request = std::get<HttpRequest>(std::move(parsed));
    request.setRemoteAddress(m_limits.clientAddress(m_address, request.lastValue("X-Forwarded-For")));
    admitHead(std::move(request));
    return true;
}

void HttpConnection::admitHead(HttpRequest request)
{
    ++m_sequence;
    m_request = std::move(request);
    const qint64 length = m_request->contentLength();
    HttpAdmission admission = m_admit(*m_request);
    if (!admission.refusal && length > admission.maxBodyBytes) {
        admission.refusal = HttpReply::error(
            413, QStringLiteral("the request body is larger than %1 bytes").arg(admission.maxBodyBytes));
    }
    const bool toDisk = !admission.spoolDir.isEmpty();
    if (!admission.refusal && toDisk && m_budget.spooledUploads >= m_limits.maxSpooledUploads)
        admission.refusal = HttpReply::error(503, QStringLiteral("too many uploads at once; try again later"));
    if (!admission.refusal && !toDisk && m_budget.bufferedBodyBytes + length > m_limits.maxBufferedBodyBytes)
        admission.refusal = HttpReply::error(503, QStringLiteral("the server is busy; try again later"));
    if (!admission.refusal && toDisk && length > 0) {
        auto spool = std::make_shared<QTemporaryFile>(admission.spoolDir + QStringLiteral("/incoming-XXXXXX"));
        if (!spool->open())
            admission.refusal = HttpReply::error(507, QStringLiteral("cannot store the upload"));
        else
            m_spool = std::move(spool);
    }
    if (admission.refusal)
        return refuse(*admission.refusal, true);
    m_spooling = toDisk && length > 0;
    if (m_spooling)
        ++m_budget.spooledUploads;
    else
        m_budget.bufferedBodyBytes += length;
    m_reservedBytes = m_spooling ? 0 : length;
    m_remaining = length;
    m_hash.reset();
    m_body.clear();
    if (m_request->expectsContinue() && length > 0)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    m_state = State::Body;
    m_timer.start(m_limits.idleTimeoutMs);
}

bool HttpConnection::readBody()
{
    bool read = false;
    while (m_remaining > 0) {
        const QByteArray piece = take(std::min(m_remaining, kReadPiece));
        if (piece.isEmpty())
            break;
        read = true;
        m_remaining -= piece.size();
        m_hash.addData(piece);
        if (!m_spooling) {
            m_body += piece;
        } else if (m_spool->write(piece) != piece.size()) {
            refuse(HttpReply::error(507, QStringLiteral("cannot store the upload")), false);
            return false;
        }
    }
    if (read)
        m_timer.start(m_limits.idleTimeoutMs);
    if (m_remaining > 0)
        return false;
    dispatch();
    return true;
}

bool HttpConnection::discardBody()
{
    while (m_remaining > 0) {
        const QByteArray piece = take(std::min(m_remaining, kReadPiece));
        if (piece.isEmpty())
            return false;
        m_remaining -= piece.size();
        m_timer.start(m_limits.idleTimeoutMs);
    }
    HttpReply refusal = std::move(*m_refusal);
    m_refusal.reset();
    send(std::move(refusal));
    return true;
}

void HttpConnection::dispatch()
{
    const QByteArray sha256 = m_hash.result().toHex();
    if (m_spooling) {
        if (!m_spool->flush())
            return refuse(HttpReply::error(507, QStringLiteral("cannot store the upload")), false);
        m_request->setBodyFile(m_spool, sha256);
    } else {
        m_request->setBody(std::move(m_body), sha256);
        m_body = QByteArray();
    }
    m_state = State::Handling;
    m_timer.stop(); // the handler may take its time (a join waits for its probe)
    const QPointer<HttpConnection> self(this);
    const quint64 sequence = m_sequence;
    m_handle(*m_request, [self, sequence](const HttpReply &reply) {
        if (self && self->m_sequence == sequence && self->m_state == State::Handling)
            self->send(reply);
    });
}

void HttpConnection::refuse(const HttpReply &reply, bool readBodyFirst)
{
    const qint64 length = m_request ? m_request->contentLength() : 0;
    HttpReply answer = reply;
    if (!readBodyFirst || length == 0) {
        answer.closeConnection = answer.closeConnection || !readBodyFirst;
        return send(std::move(answer));
    }
    qCInfo(lcCoordinator).noquote() << "refused" << m_request->methodName() << m_request->target() << "from"
                                    << m_address.toString() << "with status" << reply.status;
    // A client that waits for "100 Continue" has not sent its body: answer and close. A small
    // body is read and dropped so that the client reads the answer instead of a reset; a large
    // one is not worth the bandwidth.
    if (m_request->expectsContinue() || length > m_limits.maxDiscardedBodyBytes) {
        answer.closeConnection = true;
        return send(std::move(answer));
    }
    m_refusal = std::move(answer);
    m_remaining = length;
    m_state = State::Discard;
    m_timer.start(m_limits.idleTimeoutMs);
}

void HttpConnection::send(HttpReply reply)
{
    m_state = State::Writing;
    m_closeAfterReply = reply.closeConnection || !m_request || !m_request->keepAlive();
    const qint64 length = reply.file ? reply.file->length : reply.body.size();
    QByteArray head = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' + reasonPhrase(reply.status) + "\r\n";
    head += "Content-Type: " + reply.contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(length) + "\r\n";
    for (const auto &[name, value] : reply.headers)
        head += name + ": " + value + "\r\n";
    head += m_closeAfterReply ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
    m_socket->write(head);
    if (reply.file && reply.file->file->seek(reply.file->offset))
        m_download = std::move(reply.file);
    else if (reply.file)
        return close(true); // the head promised bytes that cannot be read
    else
        m_socket->write(reply.body);
    // The request (and its body) is done with; only the answer remains.
    m_request.reset();
    m_spool.reset();
    releaseBudget();
    m_timer.start(m_limits.idleTimeoutMs);
    fill();
}

void HttpConnection::fill()
{
    while (m_download && m_download->length > 0 && unsentBytes() < m_limits.writeChunkBytes) {
        const QByteArray piece = m_download->file->read(std::min(m_download->length, m_limits.writeChunkBytes));
        if (piece.isEmpty()) {
            qCWarning(lcCoordinator) << "a download's file ended early; closing the connection";
            return close(true);
        }
        m_download->length -= piece.size();
        m_socket->write(piece);
    }
    if (m_download && m_download->length == 0)
        m_download.reset();
    if (m_download || unsentBytes() > 0)
        return;
    if (m_closeAfterReply)
        return close(false);
    m_state = State::Head;
    m_waitingSince = std::chrono::steady_clock::now();
    m_timer.start(m_limits.idleTimeoutMs);
    // The next pipelined request, if any, after this call returns (no recursion per request).
    QMetaObject::invokeMethod(this, &HttpConnection::process, Qt::QueuedConnection);
}

qint64 HttpConnection::unsentBytes() const
{
    const auto *tls = qobject_cast<const QSslSocket *>(m_socket);
    return m_socket->bytesToWrite() + (tls ? tls->encryptedBytesToWrite() : 0);
}

void HttpConnection::written()
{
    if (m_state != State::Writing)
        return;
    m_timer.start(m_limits.idleTimeoutMs);
    fill();
}

void HttpConnection::timedOut()
{
    if (m_state == State::Head && m_head.isEmpty() && m_leftover.isEmpty())
        return close(false); // an idle kept-alive connection
    qCInfo(lcCoordinator).noquote() << "closing a connection from" << m_address.toString()
                                    << (m_state == State::Head ? "that did not finish its headers in time"
                                                               : "that stalled");
    close(true);
}

void HttpConnection::evict()
{
    qCDebug(lcCoordinator) << "closing a waiting connection from" << m_address.toString() << "for a newcomer";
    close(true);
}

void HttpConnection::close(bool abort)
{
    m_state = State::Closing;
    m_timer.stop();
    m_download.reset();
    m_leftover.clear();
    m_head.clear();
    if (abort) {
        resetOnClose(m_socket->socketDescriptor());
        m_socket->abort();
    }
    else
        m_socket->disconnectFromHost();
    if (m_socket->state() == QAbstractSocket::UnconnectedState)
        gone();
}

void HttpConnection::gone()
{
    if (m_gone)
        return;
    m_gone = true;
    m_state = State::Closing;
    m_timer.stop();
    Q_EMIT closed();
}

void HttpConnection::releaseBudget()
{
    m_budget.bufferedBodyBytes -= m_reservedBytes;
    m_reservedBytes = 0;
    if (m_spooling)
        --m_budget.spooledUploads;
    m_spooling = false;
}

} // namespace swarmtrain
