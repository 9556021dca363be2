#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtEndian>

#include <array>
#include <functional>
#include <memory>
#include <vector>

namespace swarmtrain::test {

// A man in the middle on loopback for the data plane's tests: forwards each connection made to
// port() to the target port, keeps a copy of every byte that went either way, and can alter
// them: flip one bit of the sealed stream after the handshake, replay its first record, or
// rewrite the dialer's first frame (its HELLO). Records, like clear frames, start with a
// 4-byte big-endian length, which is all it knows of them. Lives on the test's thread; the event loop moves the bytes.
class TamperRelay {
public:
    enum Way { ToTarget = 0, FromTarget = 1 };

    explicit TamperRelay(quint16 targetPort) : m_targetPort(targetPort)
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] { accept(); });
    }

    // Closing the relay aborts its connections: both peers see theirs end.
    ~TamperRelay()
    {
        for (const std::unique_ptr<Pair> &pair : m_pairs) {
            for (QTcpSocket *socket : {pair->client, pair->target}) {
                QObject::disconnect(socket, nullptr, &m_server, nullptr);
                socket->abort();
            }
        }
    }
    TamperRelay(const TamperRelay &) = delete;
    TamperRelay &operator=(const TamperRelay &) = delete;

    quint16 port() const { return m_server.serverPort(); }
    QByteArray captured(Way way) const
    {
        QByteArray all;
        for (const std::unique_ptr<Pair> &pair : m_pairs)
            all += pair->streams[way].captured;
        return all;
    }
    int tampered() const { return m_tampered; }

    // Flips the lowest bit of the byte `offset` bytes past the first two frames (HELLO and
    // HELLO_PROOF, in clear) that go `way`: the first sealed record of each connection.
    void flipAfterHandshake(Way way, qint64 offset)
    {
        m_flipWay = way;
        m_flipOffset = offset;
    }
    // Sends the first sealed record that goes `way` a second time, right after it.
    void replayFirstRecord(Way way) { m_replayWay = way; }
    // Replaces the dialer's first frame (length prefix included) with what `rewrite` returns.
    void rewriteFirstFrame(std::function<QByteArray(const QByteArray &)> rewrite) { m_rewrite = std::move(rewrite); }

private:
    struct Stream {
        QByteArray captured; // as the sender sent it
        QByteArray held;     // the dialer's first frame, while it is incomplete
        bool rewritten = false;
        bool flipped = false;
        bool replayed = false;
    };
    struct Pair {
        QTcpSocket *client = nullptr;
        QTcpSocket *target = nullptr;
        std::array<Stream, 2> streams;
    };

    // The end of the first `frames` length-prefixed frames of `bytes`, or -1 while a prefix is missing.
    static qint64 endOfFrames(const QByteArray &bytes, int frames)
    {
        qint64 at = 0;
        for (int i = 0; i < frames; ++i) {
            if (at + 4 > bytes.size())
                return -1;
            at += 4 + qint64(qFromBigEndian<quint32>(bytes.constData() + at));
        }
        return at;
    }

    void accept()
    {
        while (QTcpSocket *client = m_server.nextPendingConnection()) {
            auto pair = std::make_unique<Pair>();
            Pair *p = pair.get();
            p->client = client;
            p->target = new QTcpSocket(&m_server);
            QObject::connect(p->target, &QTcpSocket::connected, &m_server, [this, p] { forward(*p, ToTarget); });
            QObject::connect(client, &QTcpSocket::readyRead, &m_server, [this, p] { forward(*p, ToTarget); });
            QObject::connect(p->target, &QTcpSocket::readyRead, &m_server, [this, p] { forward(*p, FromTarget); });
            QObject::connect(client, &QTcpSocket::disconnected, &m_server, [p] { p->target->disconnectFromHost(); });
            QObject::connect(p->target, &QTcpSocket::disconnected, &m_server, [this, p] {
                forward(*p, FromTarget);
                p->client->disconnectFromHost();
            });
            p->target->connectToHost(QHostAddress::LocalHost, m_targetPort);
            m_pairs.push_back(std::move(pair));
        }
    }

    void forward(Pair &p, Way way)
    {
        QTcpSocket *from = way == ToTarget ? p.client : p.target;
        QTcpSocket *to = way == ToTarget ? p.target : p.client;
        if (p.target->state() != QAbstractSocket::ConnectedState && way == ToTarget)
            return; // the dialer's bytes wait until the target answers
        QByteArray chunk = from->readAll();
        Stream &stream = p.streams[way];
        const qint64 start = stream.captured.size();
        stream.captured += chunk;
        if (way == ToTarget && m_rewrite && !stream.rewritten) {
            stream.held += chunk;
            const qint64 end = endOfFrames(stream.held, 1);
            if (end < 0 || end > stream.held.size())
                return;
            chunk = m_rewrite(stream.held.left(end)) + stream.held.mid(end);
            stream.rewritten = true;
        }
        const qint64 clearEnd = endOfFrames(stream.captured, 2);
        if (way == m_flipWay && m_flipOffset >= 0 && !stream.flipped && clearEnd >= 0) {
            const qint64 at = clearEnd + m_flipOffset - start;
            if (at >= 0 && at < chunk.size()) {
                chunk[at] = char(chunk[at] ^ 0x01);
                stream.flipped = true;
                ++m_tampered;
            }
        }
        to->write(chunk);
        if (way == m_replayWay && !stream.replayed && clearEnd >= 0) {
            const qint64 recordEnd = endOfFrames(stream.captured.mid(clearEnd), 1);
            if (recordEnd > 0 && clearEnd + recordEnd <= stream.captured.size()) {
                to->write(stream.captured.mid(clearEnd, recordEnd));
                stream.replayed = true;
                ++m_tampered;
            }
        }
    }

    QTcpServer m_server;
    quint16 m_targetPort;
    std::vector<std::unique_ptr<Pair>> m_pairs;
    std::function<QByteArray(const QByteArray &)> m_rewrite;
    int m_flipWay = -1;
    int m_replayWay = -1;
    qint64 m_flipOffset = -1;
    int m_tampered = 0;
};

} // namespace swarmtrain::test
