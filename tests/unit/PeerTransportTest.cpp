#include "SignalWait.h"
#include "TestApplication.h"
#include "EphemeralKeyPair.h"
#include "FrameCodec.h"
#include "FrameDecoder.h"
#include "Identity.h"
#include "PeerTransport.h"
#include "PeerTransportHandshake.h"
#include "RawPeer.h"
#include "RecordSealer.h"
#include "TamperRelay.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QHash>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtEndian>

#include <memory>

using namespace swarmtrain;

namespace {

using swarmtrain::test::application;

using swarmtrain::test::waitFor;

Identity makeIdentity()
{
    Result<Identity> identity = Identity::generate();
    EXPECT_TRUE(identity.ok());
    return std::move(identity).value();
}

QByteArray patternBytes(qsizetype size, int seed)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = char((i * 131 + seed) & 0xff);
    return bytes;
}

FrameHeader tensorHeader(qint64 elements, quint64 round = 3)
{
    FrameHeader header;
    header.set_type(wire::FRAME_TYPE_TENSOR);
    header.set_round(round);
    header.set_tag(1);
    header.set_range_begin(0);
    header.set_range_end(quint64(elements));
    header.set_dtype("F32");
    header.add_shape(elements);
    header.set_tokens(512);
    return header;
}

QByteArray rawFrame(const FrameHeader &header, const QByteArray &payload = {})
{
    const std::string serialized = header.SerializeAsString();
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian(quint32(serialized.size()), bytes.data());
    return bytes + QByteArray::fromStdString(serialized) + payload;
}

using test::RawPeer;
using test::TamperRelay;

class PeerTransportTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { application(); }

    void SetUp() override
    {
        registerKey(m_alice);
        registerKey(m_bob);
    }

    void registerKey(const Identity &identity) { m_registered.insert(identity.keyId(), identity.publicKey()); }

    PeerKeyRegistry registry()
    {
        return [this](const QString &keyId) -> std::optional<QByteArray> {
            const auto it = m_registered.constFind(keyId);
            if (it == m_registered.constEnd())
                return std::nullopt;
            return *it;
        };
    }

    std::unique_ptr<PeerTransport> makeTransport(const Identity &identity, PeerTransportOptions options = {})
    {
        return std::make_unique<PeerTransport>(identity, registry(), options);
    }

    quint16 listen(PeerTransport &transport)
    {
        Result<quint16> port = transport.listen(QHostAddress::LocalHost, 0);
        EXPECT_TRUE(port.ok()) << (port.ok() ? "" : port.error().message);
        return port.ok() ? *port : 0;
    }

    static QString endpoint(quint16 port) { return QStringLiteral("127.0.0.1:%1").arg(port); }

    Identity m_alice = makeIdentity();
    Identity m_bob = makeIdentity();
    Identity m_mallory = makeIdentity();
    QHash<QString, QByteArray> m_registered;
};

