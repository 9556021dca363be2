#include "LinkEmulator.h"
#include "TestApplication.h"

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QList>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>
#include <memory>

using namespace swarmtrain;
using namespace swarmtrain::test;

namespace {

// Generous: CI's two cores may be busy, and a busy machine only makes waits longer.
constexpr int kWaitMs = 30000;
constexpr qint64 kKiB = 1024;
constexpr qint64 kMiB = 1024 * kKiB;

bool waitFor(const std::function<bool()> &condition, int timeoutMs = kWaitMs)
{
    return QTest::qWaitFor(condition, timeoutMs);
}

QByteArray randomBytes(qsizetype size, quint32 seed)
{
    QList<quint32> words((size + 3) / 4);
    QRandomGenerator(seed).fillRange(words.data(), words.size());
    return QByteArray(reinterpret_cast<const char *>(words.constData()), size);
}

// Keeps what arrives on a socket (while reading is on), and whether the other end closed it.
class Collector {
public:
    explicit Collector(QTcpSocket *socket, bool reading = true) : m_socket(socket), m_reading(reading)
    {
        QObject::connect(socket, &QTcpSocket::readyRead, &m_context, [this] { take(); });
        QObject::connect(socket, &QTcpSocket::disconnected, &m_context, [this] {
            take();
            m_closed = true;
            m_bytesAtClose = m_bytes.size();
        });
    }

    void startReading()
    {
        m_reading = true;
        m_socket->setReadBufferSize(0); // unlimited again
        take();
    }
    const QByteArray &bytes() const { return m_bytes; }
    bool closed() const { return m_closed; }
    qsizetype bytesAtClose() const { return m_bytesAtClose; }

private:
    void take()
    {
        if (m_reading)
            m_bytes += m_socket->readAll();
    }

    QObject m_context; // the connections above end with this object
    QTcpSocket *m_socket;
    bool m_reading;
    QByteArray m_bytes;
    bool m_closed = false;
    qsizetype m_bytesAtClose = -1;
};

// The far end of relayed connections: a server that keeps every accepted socket.
class TargetServer {
public:
    explicit TargetServer(const QHostAddress &address = QHostAddress(QHostAddress::LocalHost), bool echo = false)
    {
        m_server.listen(address, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this, echo] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                if (echo)
                    QObject::connect(socket, &QTcpSocket::readyRead, socket,
                                     [socket] { socket->write(socket->readAll()); });
                m_accepted.append(socket);
            }
        });
    }

    bool listening() const { return m_server.isListening(); }
    QHostAddress address() const { return m_server.serverAddress(); }
    quint16 port() const { return m_server.serverPort(); }
    const QList<QTcpSocket *> &accepted() const { return m_accepted; }
    QTcpSocket *waitForConnection(qsizetype index = 0)
    {
        waitFor([&] { return m_accepted.size() > index; });
        return m_accepted.value(index);
    }

private:
    QTcpServer m_server;
    QList<QTcpSocket *> m_accepted;
};

std::unique_ptr<QTcpSocket> connectThrough(quint16 relayPort, const QHostAddress &from = QHostAddress())
{
    auto socket = std::make_unique<QTcpSocket>();
    // The peer's own loopback address, as peers bind their outgoing sockets.
    if (!from.isNull()) {
        EXPECT_TRUE(socket->bind(from)) << socket->errorString().toStdString();
    }
    socket->connectToHost(QHostAddress(QHostAddress::LocalHost), relayPort);
    EXPECT_TRUE(waitFor([&] { return socket->state() == QAbstractSocket::ConnectedState; }));
    return socket;
}

// Milliseconds from writing `message` until its echo is back.
qint64 echoRoundTripMs(QTcpSocket &socket, Collector &collector, const QByteArray &message)
{
    const qsizetype expected = collector.bytes().size() + message.size();
    QElapsedTimer clock;
    clock.start();
    socket.write(message);
    EXPECT_TRUE(waitFor([&] { return collector.bytes().size() >= expected; }));
    EXPECT_TRUE(collector.bytes().endsWith(message));
    return clock.elapsed();
}

class LinkEmulatorTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        application();
        ASSERT_TRUE(emulator.start().ok());
    }

    LinkEmulator emulator;
};

TEST(LinkEmulator, RefusesRelaysWhileStopped)
{
    application();
    LinkEmulator emulator;
    EXPECT_FALSE(emulator.addRelay(QHostAddress(QHostAddress::LocalHost), 1).ok());
    ASSERT_TRUE(emulator.start().ok());
    EXPECT_FALSE(emulator.start().ok());
    EXPECT_TRUE(emulator.addRelay(QHostAddress(QHostAddress::LocalHost), 1).ok());
    emulator.stop();
    EXPECT_FALSE(emulator.isRunning());
    EXPECT_FALSE(emulator.addRelay(QHostAddress(QHostAddress::LocalHost), 1).ok());
}

TEST_F(LinkEmulatorTest, UnshapedLinkRelaysBytesUnchangedBothWays)
{
    TargetServer target;
    ASSERT_TRUE(target.listening());
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok()) << relay.error().message;
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    Collector atClient(client.get());
    Collector atTarget(far);

    const QByteArray up = randomBytes(8 * kMiB + 3, 1);
    const QByteArray down = randomBytes(8 * kMiB + 5, 2);
    client->write(up);
    far->write(down);
    ASSERT_TRUE(waitFor([&] {
        return atTarget.bytes().size() >= up.size() && atClient.bytes().size() >= down.size();
    }));
    EXPECT_EQ(atTarget.bytes().size(), up.size());
    EXPECT_EQ(atClient.bytes().size(), down.size());
    EXPECT_TRUE(atTarget.bytes() == up);
    EXPECT_TRUE(atClient.bytes() == down);

    const RelayCounters counters = emulator.counters(*relay);
    EXPECT_EQ(counters.bytesToTarget, up.size());
    EXPECT_EQ(counters.bytesFromTarget, down.size());
    EXPECT_EQ(counters.connectionsAccepted, 1);
    EXPECT_EQ(emulator.counters(quint16(*relay + 1)).connectionsAccepted, 0);
}

TEST_F(LinkEmulatorTest, DelayHoldsEveryChunkInBothDirections)
{
    emulator.setDefaultShape({200, 0});
    TargetServer target(QHostAddress(QHostAddress::LocalHost), true);
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    ASSERT_NE(target.waitForConnection(), nullptr);
    Collector atClient(client.get());

    // 200 ms there and 200 ms back, for the first message and for a later one alike.
    EXPECT_GE(echoRoundTripMs(*client, atClient, "ping"), 400);
    EXPECT_GE(echoRoundTripMs(*client, atClient, "pong"), 400);
    ASSERT_EQ(emulator.connections().size(), 1);
    EXPECT_EQ(emulator.connections().front().shape, (LinkShape{200, 0}));
}

TEST_F(LinkEmulatorTest, RateLimitHoldsEachDirectionToTheLinkRate)
{
    emulator.setDefaultShape({0, 100 * kKiB});
    TargetServer target;
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    Collector atClient(client.get());
    Collector atTarget(far);

    const QByteArray up = randomBytes(200 * kKiB, 3);
    const QByteArray down = randomBytes(200 * kKiB, 4);
    QElapsedTimer clock;
    clock.start();
    client->write(up);
    far->write(down);
    ASSERT_TRUE(waitFor([&] { return atTarget.bytes().size() >= up.size(); }));
    const qint64 upMs = clock.elapsed();
    ASSERT_TRUE(waitFor([&] { return atClient.bytes().size() >= down.size(); }));
    const qint64 downMs = clock.elapsed();

    // One 16 KiB burst, then 184 KiB at 100 KiB/s: 1.84 s at the least, each way.
    EXPECT_GE(upMs, 1800);
    EXPECT_GE(downMs, 1800);
    EXPECT_TRUE(atTarget.bytes() == up);
    EXPECT_TRUE(atClient.bytes() == down);
}

