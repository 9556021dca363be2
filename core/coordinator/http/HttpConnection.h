#pragma once

#include "HttpLimits.h"
#include "HttpReply.h"
#include "HttpRequest.h"

#include <QCryptographicHash>
#include <QObject>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QFile;

namespace swarmtrain {

// What the server decides once a request's head is in, before any of its body is read.
struct HttpAdmission {
    std::optional<HttpReply> refusal; // answered without reading the body into anything
    qint64 maxBodyBytes = 0;
    QString spoolDir; // when set, the body is written to a temporary file there instead of memory
};

// One client connection of BoundedHttpServer: HTTP/1.1 with keep-alive, one request at a time.
// The head is read into a buffer of at most HttpLimits::maxHeadBytes and must arrive within
// headTimeoutMs; the body is read only after admit() said how much may come and where it goes,
// and it is hashed as it arrives. While a request is handled or its answer written nothing more
// is read, so pipelined requests wait in a socket buffer of bounded size (TCP pushes back).
class HttpConnection : public QObject {
    Q_OBJECT

public:
    using Replier = std::function<void(const HttpReply &)>;
    using Admit = std::function<HttpAdmission(const HttpRequest &)>;
    using Handle = std::function<void(const HttpRequest &, Replier)>;

    HttpConnection(QTcpSocket *socket, const HttpLimits &limits, HttpBudget &budget, Admit admit, Handle handle,
                   QObject *parent = nullptr);
    ~HttpConnection() override;

    QHostAddress peerAddress() const { return m_address; }
    // No request under way: a new connection, a kept-alive one, or one still sending a head.
    bool waitingForRequest() const { return m_state == State::Head; }
    std::chrono::steady_clock::time_point waitingSince() const { return m_waitingSince; }
    // Closed to make room for a newcomer (BoundedHttpServer, at its connection limit).
    void evict();

Q_SIGNALS:
    // The socket is gone; the server forgets this connection and deletes it later.
    void closed();

private:
    enum class State { Head, Body, Discard, Handling, Writing, Closing };

    void process();
    bool readHead();
    void admitHead(HttpRequest request);
    bool readBody();
    bool discardBody();
    void dispatch();
    void refuse(const HttpReply &reply, bool readBodyFirst);
    void send(HttpReply reply);
    void fill();
    qint64 unsentBytes() const;
    void written();
    void timedOut();
    void close(bool abort);
    void gone();
    void releaseBudget();
    // Bytes left over from the last read first, then the socket's.
    QByteArray take(qint64 max);

    QTcpSocket *m_socket;
    const HttpLimits &m_limits;
    HttpBudget &m_budget;
    Admit m_admit;
    Handle m_handle;
    QHostAddress m_address;
    State m_state = State::Head;
    QTimer m_timer;
    QByteArray m_head;     // the head being read, at most maxHeadBytes + 1
    QByteArray m_leftover; // what followed the last head in the same read (pipelining)
    std::optional<HttpRequest> m_request;
    qint64 m_remaining = 0; // body bytes still to come
    QByteArray m_body;
    std::shared_ptr<QFile> m_spool;
    QCryptographicHash m_hash{QCryptographicHash::Sha256};
    qint64 m_reservedBytes = 0;
    bool m_spooling = false;
    std::optional<HttpReply> m_refusal; // sent once a refused body has been read and dropped
    std::optional<HttpReply::FilePart> m_download;
    bool m_closeAfterReply = false;
    quint64 m_sequence = 0; // which request a Replier answers
    std::chrono::steady_clock::time_point m_waitingSince = std::chrono::steady_clock::now();
    bool m_gone = false;
};

} // namespace swarmtrain