TEST_F(PeerTransportTest, HandshakeThenLargeTensorFramesBothWays)
{
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    const quint16 port = listen(*alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy bobConnected(bob.get(), &PeerTransport::peerConnected);

    ASSERT_TRUE(bob->connectToPeer(endpoint(port), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(aliceConnected));
    ASSERT_TRUE(waitFor(bobConnected));
    EXPECT_EQ(aliceConnected.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_EQ(bobConnected.at(0).at(0).toString(), m_alice.keyId());
    EXPECT_TRUE(alice->isConnected(m_bob.keyId()));
    EXPECT_EQ(bob->connectedPeers(), QStringList{m_alice.keyId()});

    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    QSignalSpy bobReceived(bob.get(), &PeerTransport::frameReceived);
    const qint64 toBobElements = (5 << 20) / 4;
    const qint64 toAliceElements = (3 << 20) / 4 + 1;
    const QByteArray toBob = patternBytes(toBobElements * 4, 1);
    const QByteArray toAlice = patternBytes(toAliceElements * 4, 2);
    Result<void> sent = alice->send(m_bob.keyId(), tensorHeader(toBobElements, 11), toBob);
    ASSERT_TRUE(sent.ok()) << sent.error().message;
    sent = bob->send(m_alice.keyId(), tensorHeader(toAliceElements, 12), toAlice);
    ASSERT_TRUE(sent.ok()) << sent.error().message;

    ASSERT_TRUE(waitFor(bobReceived));
    ASSERT_TRUE(waitFor(aliceReceived));
    EXPECT_EQ(bobReceived.at(0).at(0).toString(), m_alice.keyId());
    const auto bobHeader = bobReceived.at(0).at(1).value<FrameHeader>();
    EXPECT_EQ(bobHeader.round(), 11u);
    EXPECT_EQ(bobHeader.shape(0), toBobElements);
    EXPECT_TRUE(bobReceived.at(0).at(2).toByteArray() == toBob);
    EXPECT_EQ(aliceReceived.at(0).at(1).value<FrameHeader>().round(), 12u);
    EXPECT_TRUE(aliceReceived.at(0).at(2).toByteArray() == toAlice);

    EXPECT_GT(alice->bytesSent(), toBob.size());
    EXPECT_GT(alice->bytesReceived(), toAlice.size());
    EXPECT_GT(bob->bytesReceived(), toBob.size());
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 0);
}

TEST_F(PeerTransportTest, RefusesAPeerWhoseKeyIsNotRegistered)
{
    auto alice = makeTransport(m_alice);
    auto mallory = makeTransport(m_mallory); // knows Alice, but the coordinator never registered Mallory
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    QSignalSpy malloryFailed(mallory.get(), &PeerTransport::connectionFailed);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);

    ASSERT_TRUE(mallory->connectToPeer(endpoint(listen(*alice)), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_EQ(aliceFailed.at(0).at(0).toString(), m_mallory.keyId());
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("is not registered")))
        << aliceFailed.at(0).at(1).toString().toStdString();
    // Mallory hears why (the ERROR frame) and ends up disconnected too.
    ASSERT_TRUE(waitFor(malloryFailed));
    EXPECT_TRUE(malloryFailed.at(0).at(1).toString().contains(QStringLiteral("not registered")))
        << malloryFailed.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(aliceConnected.isEmpty());
    EXPECT_TRUE(alice->connectedPeers().isEmpty());
}

TEST_F(PeerTransportTest, RefusesAPeerWhoseKeyIsNotTheRegisteredOne)
{
    // The coordinator registered Bob's key id with another key: Bob's HELLO must not pass.
    m_registered.insert(m_bob.keyId(), m_mallory.publicKey());
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    ASSERT_TRUE(bob->connectToPeer(endpoint(listen(*alice)), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("does not match the key the coordinator")))
        << aliceFailed.at(0).at(1).toString().toStdString();
}

TEST_F(PeerTransportTest, RefusesAKeyIdThatIsNotTheIdOfThePublicKey)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    RawPeer mallory(listen(*alice));
    // Mallory claims to be Bob but can only send her own public key.
    mallory.sendHello(m_mallory, m_bob.keyId());
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_EQ(aliceFailed.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("is not the id of the public key")))
        << aliceFailed.at(0).at(1).toString().toStdString();

    ASSERT_TRUE(mallory.readHello().has_value());
    const std::optional<Frame> error = mallory.readFrame();
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->header.type(), wire::FRAME_TYPE_ERROR);
    EXPECT_TRUE(mallory.waitForClose());
}

TEST_F(PeerTransportTest, RefusesAForgedProof)
{
    registerKey(m_mallory);
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    RawPeer mallory(listen(*alice));
    mallory.sendHello(m_mallory, m_mallory.keyId());
    const std::optional<wire::Hello> hello = mallory.readHello();
    ASSERT_TRUE(hello.has_value());

    // Signed as if Mallory were the acceptor: what a proof replayed from another connection,
    // or reflected back, looks like.
    FrameHeader proof;
    proof.set_type(wire::FRAME_TYPE_HELLO_PROOF);
    proof.mutable_proof()->set_signature(
        m_mallory.sign(helloProofMessage(mallory.transcript(m_mallory.keyId(), *hello).digest(), false)).toStdString());
    mallory.send(proof);

    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("proof does not verify")))
        << aliceFailed.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(mallory.waitForClose());
    EXPECT_TRUE(aliceConnected.isEmpty());
}

