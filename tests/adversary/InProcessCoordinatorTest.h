#pragma once

// The fixture of the in-process attacks on the coordinator (VerificationAttackTest,
// OwnerDisputeTest): a real CoordinatorServer on loopback with its SQLite store in a temp dir,
// a clock the test moves, and peers that sign their own requests and play a round by hand.
#include "ControlMessages.h"
#include "CoordinatorFixture.h"
#include "CoordinatorServer.h"
#include "CoordinatorSetup.h"
#include "Identity.h"
#include "Quantization.h"
#include "RequestSignature.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "VerificationMessages.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QTimer>

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>

namespace swarmtrain::test {

struct HttpAnswer {
    int status = 0;
    QByteArray body;

    QString error() const
    {
        return QJsonDocument::fromJson(body).object().value(QLatin1StringView("error")).toString();
    }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

struct Peer {
    Identity identity = Identity::generate().value();
    std::unique_ptr<RequestSigner> signer;
    std::unique_ptr<QTcpServer> listener; // set: it accepts connections, so it can own a range

    QString keyId() const { return identity.keyId(); }
};

// What a member sends in a round: the pieces for each owner's range, in range order, and its
// commitment to them.
struct Update {
    CommitRequest commitment;
    QByteArray bytes;
};

class InProcessCoordinatorTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        config = smallCoordinatorConfig(dir);
        Result<CoordinatorSetup> prepared = CoordinatorSetup::prepare(config);
        ASSERT_TRUE(prepared.ok()) << prepared.error().message;
        setup = std::make_unique<CoordinatorSetup>(std::move(prepared).value());
        options = CoordinatorServerOptions::from(config, setup->parameterCount);
        options.tickMs = 0;
        options.rounds.gatherTimeoutMs = 3'600'000;
        options.ratePerAddress = {1000, 10'000};
        options.ratePerKey = {1000, 10'000};
        options.trust.maxPeersPerAddress = 0;
        options.trust.maxPeersPerSubnet = 0;
        // No draws unless a test asks for them.
        options.trust.spotCheckRate = 0.0;
        options.trust.spotCheckRateNew = 0.0;
    }

    void TearDown() override
    {
        if (server)
            server->waitForBackgroundWork();
        QCoreApplication::processEvents();
    }

    // With the test's `options`.
    void startServer()
    {
        server = std::make_unique<CoordinatorServer>(*setup, options, [this]() { return now; });
        Result<quint16> port = server->start(QHostAddress(QHostAddress::LocalHost), 0, std::nullopt);
        ASSERT_TRUE(port.ok()) << port.error().message;
        base = QStringLiteral("http://127.0.0.1:%1").arg(*port);
    }

    HttpAnswer send(const QByteArray &method, const QByteArray &target, const QByteArray &body, Peer &peer)
    {
        QNetworkRequest request(QUrl(base + QString::fromLatin1(target)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        if (!peer.signer)
            peer.signer = std::make_unique<RequestSigner>(peer.identity);
        const RequestSignature signature = peer.signer->sign(method, target, body, now);
        request.setRawHeader(kKeyIdHeader, signature.keyId.toLatin1());
        request.setRawHeader(kTimestampHeader, QByteArray::number(signature.timestampMs));
        request.setRawHeader(kSignatureHeader, signature.signature.toBase64());
        QNetworkReply *reply = method == "GET" ? network.get(request) : network.post(request, body);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(60'000, &loop, &QEventLoop::quit);
        loop.exec();
        EXPECT_TRUE(reply->isFinished()) << "no answer to " << target.constData();
        HttpAnswer answer{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
        reply->deleteLater();
        return answer;
    }

    HttpAnswer post(Peer &peer, const QByteArray &target, const QJsonObject &body)
    {
        return send("POST", target, QJsonDocument(body).toJson(QJsonDocument::Compact), peer);
    }

    Peer &newPeer(bool reachable)
    {
        Peer &peer = peers.emplace_back();
        if (reachable) {
            peer.listener = std::make_unique<QTcpServer>();
            EXPECT_TRUE(peer.listener->listen(QHostAddress::LocalHost, 0));
        }
        return peer;
    }

    void join(Peer &peer)
    {
        const QString endpoint =
            peer.listener ? QStringLiteral("127.0.0.1:%1").arg(peer.listener->serverPort()) : QString();
        const HttpAnswer answer =
            post(peer, "/v1/join",
                 QJsonObject{{QStringLiteral("public_key"), QString::fromLatin1(peer.identity.publicKey().toBase64())},
                             {QStringLiteral("device"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("test")}}},
                             {QStringLiteral("endpoint"), endpoint},
                             {QStringLiteral("client_version"), QStringLiteral("0.1.0")},
                             {QStringLiteral("invite"), QString()}});
        ASSERT_EQ(answer.status, 200) << answer.body.constData();
    }

    HttpAnswer heartbeat(Peer &peer, const QString &state, qint64 baseRound)
    {
        HeartbeatRequest request;
        request.state = state;
        request.baseRound = baseRound;
        request.tokensPerSecond = 1500.0;
        return post(peer, "/v1/heartbeat", request.toJson());
    }

    HeartbeatAnswer tasks(Peer &peer)
    {
        const HttpAnswer answer = heartbeat(peer, QStringLiteral("idle"), currentRound().number);
        EXPECT_EQ(answer.status, 200) << answer.body.constData();
        return HeartbeatAnswer::fromJson(answer.json()).value();
    }

    // The coordinator holds state `round`, as if its uploader had sent it (a round starts only
    // from a state the coordinator holds).
    void holdState(qint64 round)
    {
        if (setup->store->checkpoint(round)->has_value())
            return;
        const CheckpointRecord held{round, QStringLiteral("round-%1.safetensors").arg(round), QString(64, QLatin1Char('c')), 1,
                                    QString(64, QLatin1Char('a')), std::nullopt};
        ASSERT_TRUE(setup->store->addCheckpoint(held).ok());
    }

    // Every peer in `members` ready on state `round`, which then runs with them.
    void startRound(const std::vector<Peer *> &members, qint64 round)
    {
        ASSERT_NO_FATAL_FAILURE(holdState(round));
        for (Peer *peer : members)
            ASSERT_EQ(heartbeat(*peer, QStringLiteral("ready"), round).status, 200);
        const RoundRecord running = currentRound();
        ASSERT_EQ(running.number, round);
        ASSERT_EQ(running.state, RoundState::Running);
        ASSERT_EQ(running.members.size(), members.size());
    }

    // An honest member's result of `round`, the same for every member.
    static ContributionRequest contribution(qint64 round, qint64 tokens = 1000)
    {
        ContributionRequest request;
        request.round = round;
        request.tokens = tokens;
        request.flops = 1e6;
        request.seconds = 10.0;
        request.loss = 2.5;
        request.paramsHash = QString(64, QLatin1Char('a'));
        request.bytesUp = 1000;
        request.bytesDown = 1000;
        return request;
    }

    HttpAnswer contribute(Peer &peer, const ContributionRequest &request)
    {
        return post(peer, "/v1/contribution", request.toJson());
    }

    HttpAnswer contribute(Peer &peer, qint64 round, qint64 tokens = 1000)
    {
        return contribute(peer, contribution(round, tokens));
    }

    // Every member reports the same result, so the round closes with each one accepted.
    void finishRound(const std::vector<Peer *> &members, qint64 round)
    {
        for (Peer *peer : members)
            ASSERT_EQ(contribute(*peer, round).status, 200);
        ASSERT_EQ(currentRound().number, round + 1);
        for (Peer *peer : members)
            ASSERT_TRUE(setup->store->lastContribution(peer->keyId())->value().accepted.value_or(false));
    }

    // Pieces for the running round's owners, each the size its range encodes to, unlike any before.
    Update makeUpdate()
    {
        const RoundRecord round = currentRound();
        std::vector<RoundMember> owners;
        std::copy_if(round.members.begin(), round.members.end(), std::back_inserter(owners),
                     [](const RoundMember &m) { return m.end > m.begin; });
        std::sort(owners.begin(), owners.end(),
                  [](const RoundMember &x, const RoundMember &y) { return x.begin < y.begin; });
        Update update;
        update.commitment.round = round.number;
        for (const RoundMember &owner : owners) {
            const auto size = qsizetype(encodedQuantizedSize(std::size_t(owner.end - owner.begin)));
            const QByteArray piece(size, char(++fills));
            const QByteArray sha256 = QCryptographicHash::hash(piece, QCryptographicHash::Sha256).toHex();
            update.commitment.pieces.push_back({owner.keyId, QString::fromLatin1(sha256)});
            update.bytes += piece;
        }
        return update;
    }

    HttpAnswer commit(Peer &peer, const CommitRequest &request)
    {
        return post(peer, "/v1/round/commit", request.toJson());
    }

    RoundRecord currentRound() { return setup->store->currentRound()->value(); }
    PeerRecord record(const Peer &peer) { return setup->store->peer(peer.keyId())->value(); }
    Peer *byKey(const QString &keyId)
    {
        const auto found = std::find_if(peers.begin(), peers.end(), [&](const Peer &p) { return p.keyId() == keyId; });
        return found == peers.end() ? nullptr : &*found;
    }

    double roundCredit() const
    {
        const RoundSettings &settings = server->rounds().settings();
        return double(settings.work.tokensPerMember) * settings.creditPerToken;
    }

    QCoreApplication &app = application(); // before any Qt object
    TempDir dir;
    CoordinatorConfig config;
    CoordinatorServerOptions options;
    std::unique_ptr<CoordinatorSetup> setup;
    std::unique_ptr<CoordinatorServer> server;
    QNetworkAccessManager network;
    QString base;
    qint64 now = QDateTime::currentMSecsSinceEpoch();
    int fills = 0;
    std::deque<Peer> peers; // stable addresses
};

} // namespace swarmtrain::test