TEST_F(LinkEmulatorTest, AnAccessLinkIsSharedByAllOfAPeersConnections)
{
    // Each link alone is unlimited; the sender's access link carries 100 KiB/s for both together.
    const QHostAddress home(QStringLiteral("127.0.1.7"));
    emulator.setAccessRate(home, 100 * kKiB, 0);
    TargetServer first;
    TargetServer second;
    const Result<quint16> firstRelay = emulator.addRelay(first.address(), first.port());
    const Result<quint16> secondRelay = emulator.addRelay(second.address(), second.port());
    ASSERT_TRUE(firstRelay.ok() && secondRelay.ok());
    std::unique_ptr<QTcpSocket> toFirst = connectThrough(*firstRelay, home);
    std::unique_ptr<QTcpSocket> toSecond = connectThrough(*secondRelay, home);
    QTcpSocket *atFirst = first.waitForConnection();
    QTcpSocket *atSecond = second.waitForConnection();
    ASSERT_TRUE(atFirst && atSecond);
    Collector firstBytes(atFirst);
    Collector secondBytes(atSecond);

    const QByteArray payload = randomBytes(100 * kKiB, 5);
    QElapsedTimer clock;
    clock.start();
    toFirst->write(payload);
    toSecond->write(payload);
    ASSERT_TRUE(waitFor([&] { return firstBytes.bytes().size() >= payload.size() && secondBytes.bytes().size() >= payload.size(); }));
    // 200 KiB through one 100 KiB/s access link (one 16 KiB burst): 1.84 s at the least.
    EXPECT_GE(clock.elapsed(), 1800);
    EXPECT_TRUE(firstBytes.bytes() == payload);
    EXPECT_TRUE(secondBytes.bytes() == payload);
}