TEST_F(PeerTransportTest, RefusesAProofSignedByAnotherKey)
{
    registerKey(m_mallory);
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    RawPeer mallory(listen(*alice));
    // Mallory presents Bob's registered key but holds only her own private key.
    mallory.sendHello(m_bob, m_bob.keyId());
    const std::optional<wire::Hello> hello = mallory.readHello();
    ASSERT_TRUE(hello.has_value());
    mallory.sendProof(m_mallory, mallory.transcript(m_bob.keyId(), *hello), m_bob.keyId(), *hello);

    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_EQ(aliceFailed.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("proof does not verify")))
        << aliceFailed.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(aliceConnected.isEmpty());
}

TEST_F(PeerTransportTest, RefusesAHelloWhoseEphemeralKeyWasSwapped)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    RawPeer bob(listen(*alice));
    // Bob signs his own ephemeral key, but Alice receives another one, as a man in the middle
    // who swapped in his own would make her: the proof no longer matches what she saw.
    const Result<EphemeralKeyPair> middle = EphemeralKeyPair::generate();
    ASSERT_TRUE(middle.ok());
    bob.sendHello(m_bob, m_bob.keyId(), middle->publicKey());
    const std::optional<wire::Hello> hello = bob.readHello();
    ASSERT_TRUE(hello.has_value());
    bob.sendProof(m_bob, bob.transcript(m_bob.keyId(), *hello), m_bob.keyId(), *hello);

    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("proof does not verify")))
        << aliceFailed.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(aliceConnected.isEmpty());
}

TEST_F(PeerTransportTest, RefusesAHelloWithoutAnEphemeralKey)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    RawPeer bob(listen(*alice));
    bob.sendHello(m_bob, m_bob.keyId(), QByteArray(16, 'k'));
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("ephemeral key of 16 bytes")))
        << aliceFailed.at(0).at(1).toString().toStdString();
}

TEST_F(PeerTransportTest, ClosesAndCountsAConnectionWhoseSealedFrameWasAltered)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    QByteArray sealed = bob.encode(tensorHeader(64), patternBytes(256, 8));
    sealed[sealed.size() / 2] = char(sealed[sealed.size() / 2] ^ 0x01);
    bob.write(sealed);
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("fails authentication")))
        << aliceDisconnected.at(0).at(1).toString().toStdString();
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
    EXPECT_TRUE(aliceReceived.isEmpty());
    EXPECT_TRUE(bob.waitForClose());
}

TEST_F(PeerTransportTest, ClosesAConnectionThatReplaysASealedFrame)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    const QByteArray sealed = bob.encode(tensorHeader(4), patternBytes(16, 9));
    bob.write(sealed);
    ASSERT_TRUE(waitFor(aliceReceived));
    bob.write(sealed); // the same bytes again, as a man in the middle could
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("fails authentication")))
        << aliceDisconnected.at(0).at(1).toString().toStdString();
    EXPECT_EQ(aliceReceived.count(), 1);
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
}

TEST_F(PeerTransportTest, ClosesAConnectionWhoseSealedFramesAreReordered)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    const QByteArray first = bob.encode(tensorHeader(4, 1), patternBytes(16, 1));
    const QByteArray second = bob.encode(tensorHeader(4, 2), patternBytes(16, 2));
    bob.write(second + first);
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("fails authentication")));
    EXPECT_TRUE(aliceReceived.isEmpty());
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
}

TEST_F(PeerTransportTest, ClosesAConnectionThatSpeaksInClearAfterTheHandshake)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));
    bob.write(*encodeFrame(tensorHeader(4), patternBytes(16, 3)));
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_TRUE(aliceReceived.isEmpty());
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
}

