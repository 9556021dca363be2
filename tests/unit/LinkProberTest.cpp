#include "Identity.h"
#include "LinkProber.h"
#include "PeerTransport.h"
#include "SignalWait.h"
#include "TestApplication.h"

#include <gtest/gtest.h>

#include <QSignalSpy>

#include <memory>

using namespace swarmtrain;

namespace {

using swarmtrain::test::application;

using swarmtrain::test::waitFor;

// Two peers on loopback, each with a transport and a prober, who know each other's keys.
class LinkProberTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { application(); }

    void SetUp() override
    {
        for (Identity *identity : {&m_alice, &m_bob})
            m_keys.insert(identity->keyId(), identity->publicKey());
        m_aliceTransport = makeTransport(m_alice);
        m_bobTransport = makeTransport(m_bob);
        Result<quint16> port = m_bobTransport->listen(QHostAddress::LocalHost, 0);
        ASSERT_TRUE(port.ok());
        m_bobEndpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
    }

    std::unique_ptr<PeerTransport> makeTransport(const Identity &identity)
    {
        return std::make_unique<PeerTransport>(identity, [this](const QString &keyId) -> std::optional<QByteArray> {
            const auto found = m_keys.constFind(keyId);
            return found == m_keys.constEnd() ? std::nullopt : std::optional<QByteArray>(*found);
        });
    }

    static Identity makeIdentity() { return Identity::generate().value(); }

    Identity m_alice = makeIdentity();
    Identity m_bob = makeIdentity();
    QHash<QString, QByteArray> m_keys;
    std::unique_ptr<PeerTransport> m_aliceTransport;
    std::unique_ptr<PeerTransport> m_bobTransport;
    QString m_bobEndpoint;
};

} // namespace

TEST_F(LinkProberTest, MeasuresRoundTripAndThroughputThenHangsUpWhatItDialled)
{
    LinkProber alice(*m_aliceTransport, {}, [](const QString &) { return false; });
    LinkProber bob(*m_bobTransport, {}, [](const QString &) { return false; });
    QSignalSpy measured(&alice, &LinkProber::measured);
    QSignalSpy hungUp(m_bobTransport.get(), &PeerTransport::peerDisconnected);

    alice.probe({{m_bob.keyId(), m_bobEndpoint}});
    ASSERT_TRUE(waitFor(measured));
    const auto measurement = measured.at(0).at(0).value<LinkMeasurement>();
    EXPECT_EQ(measurement.peerKeyId, m_bob.keyId());
    EXPECT_GT(measurement.rttMs, 0.0);
    EXPECT_GT(measurement.bytesPerSecond, 0.0);
    const QList<LinkMeasurement> taken = alice.takeMeasurements();
    ASSERT_EQ(taken.size(), 1);
    EXPECT_TRUE(alice.takeMeasurements().isEmpty()) << "taken once";
    EXPECT_TRUE(waitFor(hungUp)) << "a connection opened only to measure is closed afterwards";
}

TEST_F(LinkProberTest, AConnectionInUseStaysOpen)
{
    LinkProber alice(*m_aliceTransport, {}, [](const QString &) { return true; });
    LinkProber bob(*m_bobTransport, {}, {});
    QSignalSpy measured(&alice, &LinkProber::measured);
    alice.probe({{m_bob.keyId(), m_bobEndpoint}});
    ASSERT_TRUE(waitFor(measured));
    EXPECT_TRUE(m_aliceTransport->isConnected(m_bob.keyId()));
}

TEST_F(LinkProberTest, APeerThatCannotBeReachedIsReportedAndForgotten)
{
    LinkProber alice(*m_aliceTransport, {}, {});
    QSignalSpy failed(&alice, &LinkProber::failed);
    m_bobTransport.reset(); // nobody listens there any more
    alice.probe({{m_bob.keyId(), m_bobEndpoint}});
    ASSERT_TRUE(waitFor(failed));
    EXPECT_EQ(failed.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_EQ(alice.probesInFlight(), 0);
    EXPECT_TRUE(alice.takeMeasurements().isEmpty());
}

TEST_F(LinkProberTest, AnswersOnlySoManyProbesASecond)
{
    LinkProberOptions options;
    options.maxRepliesPerSecond = 3;
    options.clockMs = [] { return qint64(5000); }; // every probe lands in the same second
    LinkProber bob(*m_bobTransport, options, {});
    QSignalSpy connected(m_aliceTransport.get(), &PeerTransport::peerConnected);
    ASSERT_TRUE(m_aliceTransport->connectToPeer(m_bobEndpoint, m_bob.keyId()).ok());
    ASSERT_TRUE(waitFor(connected));

    QSignalSpy frames(m_aliceTransport.get(), &PeerTransport::frameReceived);
    FrameHeader probe;
    probe.set_type(wire::FRAME_TYPE_PROBE);
    probe.set_dtype("U8");
    probe.add_shape(16);
    for (quint32 tag = 1; tag <= 10; ++tag) {
        probe.set_tag(tag);
        ASSERT_TRUE(m_aliceTransport->send(m_bob.keyId(), probe, QByteArray(16, '\0')).ok());
    }
    ASSERT_TRUE(waitFor(frames, 3));
    // Ten probes sent, three answered; one more probe after them shows nothing else is in flight.
    probe.set_tag(99);
    ASSERT_TRUE(m_aliceTransport->send(m_bob.keyId(), probe, QByteArray(16, '\0')).ok());
    QSignalSpy bobFrames(m_bobTransport.get(), &PeerTransport::frameReceived);
    ASSERT_TRUE(waitFor(bobFrames));
    QCoreApplication::processEvents();
    EXPECT_EQ(frames.count(), 3);
    for (const QList<QVariant> &frame : frames)
        EXPECT_EQ(frame.at(1).value<FrameHeader>().type(), wire::FRAME_TYPE_PROBE_REPLY);
}
