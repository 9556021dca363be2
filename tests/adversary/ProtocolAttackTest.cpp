// Attackers that speak the control plane themselves against a real swarmtrain-coordinator
// process (issue 16): inflated credit claims, a join endpoint naming another host, a request
// replayed after a restart, an uploaded state whose config asks for hundreds of GiB, and many
// identities from one subnet. Each prints its line of the attack table.
#include "ChildProcess.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "HttpTransfer.h"
#include "Identity.h"
#include "ProcessMemory.h"
#include "RequestSignature.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TensorContainer.h"
#include "TestApplication.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QThread>

#include <csignal>
#include <gtest/gtest.h>
#include <iostream>

using namespace swarmtrain;

namespace {

constexpr long long kMiB = 1 << 20;

// One stranger with a fresh key, speaking the documented protocol through the client library.
struct Attacker {
    explicit Attacker(const QString &url, const QString &sourceAddress = QString())
        : identity(Identity::generate().value())
    {
        CoordinatorClientOptions options{url, {}, 1, 100, 1000};
        options.sourceAddress = sourceAddress;
        client = std::make_unique<CoordinatorClient>(identity, options);
    }

    Result<QJsonObject> join(const QString &endpoint = QString())
    {
        JoinRequest request{identity.publicKey(), {}, endpoint, QStringLiteral("0.1.0"), {}};
        return client->postJson(QStringLiteral("/v1/join"), request.toJson());
    }
    Result<QJsonObject> heartbeat(const QString &state, qint64 baseRound, qint64 steps = 0)
    {
        return client->postJson(QStringLiteral("/v1/heartbeat"),
                                HeartbeatRequest{state, baseRound, 0.0, {}, {}, steps}.toJson());
    }
    Result<QJsonObject> contribute(qint64 round, qint64 tokens, const QString &hash)
    {
        const ContributionRequest report{round, tokens, 1e3, 1.0, 2.0, hash, 0, 0};
        return client->postJson(QStringLiteral("/v1/contribution"), report.toJson());
    }
    static int status(const Result<QJsonObject> &answer)
    {
        return answer ? 200 : CoordinatorClient::httpStatus(answer.error());
    }

    Identity identity;
    std::unique_ptr<CoordinatorClient> client;
};

void printAttack(const std::string &attack, bool detected, const std::string &bannedAfter, long long rssGrowth)
{
    std::cout << "ATTACK " << attack << " detected=" << (detected ? "yes" : "no") << " banned_after=" << bannedAfter
              << " rss_growth_mib=" << double(rssGrowth) / double(kMiB) << " loss_delta=n/a (no training)" << std::endl;
}

class ProtocolAttackTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        test::application();
        dir.write("data.txt", test::generatedText(30000));
    }

    void startCoordinator(const std::vector<std::string> &extra = {})
    {
        std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
        args.insert(args.end(), {"--min-peers", "1", "--gather-timeout", "3600"});
        args.insert(args.end(), extra.begin(), extra.end());
        const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
        ASSERT_NE(port, 0) << coordinator.errors();
        url = QStringLiteral("http://127.0.0.1:%1").arg(port);
        rssAtStart = test::residentBytes(coordinator.pid());
    }

    bool coordinatorAnswers()
    {
        Attacker observer(url);
        return observer.client->getJson(QStringLiteral("/v1/status")).ok();
    }
    long long rssGrowth() const { return test::residentBytes(coordinator.pid()) - rssAtStart; }

    // The attacker alone makes round 0: ready on state 0, the round starts with it.
    void becomeTheOnlyMember(Attacker &attacker)
    {
        ASSERT_TRUE(attacker.join().ok());
        ASSERT_TRUE(attacker.heartbeat(QStringLiteral("ready"), 0).ok());
        ASSERT_TRUE(test::waitUntil(
            [&] {
                Result<QJsonObject> beat = attacker.heartbeat(QStringLiteral("ready"), 0);
                return beat && beat->value(QLatin1StringView("member")).toBool();
            },
            std::chrono::seconds(60)));
    }

    test::TempDir dir;
    test::ChildProcess coordinator;
    QString url;
    long long rssAtStart = 0;
};