TEST_F(PeerTransportTest, NoPlaintextOfAPayloadCrossesTheWire)
{
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    TamperRelay relay(listen(*alice));
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    QSignalSpy bobReceived(bob.get(), &PeerTransport::frameReceived);
    QSignalSpy bobConnected(bob.get(), &PeerTransport::peerConnected);
    ASSERT_TRUE(bob->connectToPeer(endpoint(relay.port()), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(bobConnected));

    // A recognisable payload, larger than one sealed record.
    QByteArray secret;
    while (secret.size() < 300'000)
        secret += "the quick brown fox trains a tiny GPT; ";
    secret.truncate(300'000 / 4 * 4);
    ASSERT_TRUE(bob->send(m_alice.keyId(), tensorHeader(secret.size() / 4), secret).ok());
    ASSERT_TRUE(waitFor(aliceReceived));
    EXPECT_TRUE(aliceReceived.at(0).at(2).toByteArray() == secret);
    ASSERT_TRUE(alice->send(m_bob.keyId(), tensorHeader(secret.size() / 4), secret).ok());
    ASSERT_TRUE(waitFor(bobReceived));

    const QByteArray toAlice = relay.captured(TamperRelay::ToTarget);
    const QByteArray toBob = relay.captured(TamperRelay::FromTarget);
    EXPECT_GT(toAlice.size(), secret.size());
    EXPECT_GT(toBob.size(), secret.size());
    // The frame header is sealed too: its encoded bytes (a dozen and more; three, such as "F32",
    // turn up by chance in 600 kB of ciphertext one run in thirty) never cross in the clear.
    const std::string header = tensorHeader(secret.size() / 4).SerializeAsString();
    ASSERT_GE(header.size(), 10u);
    for (const QByteArray &wire : {toAlice, toBob}) {
        EXPECT_FALSE(wire.contains("quick brown fox"));
        EXPECT_FALSE(wire.contains(QByteArrayView(header.data(), qsizetype(header.size()))));
    }
}

TEST_F(PeerTransportTest, AMiddlemanWhoFlipsABitCutsTheConnection)
{
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    TamperRelay relay(listen(*alice));
    relay.flipAfterHandshake(TamperRelay::ToTarget, 40);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    QSignalSpy bobConnected(bob.get(), &PeerTransport::peerConnected);
    ASSERT_TRUE(bob->connectToPeer(endpoint(relay.port()), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(bobConnected));
    ASSERT_TRUE(bob->send(m_alice.keyId(), tensorHeader(1024), patternBytes(4096, 4)).ok());

    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_EQ(relay.tampered(), 1);
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("fails authentication")))
        << aliceDisconnected.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(aliceReceived.isEmpty());
}

TEST_F(PeerTransportTest, ClosesAConnectionThatSendsATensorBeforeTheHandshake)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    RawPeer stranger(listen(*alice));
    stranger.write(*encodeFrame(tensorHeader(4), patternBytes(16, 3)));
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("TENSOR before the handshake")))
        << aliceFailed.at(0).at(1).toString().toStdString();
    EXPECT_TRUE(stranger.waitForClose());
}

TEST_F(PeerTransportTest, ClosesAConnectionThatSendsAnOversizedFrame)
{
    PeerTransportOptions options;
    options.limits.maxPayloadBytes = 1 << 20;
    auto alice = makeTransport(m_alice, options);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceRejected(alice.get(), &PeerTransport::frameRejected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    // Claims 2 MiB; only the header is sent, so Alice must refuse on the claim.
    FrameHeader oversized = tensorHeader((2 << 20) / 4);
    oversized.set_payload_bytes(2 << 20);
    bob.write(bob.seal(rawFrame(oversized)));
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_EQ(aliceDisconnected.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("exceeds the limit")))
        << aliceDisconnected.at(0).at(1).toString().toStdString();
    EXPECT_EQ(aliceRejected.count(), 1);
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
    EXPECT_TRUE(aliceReceived.isEmpty());
    EXPECT_FALSE(alice->isConnected(m_bob.keyId()));
    EXPECT_TRUE(bob.waitForClose());
}

TEST_F(PeerTransportTest, ReportsATruncatedFrameWhenThePeerLeavesMidFrame)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    const QByteArray frame = bob.encode(tensorHeader(1000), patternBytes(4000, 4));
    bob.write(frame.left(frame.size() / 2));
    bob.socket().disconnectFromHost();
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_TRUE(aliceDisconnected.at(0).at(1).toString().contains(QStringLiteral("truncated")))
        << aliceDisconnected.at(0).at(1).toString().toStdString();
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 1);
    EXPECT_TRUE(aliceReceived.isEmpty());
}

