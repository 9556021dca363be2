// A man in the middle on the data plane (issue 16, "Client hardening"): a relay between two
// peers' transports that flips a bit of the sealed stream, replays a sealed record, or swaps
// its own ephemeral key into the dialer's HELLO. Each attack must be detected (the connection
// closed, the sender counted where it is at fault), nothing it altered may reach the receiver,
// and the peers must still talk once the relay is out of the way. Prints one ATTACK line each.
#include "EphemeralKeyPair.h"
#include "FrameCodec.h"
#include "Identity.h"
#include "PeerTransport.h"
#include "TamperRelay.h"
#include "SignalWait.h"
#include "TestApplication.h"

#include <gtest/gtest.h>

#include <QHash>
#include <QSignalSpy>

#include <cstdio>
#include <memory>

using namespace swarmtrain;
using swarmtrain::test::TamperRelay;

namespace {

using swarmtrain::test::waitFor;

FrameHeader tensorHeader(qint64 elements)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(1);
    header.set_range_end(quint64(elements));
    header.set_dtype("F32");
    header.add_shape(elements);
    header.set_tokens(1);
    return header;
}

QByteArray payload(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = char(i * 13 + 1);
    return bytes;
}

void report(const char *attack, bool detected, const std::string &how)
{
    std::printf("ATTACK %s detected=%s rounds_until_banned=n/a loss_delta=n/a how=\"%s\"\n", attack,
                detected ? "yes" : "no", how.c_str());
    std::fflush(stdout);
}

class DataPlaneTamperTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { test::application(); }

    void SetUp() override
    {
        for (const Identity *identity : {&m_alice, &m_bob})
            m_registered.insert(identity->keyId(), identity->publicKey());
        const PeerKeyRegistry registry = [this](const QString &keyId) -> std::optional<QByteArray> {
            const auto it = m_registered.constFind(keyId);
            return it == m_registered.constEnd() ? std::nullopt : std::optional<QByteArray>(*it);
        };
        m_aliceTransport = std::make_unique<PeerTransport>(m_alice, registry);
        m_bobTransport = std::make_unique<PeerTransport>(m_bob, registry);
        m_alicePort = m_aliceTransport->listen(QHostAddress::LocalHost).value();
    }

    static QString endpoint(quint16 port) { return QStringLiteral("127.0.0.1:%1").arg(port); }

    // With the relay gone, Bob dials Alice directly and a frame arrives intact.
    void expectTheyStillTalkDirectly()
    {
        QSignalSpy disconnected(m_bobTransport.get(), &PeerTransport::peerDisconnected);
        while (m_bobTransport->isConnected(m_alice.keyId()))
            ASSERT_TRUE(disconnected.wait(test::kSignalWaitMs));
        QSignalSpy connected(m_bobTransport.get(), &PeerTransport::peerConnected);
        QSignalSpy received(m_aliceTransport.get(), &PeerTransport::frameReceived);
        ASSERT_TRUE(m_bobTransport->connectToPeer(endpoint(m_alicePort), m_alice.keyId()).ok());
        ASSERT_TRUE(waitFor(connected));
        const QByteArray bytes = payload(4096);
        ASSERT_TRUE(m_bobTransport->send(m_alice.keyId(), tensorHeader(1024), bytes).ok());
        ASSERT_TRUE(waitFor(received));
        EXPECT_TRUE(received.at(0).at(2).toByteArray() == bytes);
    }

    Identity m_alice = Identity::generate().value();
    Identity m_bob = Identity::generate().value();
    QHash<QString, QByteArray> m_registered;
    std::unique_ptr<PeerTransport> m_aliceTransport;
    std::unique_ptr<PeerTransport> m_bobTransport;
    quint16 m_alicePort = 0;
};