TEST_F(ProtocolAttackTest, CreditInflationIsRefusedCountedAndBanned)
{
    startCoordinator({"--ban-after", "3"});
    Attacker attacker(url);
    becomeTheOnlyMember(attacker);
    int refused = 0;
    for (int attempt = 0; attempt < 3; ++attempt)
        refused += Attacker::status(attacker.contribute(0, 1'000'000'000'000, QString(64, QLatin1Char('a')))) == 400;
    EXPECT_EQ(refused, 3);
    const Result<QJsonObject> after = attacker.heartbeat(QStringLiteral("ready"), 0);
    EXPECT_EQ(Attacker::status(after), 403) << "banned after three refused claims";
    Result<QJsonObject> status = attacker.client->getJson(QStringLiteral("/v1/status"));
    ASSERT_TRUE(status.ok());
    for (const QJsonValue &leader : status->value(QLatin1StringView("leaderboard")).toArray())
        EXPECT_EQ(leader.toObject().value(QLatin1StringView("credit")).toDouble(), 0.0);
    EXPECT_LT(rssGrowth(), 64 * kMiB);
    printAttack("credit-inflation", refused == 3, "3 claims", rssGrowth());
}

// Time-budgeted rounds (issue 18) weigh and credit a member by its inner steps, so a stranger
// claims many: past the cap its heartbeat is refused; below the cap but beyond what its device
// measured (it reported none), the round does not take it. Ready with the steps H allows, it is
// credited with those steps' tokens, whatever its report then claims.
TEST_F(ProtocolAttackTest, InflatedInnerStepsAreRefusedOrLeftOutAndNeverCredited)
{
    // H 20, cap 80; a budget of 2 s, so no speed needs measuring.
    startCoordinator({"--rounds", "budget", "--round-seconds", "2", "--max-inner-steps", "80"});
    Attacker attacker(url);
    ASSERT_TRUE(attacker.join().ok());
    const Result<QJsonObject> pastCap = attacker.heartbeat(QStringLiteral("ready"), 0, 81);
    EXPECT_EQ(Attacker::status(pastCap), 400);
    EXPECT_NE(QString::fromStdString(pastCap ? std::string() : pastCap.error().message).indexOf(QStringLiteral("at most 80")), -1);
    // 80 steps: under the cap, but no measured speed explains more than H. The budget and its
    // grace pass (4 s on the coordinator's clock) and the round still has not taken it.
    const auto started = std::chrono::steady_clock::now();
    bool member = false;
    while (std::chrono::steady_clock::now() - started < std::chrono::seconds(6)) {
        const Result<QJsonObject> beat = attacker.heartbeat(QStringLiteral("ready"), 0, 80);
        ASSERT_TRUE(beat.ok()) << beat.error().message;
        member = member || beat->value(QLatin1StringView("member")).toBool();
        QThread::msleep(200);
    }
    EXPECT_FALSE(member) << "taken into a round with steps its speed cannot explain";
    ASSERT_TRUE(test::waitUntil(
        [&] {
            Result<QJsonObject> beat = attacker.heartbeat(QStringLiteral("ready"), 0, 20);
            return beat && beat->value(QLatin1StringView("member")).toBool();
        },
        std::chrono::seconds(60)));
    // Its report claims the cap's tokens (80 steps of 8 x 32); it is credited the 20 admitted.
    Result<QJsonObject> reported = attacker.contribute(0, 80 * 256, QString(64, QLatin1Char('a')));
    ASSERT_TRUE(reported.ok()) << reported.error().message;
    const Result<ContributionAnswer> verdict = ContributionAnswer::fromJson(*reported);
    ASSERT_TRUE(verdict.ok());
    EXPECT_EQ(verdict->accepted, std::optional<bool>(true));
    EXPECT_DOUBLE_EQ(verdict->credit, 20 * 256 * 0.001);
    printAttack("inflated-inner-steps", !pastCap.ok() && !member, "-", rssGrowth());
}

