#include "RelayedConnection.h"

#include <QTcpSocket>

#include <algorithm>

namespace swarmtrain::test {

void TokenBucket::refill(Clock::time_point now)
{
    tokens = std::min(double(burstBytes),
                      tokens + double(bytesPerSecond) * std::chrono::duration<double>(now - refilledAt).count());
    refilledAt = now;
}

RelayPipe::RelayPipe(QTcpSocket *from, QTcpSocket *to, LinkShape shape, const LinkEmulatorOptions &options,
                     std::atomic<qint64> *forwarded, QueueAccount *account, QObject *context,
                     std::vector<TokenBucket *> sharedBuckets)
    : m_from(from),
      m_to(to),
      m_shape(shape),
      m_maxQueuedBytes(options.maxQueuedBytesPerDirection),
      m_readBufferBytes(readBufferBytes(options)),
      m_burstBytes(std::max({qint64(1), options.burstBytes, shape.bytesPerSecond / 100})),
      m_forwarded(forwarded),
      m_account(account),
      m_bucket(shape.bytesPerSecond, m_burstBytes),
      m_sharedBuckets(std::move(sharedBuckets))
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, context, [this] { pump(); });
}

RelayPipe::~RelayPipe()
{
    m_account->queuedBytes -= m_accountedBytes;
}

qint64 RelayPipe::readBufferBytes(const LinkEmulatorOptions &options)
{
    return std::clamp<qint64>(options.maxQueuedBytesPerDirection / 4, 1, 64 * 1024);
}

bool RelayPipe::targetOpen() const
{
    const QAbstractSocket::SocketState state = m_to->state();
    return state != QAbstractSocket::UnconnectedState && state != QAbstractSocket::ClosingState;
}

void RelayPipe::dropQueued()
{
    m_chunks.clear();
    m_chunkBytes = 0;
}

void RelayPipe::account()
{
    const qint64 held = m_from->bytesAvailable() + m_chunkBytes + m_to->bytesToWrite();
    m_account->queuedBytes += held - m_accountedBytes;
    m_accountedBytes = held;
    qint64 peak = m_account->peakPerDirection.load();
    while (held > peak && !m_account->peakPerDirection.compare_exchange_weak(peak, held)) {
    }
}

void RelayPipe::readFromSource()
{
    account();
    if (!targetOpen()) {
        // Nobody left to deliver to; the connection is closing.
        if (m_from->isOpen())
            m_from->skip(m_from->bytesAvailable());
        dropQueued();
        account();
        return;
    }
    // What Qt may still buffer from `from` counts against the bound too.
    const qint64 room = m_maxQueuedBytes - m_readBufferBytes - m_chunkBytes - m_to->bytesToWrite();
    const qint64 wanted = std::min(room, m_from->bytesAvailable());
    if (wanted > 0) {
        QByteArray bytes = m_from->read(wanted);
        if (!bytes.isEmpty()) {
            m_chunkBytes += bytes.size();
            m_chunks.push_back({Clock::now() + std::chrono::milliseconds(m_shape.oneWayDelayMs), std::move(bytes)});
        }
    }
    pump();
}

void RelayPipe::pump()
{
    if (m_to->state() != QAbstractSocket::ConnectedState) {
        if (!targetOpen())
            dropQueued();
        account();
        closeTargetWhenFlushed();
        return;
    }
    const Clock::time_point now = Clock::now();
    while (!m_chunks.empty()) {
        Chunk &chunk = m_chunks.front();
        if (chunk.releaseAt > now) {
            wakeAfter(chunk.releaseAt - now);
            break;
        }
        const qint64 sendable = sendableBytes(chunk.bytes.size() - chunk.offset, now);
        if (sendable == 0)
            break;
        m_to->write(chunk.bytes.constData() + chunk.offset, sendable);
        *m_forwarded += sendable;
        chunk.offset += sendable;
        m_chunkBytes -= sendable;
        if (chunk.offset == chunk.bytes.size())
            m_chunks.pop_front();
    }
    account();
    closeTargetWhenFlushed();
}

qint64 RelayPipe::sendableBytes(qint64 wanted, Clock::time_point now)
{
    std::vector<TokenBucket *> buckets = m_sharedBuckets;
    if (m_shape.bytesPerSecond > 0)
        buckets.push_back(&m_bucket);
    if (buckets.empty())
        return wanted;
    using Seconds = std::chrono::duration<double>;
    // Whole quanta, so a slow link sends packets rather than a trickle of tiny writes.
    qint64 quantum = wanted;
    for (TokenBucket *bucket : buckets) {
        bucket->refill(now);
        quantum = std::min(quantum, std::max<qint64>(1, bucket->burstBytes / 8));
    }
    double wait = 0.0;
    qint64 sendable = wanted;
    for (const TokenBucket *bucket : buckets) {
        if (bucket->tokens < double(quantum))
            wait = std::max(wait, (double(quantum) - bucket->tokens) / double(bucket->bytesPerSecond));
        sendable = std::min(sendable, qint64(bucket->tokens));
    }
    if (wait > 0.0) {
        wakeAfter(std::chrono::duration_cast<Clock::duration>(Seconds(wait)));
        return 0;
    }
    for (TokenBucket *bucket : buckets)
        bucket->tokens -= double(sendable);
    return sendable;
}

