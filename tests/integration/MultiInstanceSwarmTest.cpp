// Several coordinator instances, one swarm (issue 20): a real PostgreSQL 15 server, two
// swarmtrain-coordinator processes on it sharing one state dir, the shipped HAProxy configuration
// in front, and three headless clients that only know HAProxy's address. The leader instance is
// killed with SIGKILL mid-round, then PostgreSQL is restarted; the swarm must carry on through
// both, learn, agree after every round and lose no completed round. (The same scenario on SQLite
// with one instance is SwarmProcessTest.)
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "FreePort.h"
#include "HaproxyProcess.h"
#include "Identity.h"
#include "PostgresSchema.h"
#include "SqlCoordinatorStore.h"
#include "StoredRounds.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TemporaryPostgres.h"
#include "TestApplication.h"

#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <regex>
#include <set>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

constexpr int kClients = 3;
constexpr int kInstances = 2;

class MultiInstanceSwarmTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (const std::string &why : {test::TemporaryPostgres::unavailableReason(), test::HaproxyProcess::unavailableReason()}) {
            if (!why.empty())
                GTEST_SKIP() << why;
        }
        test::application();
        dir.write("data.txt", test::generatedText(120'000));
        postgres = std::make_unique<test::TemporaryPostgres>(dir.path() / "postgres");
        ASSERT_TRUE(postgres->start()) << postgres->error();
    }

    // Instance `i` on the shared state dir and database, on `port` (0: a free one).
    void startInstance(int i, int port = 0)
    {
        instances[i] = std::make_unique<ChildProcess>();
        std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "state", dir.path() / "data.txt", port);
        args.insert(args.end(), {"--store", postgres->url(), "--min-peers", "3", "--trusted-proxy", "127.0.0.1"});
        const std::filesystem::path logs = dir.path() / ("instance" + std::to_string(i));
        std::filesystem::create_directories(logs);
        instancePorts[i] = test::startCoordinatorProcess(*instances[i], SWARMTRAIN_COORDINATOR, args, logs);
        ASSERT_NE(instancePorts[i], 0) << instances[i]->errors();
    }

    QJsonObject get(const QString &base, const QString &path) const
    {
        CoordinatorClient client(watcher, CoordinatorClientOptions{base, {}, 5, 100, 1000});
        Result<QJsonObject> answer = client.getJson(path);
        return answer ? *answer : QJsonObject();
    }
    QJsonObject swarmStatus() const { return get(url, QStringLiteral("/v1/status")); }
    qint64 currentRound() const { return qint64(swarmStatus().value(QLatin1StringView("round")).toDouble(-1)); }
    bool waitForRound(qint64 round, std::chrono::milliseconds timeout) const
    {
        return waitUntil([&] { return currentRound() >= round; }, timeout);
    }
    QString roleOf(int i) const
    {
        return get(QStringLiteral("http://127.0.0.1:%1").arg(instancePorts[i]), QStringLiteral("/v1/health"))
            .value(QLatin1StringView("role"))
            .toString();
    }

    // "round R done: ... params HASH" lines client `i` printed: round -> hash.
    std::map<qint64, std::string> hashesOf(int i) const
    {
        static const std::regex line("round (\\d+) done: \\d+ members, loss [0-9.]+, .* params ([0-9a-f]{64})");
        std::map<qint64, std::string> rounds;
        const std::string out = clients[i]->output();
        for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
            rounds[std::stoll((*it)[1].str())] = (*it)[2].str();
        return rounds;
    }

    std::string logs() const
    {
        std::string all = "haproxy:\n" + haproxy.output();
        for (int i = 0; i < kInstances; ++i)
            all += "instance " + std::to_string(i) + ":\n" + (instances[i] ? instances[i]->errors() : std::string());
        for (int i = 0; i < kClients; ++i)
            all += "client " + std::to_string(i) + ":\n" + clients[i]->output() + clients[i]->errors();
        return all + "postgres:\n" + postgres->log();
    }

    test::TempDir dir;
    std::unique_ptr<test::TemporaryPostgres> postgres;
    std::unique_ptr<ChildProcess> instances[kInstances];
    int instancePorts[kInstances] = {};
    test::HaproxyProcess haproxy;
    std::unique_ptr<ChildProcess> clients[kClients];
    Identity watcher = Identity::generate().value();
    QString url;
};

} // namespace