TEST_F(PeerTransportTest, ReportsAPeerThatVanishes)
{
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy bobConnected(bob.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    ASSERT_TRUE(bob->connectToPeer(endpoint(listen(*alice)), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(aliceConnected));
    ASSERT_TRUE(waitFor(bobConnected));

    bob.reset(); // its sockets are aborted, as when the process dies
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_EQ(aliceDisconnected.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_FALSE(aliceDisconnected.at(0).at(1).toString().isEmpty());
    EXPECT_FALSE(alice->isConnected(m_bob.keyId()));
    EXPECT_EQ(alice->rejectedFrames(m_bob.keyId()), 0);
    EXPECT_FALSE(alice->send(m_bob.keyId(), tensorHeader(1), patternBytes(4, 5)).ok());
}

TEST_F(PeerTransportTest, ReportsAnAbortedRawSocket)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));
    bob.socket().abort();
    ASSERT_TRUE(waitFor(aliceDisconnected));
    EXPECT_EQ(aliceDisconnected.at(0).at(0).toString(), m_bob.keyId());
}

TEST_F(PeerTransportTest, DropsAConnectionThatNeverFinishesItsHandshake)
{
    PeerTransportOptions options;
    options.handshakeTimeoutMs = 100;
    auto alice = makeTransport(m_alice, options);
    QSignalSpy aliceFailed(alice.get(), &PeerTransport::connectionFailed);
    RawPeer silent(listen(*alice));
    ASSERT_TRUE(waitFor(aliceFailed));
    EXPECT_TRUE(aliceFailed.at(0).at(1).toString().contains(QStringLiteral("timed out")));
    EXPECT_TRUE(silent.waitForClose());
}