TEST_F(ProtocolAttackTest, AJoinEndpointNamingAnotherHostIsNeverDialled)
{
    startCoordinator();
    QTcpServer victim;
    ASSERT_TRUE(victim.listen(QHostAddress(QStringLiteral("127.0.0.2")), 0));
    Attacker attacker(url);
    const Result<QJsonObject> scan = attacker.join(QStringLiteral("127.0.0.2:%1").arg(victim.serverPort()));
    EXPECT_EQ(Attacker::status(scan), 400);
    // The join is answered only after its probe: a probe would be in the victim's queue by now.
    QCoreApplication::processEvents();
    EXPECT_FALSE(victim.hasPendingConnections()) << "the coordinator dialled a third party";
    EXPECT_TRUE(coordinatorAnswers());
    printAttack("join-endpoint-another-host", !scan.ok() && !victim.hasPendingConnections(), "-", rssGrowth());
}

TEST_F(ProtocolAttackTest, ARequestReplayedAfterARestartIsRefused)
{
    startCoordinator();
    Attacker victim(url);
    ASSERT_TRUE(victim.join().ok());
    // What an eavesdropper kept: the victim's signed "left" heartbeat, sent once.
    const QByteArray body = QJsonDocument(HeartbeatRequest{QStringLiteral("left"), 0, 0.0, {}, {}}.toJson()).toJson(QJsonDocument::Compact);
    RequestSigner signer(victim.identity);
    const RequestSignature signature = signer.sign("POST", "/v1/heartbeat", body, QDateTime::currentMSecsSinceEpoch());
    auto replay = [&] {
        HttpRequest request;
        request.method = "POST";
        request.url = url.toLatin1() + "/v1/heartbeat";
        request.body = body;
        request.headers = {QByteArray(kKeyIdHeader) + ": " + signature.keyId.toLatin1(),
                           QByteArray(kTimestampHeader) + ": " + QByteArray::number(signature.timestampMs),
                           QByteArray(kSignatureHeader) + ": " + signature.signature.toBase64(),
                           "Content-Type: application/json"};
        HttpHooks hooks;
        return performHttpRequest(request, hooks).status;
    };
    ASSERT_EQ(replay(), 200);
    EXPECT_EQ(replay(), 401) << "a replay to the same process";
    ASSERT_GE(coordinator.kill(SIGTERM), 0);
    startCoordinator();
    victim.client = std::make_unique<CoordinatorClient>(victim.identity, CoordinatorClientOptions{url, {}, 5, 100, 1000});
    const int afterRestart = replay();
    EXPECT_NE(afterRestart, 200) << "the replay cache must not be lost with the process";
    EXPECT_EQ(afterRestart, 503) << "signed before the coordinator started: the honest sender signs again";
    EXPECT_TRUE(victim.heartbeat(QStringLiteral("idle"), 0).ok()) << "the victim itself carries on";
    printAttack("replay-after-restart", afterRestart != 200, "-", rssGrowth());
}