TEST_F(DataPlaneTamperTest, AFlippedBitClosesTheConnectionAndNothingAlteredIsDelivered)
{
    QSignalSpy bobConnected(m_bobTransport.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(m_aliceTransport.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(m_aliceTransport.get(), &PeerTransport::frameReceived);
    {
        TamperRelay relay(m_alicePort);
        relay.flipAfterHandshake(TamperRelay::ToTarget, 1000);
        ASSERT_TRUE(m_bobTransport->connectToPeer(endpoint(relay.port()), m_alice.keyId()).ok());
        ASSERT_TRUE(waitFor(bobConnected));
        ASSERT_TRUE(m_bobTransport->send(m_alice.keyId(), tensorHeader(64 * 1024), payload(256 * 1024)).ok());
        ASSERT_TRUE(waitFor(aliceDisconnected));
        EXPECT_EQ(relay.tampered(), 1);
    }
    const QString reason = aliceDisconnected.at(0).at(1).toString();
    const bool detected = reason.contains(QStringLiteral("fails authentication")) && aliceReceived.isEmpty();
    report("data-plane-tamper", detected, reason.toStdString());
    EXPECT_TRUE(detected) << reason.toStdString();
    EXPECT_EQ(m_aliceTransport->rejectedFrames(m_bob.keyId()), 1);
    ASSERT_NO_FATAL_FAILURE(expectTheyStillTalkDirectly());
}

TEST_F(DataPlaneTamperTest, AReplayedRecordClosesTheConnection)
{
    QSignalSpy bobConnected(m_bobTransport.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(m_aliceTransport.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(m_aliceTransport.get(), &PeerTransport::frameReceived);
    {
        TamperRelay relay(m_alicePort);
        relay.replayFirstRecord(TamperRelay::ToTarget);
        ASSERT_TRUE(m_bobTransport->connectToPeer(endpoint(relay.port()), m_alice.keyId()).ok());
        ASSERT_TRUE(waitFor(bobConnected));
        ASSERT_TRUE(m_bobTransport->send(m_alice.keyId(), tensorHeader(16), payload(64)).ok());
        ASSERT_TRUE(waitFor(aliceDisconnected));
        EXPECT_EQ(relay.tampered(), 1);
    }
    const QString reason = aliceDisconnected.at(0).at(1).toString();
    // The original arrives once; its copy is refused.
    const bool detected = reason.contains(QStringLiteral("fails authentication")) && aliceReceived.count() == 1;
    report("data-plane-replay", detected, reason.toStdString());
    EXPECT_TRUE(detected) << reason.toStdString();
    ASSERT_NO_FATAL_FAILURE(expectTheyStillTalkDirectly());
}

TEST_F(DataPlaneTamperTest, AMiddlemansOwnEphemeralKeyIsRefusedAtTheHandshake)
{
    const EphemeralKeyPair middle = EphemeralKeyPair::generate().value();
    QSignalSpy aliceFailed(m_aliceTransport.get(), &PeerTransport::connectionFailed);
    QSignalSpy aliceConnected(m_aliceTransport.get(), &PeerTransport::peerConnected);
    QSignalSpy bobFailed(m_bobTransport.get(), &PeerTransport::connectionFailed);
    {
        TamperRelay relay(m_alicePort);
        // Bob's HELLO reaches Alice with the middleman's key, so he could compute Alice's side
        // of the exchange, were the proof not signed over the key Bob sent.
        relay.rewriteFirstFrame([&](const QByteArray &frame) {
            FrameHeader header;
            header.ParseFromArray(frame.constData() + 4, int(frame.size() - 4));
            header.mutable_hello()->set_ephemeral_key(middle.publicKey().toStdString());
            return encodeFrame(header, {}).value();
        });
        ASSERT_TRUE(m_bobTransport->connectToPeer(endpoint(relay.port()), m_alice.keyId()).ok());
        ASSERT_TRUE(waitFor(aliceFailed));
    }
    const QString reason = aliceFailed.at(0).at(1).toString();
    const bool detected = reason.contains(QStringLiteral("proof does not verify")) && aliceConnected.isEmpty();
    report("data-plane-key-swap", detected, reason.toStdString());
    EXPECT_TRUE(detected) << reason.toStdString();
    ASSERT_NO_FATAL_FAILURE(expectTheyStillTalkDirectly());
}

} // namespace