TEST_F(PeerTransportTest, ReportsAPeerThatCannotBeReached)
{
    quint16 closedPort = 0;
    {
        QTcpServer probe;
        ASSERT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
        closedPort = probe.serverPort();
    }
    auto bob = makeTransport(m_bob);
    QSignalSpy bobFailed(bob.get(), &PeerTransport::connectionFailed);
    ASSERT_TRUE(bob->connectToPeer(endpoint(closedPort), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(bobFailed));
    EXPECT_EQ(bobFailed.at(0).at(0).toString(), m_alice.keyId());
}

TEST_F(PeerTransportTest, RefusesTheWrongPeerAtAnEndpoint)
{
    registerKey(m_mallory);
    auto mallory = makeTransport(m_mallory);
    auto bob = makeTransport(m_bob);
    QSignalSpy bobFailed(bob.get(), &PeerTransport::connectionFailed);
    // Bob expects Alice at this address, but Mallory (registered, honest key) answers.
    ASSERT_TRUE(bob->connectToPeer(endpoint(listen(*mallory)), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(bobFailed));
    EXPECT_TRUE(bobFailed.at(0).at(1).toString().contains(QStringLiteral("expected ") + m_alice.keyId()))
        << bobFailed.at(0).at(1).toString().toStdString();
}

TEST_F(PeerTransportTest, KeepsOneConnectionPerPeerAndTheSameOneAtBothEnds)
{
    auto alice = makeTransport(m_alice);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    const quint16 port = listen(*alice);
    // Same dialer (Bob), so the smaller dialer nonce decides: `first` wins whatever the order.
    RawPeer first(port, QByteArray(kHelloNonceBytes, '\x01'));
    RawPeer second(port, QByteArray(kHelloNonceBytes, '\x02'));
    RawPeer third(port, QByteArray(kHelloNonceBytes, '\x03'));
    const auto expectDropped = [](RawPeer &peer) {
        const std::optional<Frame> error = peer.readFrame();
        ASSERT_TRUE(error.has_value());
        EXPECT_EQ(error->header.type(), wire::FRAME_TYPE_ERROR);
        EXPECT_EQ(error->header.error_message(), "duplicate connection");
        EXPECT_TRUE(peer.waitForClose());
    };

    ASSERT_TRUE(second.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));
    ASSERT_TRUE(first.handshake(m_bob)); // replaces `second`
    expectDropped(second);
    ASSERT_TRUE(third.handshake(m_bob)); // loses to `first`
    expectDropped(third);

    const QByteArray payload = patternBytes(8, 9);
    ASSERT_TRUE(alice->send(m_bob.keyId(), tensorHeader(2), payload).ok());
    const std::optional<Frame> frame = first.readFrame();
    ASSERT_TRUE(frame.has_value());
    EXPECT_TRUE(frame->payload == payload);
    EXPECT_EQ(aliceConnected.count(), 1);
    EXPECT_TRUE(aliceDisconnected.isEmpty());
    EXPECT_EQ(alice->connectedPeers(), QStringList{m_bob.keyId()});
}

TEST_F(PeerTransportTest, TwoPeersDialingEachOtherEndUpConnectedOnce)
{
    auto alice = makeTransport(m_alice);
    auto bob = makeTransport(m_bob);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy bobConnected(bob.get(), &PeerTransport::peerConnected);
    QSignalSpy aliceDisconnected(alice.get(), &PeerTransport::peerDisconnected);
    QSignalSpy bobDisconnected(bob.get(), &PeerTransport::peerDisconnected);
    QSignalSpy aliceReceived(alice.get(), &PeerTransport::frameReceived);
    QSignalSpy bobReceived(bob.get(), &PeerTransport::frameReceived);
    const quint16 alicePort = listen(*alice);
    const quint16 bobPort = listen(*bob);
    ASSERT_TRUE(alice->connectToPeer(endpoint(bobPort), m_bob.keyId()).ok());
    ASSERT_TRUE(bob->connectToPeer(endpoint(alicePort), m_alice.keyId()).ok());
    ASSERT_TRUE(waitFor(aliceConnected));
    ASSERT_TRUE(waitFor(bobConnected));

    // Round trips let both duplicates settle; had the ends kept different connections, each
    // would see its connection closed by the other.
    for (int i = 1; i <= 3; ++i) {
        ASSERT_TRUE(alice->send(m_bob.keyId(), tensorHeader(1, i), patternBytes(4, i)).ok());
        ASSERT_TRUE(waitFor(bobReceived, i));
        ASSERT_TRUE(bob->send(m_alice.keyId(), tensorHeader(1, i), patternBytes(4, i)).ok());
        ASSERT_TRUE(waitFor(aliceReceived, i));
    }
    EXPECT_TRUE(aliceDisconnected.isEmpty());
    EXPECT_TRUE(bobDisconnected.isEmpty());
    EXPECT_EQ(aliceConnected.count(), 1);
    EXPECT_EQ(bobConnected.count(), 1);
}

TEST_F(PeerTransportTest, BoundsTheWriteBufferAndSaysWhenItDrains)
{
    PeerTransportOptions options;
    options.maxWriteBufferBytes = 1 << 20;
    auto alice = makeTransport(m_alice, options);
    QSignalSpy aliceConnected(alice.get(), &PeerTransport::peerConnected);
    QSignalSpy drained(alice.get(), &PeerTransport::writeBufferDrained);
    RawPeer bob(listen(*alice));
    ASSERT_TRUE(bob.handshake(m_bob));
    ASSERT_TRUE(waitFor(aliceConnected));

    // Without the event loop nothing leaves the socket's buffer, so the third frame must not fit.
    const QByteArray payload = patternBytes(400 << 10, 6);
    const FrameHeader header = tensorHeader(payload.size() / 4);
    ASSERT_TRUE(alice->send(m_bob.keyId(), header, payload).ok());
    ASSERT_TRUE(alice->send(m_bob.keyId(), header, payload).ok());
    const Result<void> third = alice->send(m_bob.keyId(), header, payload);
    ASSERT_FALSE(third.ok());
    EXPECT_NE(third.error().message.find("write buffer"), std::string::npos);
    EXPECT_LE(alice->pendingWriteBytes(m_bob.keyId()), options.maxWriteBufferBytes);

    ASSERT_TRUE(waitFor(drained));
    EXPECT_EQ(drained.at(0).at(0).toString(), m_bob.keyId());
    EXPECT_TRUE(alice->send(m_bob.keyId(), header, payload).ok());
    for (int i = 0; i < 3; ++i) {
        const std::optional<Frame> frame = bob.readFrame();
        ASSERT_TRUE(frame.has_value());
        EXPECT_TRUE(frame->payload == payload);
    }
}

TEST_F(PeerTransportTest, RejectsBadArguments)
{
    auto alice = makeTransport(m_alice);
    EXPECT_FALSE(alice->connectToPeer(QStringLiteral("nonsense"), m_bob.keyId()).ok());
    EXPECT_FALSE(alice->connectToPeer(QStringLiteral("127.0.0.1:0"), m_bob.keyId()).ok());
    EXPECT_FALSE(alice->connectToPeer(QStringLiteral("127.0.0.1:70000"), m_bob.keyId()).ok());
    EXPECT_FALSE(alice->connectToPeer(QStringLiteral("::1:5000"), m_bob.keyId()).ok());
    EXPECT_FALSE(alice->connectToPeer(QStringLiteral("127.0.0.1:5000"), QString()).ok());
    EXPECT_FALSE(alice->send(m_bob.keyId(), tensorHeader(1), patternBytes(4, 7)).ok());
}

TEST(PeerTransportHandshakeTest, TranscriptBindsEveryFieldAndProofsNameTheRole)
{
    const HandshakeTranscript base{QStringLiteral("a"), QStringLiteral("b"), QByteArray(kHelloNonceBytes, 'n'),
                                   QByteArray(kHelloNonceBytes, 'm'), QByteArray(32, 'x'), QByteArray(32, 'y')};
    const QByteArray digest = base.digest();
    EXPECT_EQ(digest, HandshakeTranscript(base).digest());
    const auto differs = [&](auto change) {
        HandshakeTranscript other = base;
        change(other);
        return other.digest() != digest;
    };
    EXPECT_TRUE(differs([](HandshakeTranscript &t) { std::swap(t.dialerKeyId, t.acceptorKeyId); }));
    EXPECT_TRUE(differs([](HandshakeTranscript &t) { std::swap(t.dialerNonce, t.acceptorNonce); }));
    EXPECT_TRUE(differs([](HandshakeTranscript &t) { t.acceptorEphemeralKey[0] = 'z'; }));
    EXPECT_TRUE(differs([](HandshakeTranscript &t) { t.dialerEphemeralKey[31] = 'z'; }));
    // Field boundaries count: moving a byte from one field to the next changes the digest.
    EXPECT_TRUE(differs([](HandshakeTranscript &t) {
        t.dialerKeyId = QStringLiteral("ab");
        t.acceptorKeyId.clear();
    }));
    EXPECT_NE(helloProofMessage(digest, true), helloProofMessage(digest, false));
    EXPECT_NE(makeHelloNonce(), makeHelloNonce());
    EXPECT_EQ(makeHelloNonce().size(), kHelloNonceBytes);
}

TEST(PeerTransportHandshakeTest, BothEndsDeriveTheSameKeysAndEachDirectionItsOwn)
{
    Result<EphemeralKeyPair> dialer = EphemeralKeyPair::generate();
    Result<EphemeralKeyPair> acceptor = EphemeralKeyPair::generate();
    ASSERT_TRUE(dialer.ok() && acceptor.ok());
    Result<QByteArray> dialerSecret = dialer->sharedSecret(acceptor->publicKey());
    Result<QByteArray> acceptorSecret = acceptor->sharedSecret(dialer->publicKey());
    ASSERT_TRUE(dialerSecret.ok() && acceptorSecret.ok());
    EXPECT_EQ(*dialerSecret, *acceptorSecret);

    const QByteArray digest(32, 'd');
    Result<SessionKeys> keys = deriveSessionKeys(*dialerSecret, digest);
    ASSERT_TRUE(keys.ok());
    EXPECT_EQ(keys->dialerToAcceptor.size(), SessionKeys::kKeyBytes);
    EXPECT_NE(keys->dialerToAcceptor, keys->acceptorToDialer);
    EXPECT_NE(keys->dialerToAcceptor, deriveSessionKeys(*dialerSecret, QByteArray(32, 'e'))->dialerToAcceptor);

    // A peer that sends a small-order point (here zero) would fix the secret: refused.
    EXPECT_FALSE(dialer->sharedSecret(QByteArray(32, '\0')).ok());
    EXPECT_FALSE(dialer->sharedSecret(QByteArray(31, 'k')).ok());
}

} // namespace