TEST_F(LinkEmulatorTest, SourceAddressPicksTheShapeOfItsSitePair)
{
    const QHostAddress lanPeer(QStringLiteral("127.0.1.1"));
    const QHostAddress remotePeer(QStringLiteral("127.0.1.2"));
    const QHostAddress serverPeer(QStringLiteral("127.0.1.10"));
    emulator.setSite(lanPeer, QStringLiteral("lan"));
    emulator.setSite(serverPeer, QStringLiteral("lan"));
    emulator.setSite(remotePeer, QStringLiteral("remote"));
    const LinkShape inside{0, 0};
    const LinkShape between{150, 4 * kMiB};
    emulator.setLink(QStringLiteral("lan"), QStringLiteral("lan"), inside);
    emulator.setLink(QStringLiteral("remote"), QStringLiteral("lan"), between);
    EXPECT_EQ(emulator.shapeBetween(lanPeer, remotePeer), between);

    TargetServer target(serverPeer, true);
    ASSERT_TRUE(target.listening());
    const Result<quint16> relay = emulator.addRelay(serverPeer, target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> lanClient = connectThrough(*relay, lanPeer);
    ASSERT_NE(target.waitForConnection(0), nullptr);
    std::unique_ptr<QTcpSocket> remoteClient = connectThrough(*relay, remotePeer);
    ASSERT_NE(target.waitForConnection(1), nullptr);

    const QList<RelayedConnectionInfo> connections = emulator.connections();
    ASSERT_EQ(connections.size(), 2);
    EXPECT_EQ(connections[0].source, lanPeer);
    EXPECT_EQ(connections[0].sourceSite, QStringLiteral("lan"));
    EXPECT_EQ(connections[0].targetSite, QStringLiteral("lan"));
    EXPECT_EQ(connections[0].shape, inside);
    EXPECT_EQ(connections[1].source, remotePeer);
    EXPECT_EQ(connections[1].sourceSite, QStringLiteral("remote"));
    EXPECT_EQ(connections[1].shape, between);
    EXPECT_EQ(emulator.counters(*relay).connectionsAccepted, 2);

    // The target sees each caller's own address, as it would without the relay.
    EXPECT_EQ(target.accepted()[0]->peerAddress(), lanPeer);
    EXPECT_EQ(target.accepted()[1]->peerAddress(), remotePeer);

    Collector atLan(lanClient.get());
    Collector atRemote(remoteClient.get());
    echoRoundTripMs(*lanClient, atLan, "hello from the lan");
    EXPECT_GE(echoRoundTripMs(*remoteClient, atRemote, "hello from afar"), 300);
}

TEST_F(LinkEmulatorTest, MemoryStaysBoundedWhenAFastSenderMeetsASlowLink)
{
    emulator.setDefaultShape({10, 16 * kMiB});
    TargetServer target;
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    far->setReadBufferSize(64 * kKiB); // the receiver does not read: the kernel buffers fill, then the relay's
    Collector atTarget(far, false);

    const QByteArray payload = randomBytes(50 * kMiB, 5);
    client->write(payload);
    const qint64 bound = emulator.options().maxQueuedBytesPerDirection;
    // The sender is far faster than the link, so the relay soon holds all it may.
    ASSERT_TRUE(waitFor([&] { return emulator.queuedBytes() >= bound / 2; }));
    EXPECT_LE(emulator.peakQueuedBytesPerDirection(), bound);

    atTarget.startReading();
    ASSERT_TRUE(waitFor([&] { return atTarget.bytes().size() >= payload.size(); }, 2 * kWaitMs));
    EXPECT_TRUE(atTarget.bytes() == payload);
    EXPECT_LE(emulator.peakQueuedBytesPerDirection(), bound);
    EXPECT_GE(emulator.peakQueuedBytesPerDirection(), bound / 2);

    client->disconnectFromHost();
    EXPECT_TRUE(waitFor([&] { return atTarget.closed(); }));
    EXPECT_TRUE(waitFor([&] { return emulator.queuedBytes() == 0; }));
}

TEST_F(LinkEmulatorTest, ClosedTargetClosesTheClientAfterFlushing)
{
    emulator.setDefaultShape({100, 0});
    TargetServer target;
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    Collector atClient(client.get());

    // Still held by the link's delay when the target hangs up.
    far->write("goodbye");
    far->disconnectFromHost();
    ASSERT_TRUE(waitFor([&] { return atClient.closed(); }));
    EXPECT_EQ(atClient.bytes(), QByteArray("goodbye"));
    EXPECT_EQ(atClient.bytesAtClose(), 7);
    EXPECT_TRUE(waitFor([&] { return emulator.queuedBytes() == 0; }));
}

TEST_F(LinkEmulatorTest, ClosedClientClosesTheTargetAfterFlushing)
{
    emulator.setDefaultShape({100, 0});
    TargetServer target;
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    Collector atTarget(far);

    client->write("last words");
    client->disconnectFromHost();
    ASSERT_TRUE(waitFor([&] { return atTarget.closed(); }));
    EXPECT_EQ(atTarget.bytes(), QByteArray("last words"));
}

TEST_F(LinkEmulatorTest, UnreachableTargetClosesTheClient)
{
    quint16 closedPort = 0;
    {
        QTcpServer probe;
        ASSERT_TRUE(probe.listen(QHostAddress(QHostAddress::LocalHost), 0));
        closedPort = probe.serverPort();
    }
    const Result<quint16> relay = emulator.addRelay(QHostAddress(QHostAddress::LocalHost), closedPort);
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    Collector atClient(client.get());
    EXPECT_TRUE(waitFor([&] { return client->state() == QAbstractSocket::UnconnectedState; }));
    EXPECT_EQ(emulator.counters(*relay).connectionsAccepted, 1);
}

TEST_F(LinkEmulatorTest, StopClosesRelayedConnections)
{
    TargetServer target;
    const Result<quint16> relay = emulator.addRelay(target.address(), target.port());
    ASSERT_TRUE(relay.ok());
    std::unique_ptr<QTcpSocket> client = connectThrough(*relay);
    QTcpSocket *far = target.waitForConnection();
    ASSERT_NE(far, nullptr);
    Collector atClient(client.get());
    Collector atTarget(far);

    emulator.stop();
    EXPECT_TRUE(waitFor([&] { return atClient.closed() && atTarget.closed(); }));
    QTcpSocket late;
    late.connectToHost(QHostAddress(QHostAddress::LocalHost), *relay);
    EXPECT_TRUE(waitFor([&] { return late.state() == QAbstractSocket::UnconnectedState; }));
    EXPECT_EQ(late.error(), QAbstractSocket::ConnectionRefusedError);
}

} // namespace