// A state file in the checkpoint format whose model config asks for `nLayer` blocks of `nEmbd`.
QByteArray absurdState(int nLayer, int nEmbd)
{
    TensorContainerWriter writer;
    writer.setMetadata("format", "swarmtrain-checkpoint-1");
    writer.setMetadata("model_config", ModelConfig{ModelFamily::Gpt, 256, nLayer, 1, nEmbd, 32, 0.0, false}.toJson());
    writer.setMetadata("tokenizer", "byte");
    writer.setMetadata("round", "1");
    const std::vector<std::byte> bytes = writer.finish();
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

TEST_F(ProtocolAttackTest, AnUploadedStateWithAnAbsurdConfigIsRefusedBeforeAnyAllocation)
{
    startCoordinator();
    Attacker attacker(url);
    becomeTheOnlyMember(attacker);
    // Alone, its report is the majority: it is accepted and asked for state 1.
    Result<QJsonObject> verdict = attacker.contribute(0, 100, QString(64, QLatin1Char('a')));
    ASSERT_TRUE(verdict.ok()) << verdict.error().message;
    ASSERT_TRUE(verdict->value(QLatin1StringView("upload_checkpoint")).toBool());
    // Its round's averages first (none: its range counts as skipped), or no state is looked at.
    const Result<QJsonObject> averages = attacker.client->postBytes(QStringLiteral("/v1/round/averages?round=0"), {});
    ASSERT_TRUE(averages.ok()) << averages.error().message;
    // 2^41 parameters (beyond any bound), then 2^35 (within the engine's bound, 128 GiB, not the swarm's).
    const Result<QJsonObject> huge = attacker.client->postBytes(QStringLiteral("/v1/checkpoint?round=1"), absurdState(4, 65536));
    const Result<QJsonObject> large = attacker.client->postBytes(QStringLiteral("/v1/checkpoint?round=1"), absurdState(32, 8192));
    EXPECT_EQ(Attacker::status(huge), 400) << (huge ? "" : huge.error().message);
    EXPECT_EQ(Attacker::status(large), 400) << (large ? "" : large.error().message);
    EXPECT_TRUE(coordinatorAnswers()) << coordinator.errors();
    EXPECT_FALSE(coordinator.exited()) << coordinator.errors();
    EXPECT_LT(rssGrowth(), 64 * kMiB);
    printAttack("upload-absurd-config", !huge.ok() && !large.ok() && !coordinator.exited(), "-", rssGrowth());
}

TEST_F(ProtocolAttackTest, IdentitiesFromOneSubnetAreLimited)
{
    // Three honest peers on 127.0.0.1, then a Sybil group of five identities on 127.0.0.2-6:
    // one /24, so at most six of the eight are online at once.
    // Heartbeats a minute apart: every identity stays online however slowly the test runs.
    startCoordinator({"--max-peers-per-subnet", "6", "--max-peers-per-address", "3", "--heartbeat-interval", "60"});
    std::vector<std::unique_ptr<Attacker>> honest;
    for (int i = 0; i < 3; ++i) {
        honest.push_back(std::make_unique<Attacker>(url, QStringLiteral("127.0.0.1")));
        ASSERT_TRUE(honest.back()->join().ok());
    }
    Attacker fourth(url, QStringLiteral("127.0.0.1"));
    EXPECT_EQ(Attacker::status(fourth.join()), 429) << "a fourth identity from one address";
    int admitted = 0;
    for (int i = 2; i <= 6; ++i) {
        Attacker sybil(url, QStringLiteral("127.0.0.%1").arg(i));
        admitted += sybil.join().ok() ? 1 : 0;
    }
    EXPECT_EQ(admitted, 3) << "the subnet holds six identities online";
    EXPECT_LT(rssGrowth(), 64 * kMiB);
    printAttack("sybil-one-subnet", admitted == 3, "- (2 of 5 refused)", rssGrowth());
}

} // namespace

namespace {

TEST_F(ProtocolAttackTest, AnInviteOnlySwarmAdmitsItsLinkAndNoStranger)
{
    startCoordinator({"--admission", "invite"});
    std::smatch match;
    std::string out;
    const std::regex inviteLine("invite (swarmtrain://\\S+)");
    ASSERT_TRUE(test::waitUntil([&] { return std::regex_search(out = coordinator.output(), match, inviteLine); },
                                std::chrono::seconds(60)))
        << out;
    const std::string link = match[1].str();
    ASSERT_NE(link.find("token="), std::string::npos) << link;

    Attacker stranger(url);
    const int refused = Attacker::status(stranger.join());
    EXPECT_EQ(refused, 403);
    test::ChildProcess friendClient;
    ASSERT_TRUE(friendClient.start(SWARMTRAIN_CLIENT,
                                   {"--headless", "--swarm", link, "--state-dir", (dir.path() / "friend").string(),
                                    "--listen", "none", "--threads", "1"},
                                   dir.path() / "friend.out", dir.path() / "friend.err"));
    Attacker observer(url);
    const bool joined = test::waitUntil(
        [&] {
            Result<QJsonObject> status = observer.client->getJson(QStringLiteral("/v1/status"));
            return status && status->value(QLatin1StringView("peers_total")).toInt() == 1;
        },
        std::chrono::seconds(120));
    EXPECT_TRUE(joined) << friendClient.errors();
    EXPECT_EQ(friendClient.kill(SIGINT), 0) << "Ctrl-C ends the client cleanly";
    printAttack("join-invite-only-without-token", refused == 403 && joined, "-", rssGrowth());
}

} // namespace
