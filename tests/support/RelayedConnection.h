#pragma once

#include "LinkEmulator.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <vector>

class QTcpSocket;

namespace swarmtrain::test {

// One relay port's counters: written by the relay thread, read by any.
struct RelayTraffic {
    std::atomic<qint64> bytesToTarget{0};
    std::atomic<qint64> bytesFromTarget{0};
    std::atomic<int> connectionsAccepted{0};
};

// Bytes held by all relays, and the most one direction ever held.
struct QueueAccount {
    std::atomic<qint64> queuedBytes{0};
    std::atomic<qint64> peakPerDirection{0};
};

// A rate limit: tokens (bytes) refill at `bytesPerSecond` up to `burstBytes`.
struct TokenBucket {
    using Clock = std::chrono::steady_clock;

    TokenBucket(qint64 bytesPerSecond, qint64 burstBytes)
        : bytesPerSecond(bytesPerSecond), burstBytes(burstBytes), tokens(double(burstBytes)), refilledAt(Clock::now())
    {
    }
    void refill(Clock::time_point now);

    qint64 bytesPerSecond;
    qint64 burstBytes;
    double tokens;
    Clock::time_point refilledAt;
};

// A peer's access link: one bucket for all it sends, one for all it receives (null: unlimited
// that way). Touched only on the relay thread.
struct AccessLink {
    std::unique_ptr<TokenBucket> up;
    std::unique_ptr<TokenBucket> down;
};

// One direction of a relayed connection: reads `from` while the bounds allow, holds each chunk
// for the link's delay, then writes it to `to` as fast as the link's token bucket, and the
// sender's and receiver's access links (when they have one), allow.
class RelayPipe {
public:
    RelayPipe(QTcpSocket *from, QTcpSocket *to, LinkShape shape, const LinkEmulatorOptions &options,
              std::atomic<qint64> *forwarded, QueueAccount *account, QObject *context,
              std::vector<TokenBucket *> sharedBuckets = {});
    ~RelayPipe();
    RelayPipe(const RelayPipe &) = delete;
    RelayPipe &operator=(const RelayPipe &) = delete;

    // Qt buffers at most this much of `from`, so TCP flow control holds back the rest.
    static qint64 readBufferBytes(const LinkEmulatorOptions &options);

    void readFromSource();
    void pump();
    // `from` was closed: once what it sent is forwarded, `to` is closed as well.
    void sourceFinished();
    void account();

private:
    using Clock = std::chrono::steady_clock;
    struct Chunk {
        Clock::time_point releaseAt;
        QByteArray bytes;
        qsizetype offset = 0;
    };

    bool targetOpen() const;
    void dropQueued();
    qint64 sendableBytes(qint64 wanted, Clock::time_point now);
    void wakeAfter(Clock::duration wait);
    void closeTargetWhenFlushed();

    QTcpSocket *m_from;
    QTcpSocket *m_to;
    LinkShape m_shape;
    qint64 m_maxQueuedBytes;
    qint64 m_readBufferBytes;
    qint64 m_burstBytes;
    std::atomic<qint64> *m_forwarded;
    QueueAccount *m_account;
    QTimer m_timer;
    std::deque<Chunk> m_chunks; // in arrival order; one delay for all keeps release times in order
    qint64 m_chunkBytes = 0;
    TokenBucket m_bucket;                     // this connection's link, this direction
    std::vector<TokenBucket *> m_sharedBuckets; // access links, shared with other connections
    qint64 m_accountedBytes = 0;
    bool m_sourceFinished = false;
    bool m_targetClosed = false;
};

// An accepted connection and its outgoing twin, relayed both ways through one link shape. Deletes
// itself once both sockets are closed.
class RelayedConnection : public QObject {
public:
    RelayedConnection(QTcpSocket *client, const QHostAddress &target, quint16 targetPort, LinkShape shape,
                      const LinkEmulatorOptions &options, std::shared_ptr<RelayTraffic> traffic,
                      std::shared_ptr<QueueAccount> account, std::shared_ptr<AccessLink> sourceAccess,
                      std::shared_ptr<AccessLink> targetAccess, QObject *parent);
    ~RelayedConnection() override;

private:
    static QTcpSocket *connectFrom(const QHostAddress &source, QObject *parent);
    void watch(QTcpSocket *socket, RelayPipe &readPipe, RelayPipe &writePipe);
    void abortBoth();
    void deleteWhenBothClosed();

    std::shared_ptr<RelayTraffic> m_traffic;
    std::shared_ptr<QueueAccount> m_account;
    std::shared_ptr<AccessLink> m_sourceAccess; // kept alive while the pipes use them
    std::shared_ptr<AccessLink> m_targetAccess;
    QTcpSocket *m_client;
    QTcpSocket *m_target;
    std::unique_ptr<RelayPipe> m_toTarget;
    std::unique_ptr<RelayPipe> m_fromTarget;
    bool m_done = false;
};

} // namespace swarmtrain::test