void RelayPipe::wakeAfter(Clock::duration wait)
{
    // Rounded up: a timer that fires early only finds nothing to do yet.
    const auto milliseconds = std::chrono::ceil<std::chrono::milliseconds>(wait);
    m_timer.start(std::max(milliseconds, std::chrono::milliseconds(1)));
}

void RelayPipe::sourceFinished()
{
    m_sourceFinished = true;
    readFromSource();
}

void RelayPipe::closeTargetWhenFlushed()
{
    if (!m_sourceFinished || m_targetClosed || !m_chunks.empty() || (m_from->isOpen() && m_from->bytesAvailable() > 0))
        return;
    m_targetClosed = true;
    if (m_to->state() == QAbstractSocket::ConnectedState)
        m_to->disconnectFromHost(); // writes what Qt still buffers, then closes
    else
        m_to->abort();
}

RelayedConnection::RelayedConnection(QTcpSocket *client, const QHostAddress &target, quint16 targetPort,
                                     LinkShape shape, const LinkEmulatorOptions &options,
                                     std::shared_ptr<RelayTraffic> traffic, std::shared_ptr<QueueAccount> account,
                                     std::shared_ptr<AccessLink> sourceAccess, std::shared_ptr<AccessLink> targetAccess,
                                     QObject *parent)
    : QObject(parent),
      m_traffic(std::move(traffic)),
      m_account(std::move(account)),
      m_sourceAccess(std::move(sourceAccess)),
      m_targetAccess(std::move(targetAccess)),
      m_client(client)
{
    const qint64 readBuffer = RelayPipe::readBufferBytes(options);
    m_client->setParent(this);
    m_client->setReadBufferSize(readBuffer);
    // Nagle's algorithm would add its own delays to small messages.
    m_client->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_target = connectFrom(LinkModel::normalized(m_client->peerAddress()), this);
    m_target->setReadBufferSize(readBuffer);

    // Bytes to the target leave the source's access link and enter the target's; back the other way.
    std::vector<TokenBucket *> toTarget, fromTarget;
    const auto add = [](std::vector<TokenBucket *> &buckets, const std::unique_ptr<TokenBucket> &bucket) {
        if (bucket)
            buckets.push_back(bucket.get());
    };
    if (m_sourceAccess) {
        add(toTarget, m_sourceAccess->up);
        add(fromTarget, m_sourceAccess->down);
    }
    if (m_targetAccess) {
        add(toTarget, m_targetAccess->down);
        add(fromTarget, m_targetAccess->up);
    }
    m_toTarget = std::make_unique<RelayPipe>(m_client, m_target, shape, options, &m_traffic->bytesToTarget,
                                             m_account.get(), this, std::move(toTarget));
    m_fromTarget = std::make_unique<RelayPipe>(m_target, m_client, shape, options, &m_traffic->bytesFromTarget,
                                               m_account.get(), this, std::move(fromTarget));
    watch(m_client, *m_toTarget, *m_fromTarget);
    watch(m_target, *m_fromTarget, *m_toTarget);
    connect(m_target, &QTcpSocket::connected, this, [this] {
        m_target->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_toTarget->readFromSource();
    });
    m_target->connectToHost(target, targetPort);
}

RelayedConnection::~RelayedConnection()
{
    // The sockets are deleted after the pipes that point at them: keep their last signals away.
    m_client->disconnect(this);
    m_target->disconnect(this);
}

QTcpSocket *RelayedConnection::connectFrom(const QHostAddress &source, QObject *parent)
{
    // The target sees the caller's own address, as it would without the relay.
    auto *socket = new QTcpSocket(parent);
    if (!source.isLoopback() || socket->bind(source))
        return socket;
    delete socket;
    return new QTcpSocket(parent);
}

void RelayedConnection::watch(QTcpSocket *socket, RelayPipe &readPipe, RelayPipe &writePipe)
{
    connect(socket, &QTcpSocket::readyRead, this, [&readPipe] { readPipe.readFromSource(); });
    // The kernel took bytes: room to read more for the pipe that writes here.
    connect(socket, &QTcpSocket::bytesWritten, this, [&writePipe] { writePipe.readFromSource(); });
    connect(socket, &QTcpSocket::readChannelFinished, this, [&readPipe] { readPipe.sourceFinished(); });
    connect(socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        // A peer that hangs up is the ordinary end: readChannelFinished flushes and closes.
        if (error != QAbstractSocket::RemoteHostClosedError)
            abortBoth();
    });
    connect(socket, &QTcpSocket::stateChanged, this, [this](QAbstractSocket::SocketState state) {
        if (state == QAbstractSocket::UnconnectedState)
            deleteWhenBothClosed();
    });
}

void RelayedConnection::abortBoth()
{
    if (m_done)
        return;
    m_done = true;
    m_client->disconnect(this);
    m_target->disconnect(this);
    m_client->abort();
    m_target->abort();
    deleteLater();
}

void RelayedConnection::deleteWhenBothClosed()
{
    if (m_done || m_client->state() != QAbstractSocket::UnconnectedState ||
        m_target->state() != QAbstractSocket::UnconnectedState)
        return;
    m_done = true;
    deleteLater();
}

} // namespace swarmtrain::test