TEST_F(MultiInstanceSwarmTest, ThreeClientsTrainThroughHaproxyAcrossALeaderKillAndADatabaseRestart)
{
    // The schema made ahead, as before an upgrade; then the first instance makes the swarm's state
    // and the second finds it in the database.
    ChildProcess migrate;
    ASSERT_TRUE(migrate.start(SWARMTRAIN_COORDINATOR,
                              {"--state-dir", (dir.path() / "state").string(), "--store", postgres->url(), "--migrate-only"},
                              dir.path() / "migrate.out", dir.path() / "migrate.err"));
    ASSERT_EQ(migrate.waitForExit(60s), 0) << migrate.errors();
    EXPECT_EQ(migrate.output(), "schema version " + std::to_string(kPostgresSchemaVersion) + "\n");
    ASSERT_NO_FATAL_FAILURE(startInstance(0));
    ASSERT_NO_FATAL_FAILURE(startInstance(1));
    const int front = test::freePort();
    ASSERT_TRUE(haproxy.start(SWARMTRAIN_HAPROXY_CONFIG, front, {instancePorts[0], instancePorts[1]}, dir.path()))
        << haproxy.output();
    url = QStringLiteral("http://127.0.0.1:%1").arg(front);
    ASSERT_TRUE(waitUntil([&] { return std::set<QString>{roleOf(0), roleOf(1)} == std::set<QString>{QStringLiteral("leader"), QStringLiteral("follower")}; }, 30s))
        << "one leader, one follower\n" << logs();
    for (int i = 0; i < kClients; ++i) {
        clients[i] = std::make_unique<ChildProcess>();
        ASSERT_TRUE(test::startHeadlessPeer(*clients[i], SWARMTRAIN_CLIENT, url, dir.path(), "client" + std::to_string(i),
                                            {"--listen", "127.0.0.1:0"}));
    }
    ASSERT_TRUE(waitForRound(4, 240s)) << logs();

    // SIGKILL the leader while a round runs: the other takes over the timed work.
    const int leader = roleOf(0) == QLatin1StringView("leader") ? 0 : 1;
    ASSERT_TRUE(waitUntil([&] { return swarmStatus().value(QLatin1StringView("round_state")).toString() == QLatin1StringView("running"); }, 60s));
    const qint64 killedIn = currentRound();
    instances[leader]->kill(SIGKILL);
    std::cout << "killed the leader, instance " << leader << ", in round " << killedIn << std::endl;
    ASSERT_TRUE(waitUntil([&] { return roleOf(1 - leader) == QLatin1StringView("leader"); }, 30s)) << logs();
    ASSERT_TRUE(waitForRound(killedIn + 3, 240s)) << logs();

    // Restart PostgreSQL mid-run: the instance connects again and the clients carry on.
    const qint64 restartedIn = currentRound();
    ASSERT_TRUE(postgres->restart()) << postgres->error();
    std::cout << "restarted PostgreSQL in round " << restartedIn << std::endl;
    ASSERT_TRUE(waitForRound(restartedIn + 3, 240s)) << logs();
    const qint64 last = currentRound();

    // Learned: the coordinator's validation loss fell.
    const QJsonArray history = swarmStatus().value(QLatin1StringView("val_loss_history")).toArray();
    ASSERT_GE(history.size(), 4) << logs();
    const double firstLoss = history.first().toObject().value(QLatin1StringView("val_loss")).toDouble();
    const double lastLoss = history.last().toObject().value(QLatin1StringView("val_loss")).toDouble();
    std::cout << "validation loss " << firstLoss << " -> " << lastLoss << " over " << history.size() << " states" << std::endl;
    EXPECT_LT(lastLoss, firstLoss - 0.3) << logs();

    // Agreed: every round two clients both finished, they finished with the same parameters.
    std::map<qint64, std::set<std::string>> hashes;
    for (int i = 0; i < kClients; ++i) {
        for (const auto &[round, hash] : hashesOf(i))
            hashes[round].insert(hash);
    }
    ASSERT_GE(hashes.size(), std::size_t(last - 1)) << logs();
    for (const auto &[round, set] : hashes)
        EXPECT_EQ(set.size(), 1u) << "round " << round << " ended with " << set.size() << " different parameters";

    // No completed round is missing: every round before the current one is done, with its agreed hash.
    for (int i = 0; i < kClients; ++i)
        ASSERT_EQ(clients[i]->kill(SIGTERM), 0) << logs();
    auto store = SqlCoordinatorStore::openPostgres(QString::fromStdString(postgres->url()));
    ASSERT_TRUE(store.ok()) << store.error().message;
    std::map<qint64, std::string> agreed;
    for (const auto &[round, set] : hashes)
        agreed[round] = *set.begin();
    test::expectEveryRoundDone(**store, last, agreed);
}
