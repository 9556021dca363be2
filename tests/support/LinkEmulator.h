#pragma once

#include "LinkModel.h"
#include "Result.h"

#include <QHostAddress>
#include <QList>
#include <QString>

#include <memory>

class QObject;
class QThread;

namespace swarmtrain::test {

struct LinkEmulatorShared;

struct LinkEmulatorOptions {
    // Bytes one direction of one connection may hold (read but not yet taken by the kernel);
    // past it the relay stops reading the sender, and TCP flow control slows the sender down.
    qint64 maxQueuedBytesPerDirection = 1 << 20;
    // Bytes a rate-limited direction may send at once after being idle; at least 10 ms worth of
    // the link's rate, so timer wake-ups (about 1 ms apart at best) can keep up with fast links.
    qint64 burstBytes = 16 * 1024;
};

// One relay port's traffic: bytes forwarded (handed to the receiving socket) each way.
struct RelayCounters {
    qint64 bytesToTarget = 0;
    qint64 bytesFromTarget = 0;
    int connectionsAccepted = 0;
};

// What the emulator decided for one accepted connection.
struct RelayedConnectionInfo {
    quint16 relayPort = 0;
    QHostAddress source; // the accepted connection's peer address
    QHostAddress target;
    QString sourceSite;  // empty when the address has no site
    QString targetSite;
    LinkShape shape;
};

// A user-space WAN emulator for tests and benchmarks (the kernel here has no netem): relay ports
// that forward TCP connections to peers, with each connection delayed and rate-limited by the link
// between the source address's site and the target's. Peers listen and connect from their own
// loopback addresses (127.0.1.x), so the source address tells who is calling.
//
// The relays run on a thread of their own, so test code may block while peers talk through them.
// Every function is thread-safe; none may be called from the emulator's own thread, on which
// start/stop/addRelay would wait for themselves.
class LinkEmulator {
public:
    explicit LinkEmulator(LinkEmulatorOptions options = {});
    ~LinkEmulator(); // stop()s
    LinkEmulator(const LinkEmulator &) = delete;
    LinkEmulator &operator=(const LinkEmulator &) = delete;

    Result<void> start();
    // Closes every relay port and aborts every relayed connection, then joins the thread.
    void stop();
    bool isRunning() const;

    // A new port on listenAddress that forwards each accepted connection to target:targetPort.
    Result<quint16> addRelay(const QHostAddress &target, quint16 targetPort,
                             const QHostAddress &listenAddress = QHostAddress(QHostAddress::LocalHost));

    // The link model. A connection's shape is chosen when it is accepted, from the sites of its source
    // address and of its relay's target; later changes apply to later connections.
    void setSite(const QHostAddress &peerAddress, const QString &site);
    void setLink(const QString &siteA, const QString &siteB, LinkShape shape);
    // For addresses without a site and site pairs without a link; no delay, unlimited at first.
    void setDefaultShape(LinkShape shape);
    // A peer's access link (a home connection): all its connections together send at most `up`
    // and receive at most `down` bytes a second (0: unlimited), on top of each link's own shape.
    // Applies to later connections.
    void setAccessRate(const QHostAddress &peerAddress, qint64 upBytesPerSecond, qint64 downBytesPerSecond);
    LinkShape shapeBetween(const QHostAddress &source, const QHostAddress &target) const;

    RelayCounters counters(quint16 relayPort) const;
    QList<RelayedConnectionInfo> connections() const; // every accepted one, oldest first
    // Bytes held by the relays now, over all connections and directions.
    qint64 queuedBytes() const;
    // The most one direction of one connection ever held; never above maxQueuedBytesPerDirection.
    qint64 peakQueuedBytesPerDirection() const;
    const LinkEmulatorOptions &options() const;

private:
    std::shared_ptr<LinkEmulatorShared> m_shared; // also held by the relay thread's objects
    std::unique_ptr<QThread> m_thread;
    QObject *m_hub = nullptr; // on m_thread while running; owns the relay servers and their connections
};

} // namespace swarmtrain::test
