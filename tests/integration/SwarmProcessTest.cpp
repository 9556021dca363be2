// A real swarm on loopback: swarmtrain-coordinator and three `swarmtrain --headless` clients,
// each its own process. Checks that the swarm learns, that every member ends each round with
// the same parameters, and that it survives a client or the coordinator being killed.
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SqlCoordinatorStore.h"
#include "StatsStore.h"
#include "StoredRounds.h"
#include "SwarmHarness.h"
#include "SwarmState.h"
#include "Tokenizer.h"
#include "TempDir.h"
#include "TestApplication.h"
#include "WorkController.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <set>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

struct RoundLine {
    int members = 0;
    double loss = 0.0;
    std::string hash;
    qint64 steps = 0;         // a time-budgeted round: the steps the client fitted in
    double utilisation = 0.0; // and its compute time over the round's
};

// A worker in this process (a WorkController, as the desktop client runs it), its finished
// rounds and its last status.
struct WatchedWorker {
    explicit WatchedWorker(const WorkerOptions &options)
        : controller(options)
        , rounds(&controller, &WorkController::roundFinished)
    {
        QObject::connect(&controller, &WorkController::statusChanged, &controller,
                         [this](const WorkStatus &status) { last = status; });
    }

    WorkController controller;
    QSignalSpy rounds;
    WorkStatus last;
};

class SwarmProcessTest : public ::testing::Test {
protected:
    static constexpr int kClients = 3;

    void SetUp() override
    {
        test::application();
        dir.write("data.txt", test::generatedText(120'000));
        for (auto &client : clients)
            client = std::make_unique<ChildProcess>();
    }

    void startCoordinator(int port = 0, const std::vector<std::string> &extra = {})
    {
        coordinator = std::make_unique<ChildProcess>();
        std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt", port);
        args.insert(args.end(), extra.begin(), extra.end());
        coordinatorPort = test::startCoordinatorProcess(*coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
        ASSERT_NE(coordinatorPort, 0) << coordinator->errors();
        url = QStringLiteral("http://127.0.0.1:%1").arg(coordinatorPort);
        status = std::make_unique<CoordinatorClient>(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    }

    // `listen` "none": the client accepts no connections (behind NAT) and owns no range.
    void startClient(int i, const std::string &listen = "127.0.0.1:0", const std::vector<std::string> &extra = {})
    {
        std::vector<std::string> args = {"--headless", "--swarm", url.toStdString(), "--state-dir",
                                         clientDir(i).string(), "--listen", listen, "--threads", "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        ASSERT_TRUE(clients[i]->start(SWARMTRAIN_CLIENT, args, dir.path() / ("client" + std::to_string(i) + ".out"),
                                      dir.path() / ("client" + std::to_string(i) + ".err")));
    }

    // A worker in this process (a WorkController, as the desktop client runs it).
    WorkerOptions inProcessWorker(const std::string &name) const
    {
        WorkerOptions options;
        options.swarmUrl = url;
        options.stateDir = dir.path() / name;
        options.device = "cpu";
        options.listenAddress = QStringLiteral("127.0.0.1");
        options.threads = 1;
        return options;
    }

    std::filesystem::path clientDir(int i) const { return dir.path() / ("client" + std::to_string(i)); }

    QJsonObject swarmStatus() const
    {
        Result<QJsonObject> answer = status->getJson(QStringLiteral("/v1/status"));
        return answer ? *answer : QJsonObject();
    }

    qint64 currentRound() const { return qint64(swarmStatus().value(QLatin1StringView("round")).toDouble(-1)); }

    bool waitForRound(qint64 round, std::chrono::milliseconds timeout) const
    {
        return waitUntil([&] { return currentRound() >= round; }, timeout);
    }

    // "round R done: ..." lines a client printed, by round.
    std::map<qint64, RoundLine> roundsOf(int i) const
    {
        static const std::regex line("round (\\d+) done: (\\d+) members, loss ([0-9.]+), .* params ([0-9a-f]{64})"
                                     "(.*(, (\\d+) steps( in a budget of [0-9.]+ s)?, utilisation (\\d+)%))?");
        std::map<qint64, RoundLine> rounds;
        const std::string out = clients[i]->output();
        for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it) {
            const std::smatch &m = *it;
            RoundLine round{std::stoi(m[2].str()), std::stod(m[3].str()), m[4].str()};
            if (m[6].matched) {
                round.steps = std::stoll(m[7].str());
                round.utilisation = std::stod(m[9].str()) / 100.0;
            }
            rounds[std::stoll(m[1].str())] = round;
        }
        return rounds;
    }

    // Every round in [firstRound, lastRound] that any two clients both finished, they finished
    // with the same parameters.
    void expectHashesAgree(qint64 firstRound = 0, qint64 lastRound = std::numeric_limits<qint64>::max()) const
    {
        std::map<qint64, std::set<std::string>> hashes;
        for (int i = 0; i < kClients; ++i) {
            for (const auto &[round, line] : roundsOf(i)) {
                if (round >= firstRound && round <= lastRound)
                    hashes[round].insert(line.hash);
            }
        }
        ASSERT_FALSE(hashes.empty());
        bool agreed = true;
        for (const auto &[round, set] : hashes) {
            EXPECT_EQ(set.size(), 1u) << "round " << round << " ended with " << set.size() << " different parameters";
            agreed = agreed && set.size() == 1;
        }
        EXPECT_TRUE(agreed) << logs();
    }

    std::string logs() const { return test::swarmLogs(*coordinator, clients); }

    test::TempDir dir;
    Identity watcher = Identity::generate().value();
    std::unique_ptr<ChildProcess> coordinator;
    std::unique_ptr<ChildProcess> clients[kClients];
    std::unique_ptr<CoordinatorClient> status;
    QString url;
    int coordinatorPort = 0;
};

} // namespace

TEST_F(SwarmProcessTest, ThreeClientsLearnTogetherAndAgreeAfterEveryRound)
{
    // Rounds wait for all three: on a busy machine one client could otherwise run many rounds
    // alone before the others have started (each measures its device first).
    startCoordinator(0, {"--min-peers", "3"});
    startClient(0);
    startClient(1);
    startClient(2, "none"); // outbound only
    ASSERT_TRUE(waitForRound(8, 180s)) << logs();

    // Validation loss of the global state after each round, computed by the coordinator.
    ASSERT_TRUE(waitUntil([&] { return swarmStatus().value(QLatin1StringView("val_loss_history")).toArray().size() >= 8; }, 60s));
    const QJsonArray history = swarmStatus().value(QLatin1StringView("val_loss_history")).toArray();
    std::vector<double> losses;
    for (const QJsonValue &entry : history)
        losses.push_back(entry.toObject().value(QLatin1StringView("val_loss")).toDouble());
    std::cout << "validation loss by round:";
    for (double loss : losses)
        std::cout << ' ' << loss;
    std::cout << std::endl;
    // Falling round after round: the outer step's momentum may overshoot by a little in one round
    // (+0.7% once, beside two busy loops), never over two.
    EXPECT_LT(losses[1], losses[0]);
    for (std::size_t r = 2; r < 6; ++r)
        EXPECT_LT(losses[r], losses[r - 2]) << "round " << r;
    EXPECT_LT(losses.back(), losses.front() - 0.5);

    expectHashesAgree();
    int fullRounds = 0;
    for (const auto &[round, line] : roundsOf(0))
        fullRounds += line.members == kClients;
    EXPECT_GE(fullRounds, 4) << logs();
    EXPECT_EQ(swarmStatus().value(QLatin1StringView("peers")).toInt(), kClients);

    // Ctrl-C: each client tells the coordinator it leaves, saves its replica and exits 0.
    for (int i = 0; i < kClients; ++i) {
        ASSERT_EQ(clients[i]->kill(SIGINT), 0) << logs();
        EXPECT_TRUE(std::filesystem::exists(clientDir(i) / "replica.safetensors"));
        EXPECT_TRUE(std::filesystem::exists(clientDir(i) / "stats.db"));
    }
    EXPECT_TRUE(waitUntil([&] { return swarmStatus().value(QLatin1StringView("peers")).toInt() == 0; }, 5s))
        << "the clients said they left";
}

// --inner-state kept (a swarm that spot-checks no one): each member's inner optimizer runs on from
// round to round, here with the host's AdamW epsilon; the replicas still end every round alike,
// and the swarm learns.
TEST_F(SwarmProcessTest, ASwarmThatChecksNoOneKeepsItsInnerOptimizerAndStillAgrees)
{
    startCoordinator(0, {"--min-peers", "2", "--inner-state", "kept", "--adam-eps", "1e-06"});
    startClient(0);
    startClient(1);
    ASSERT_TRUE(waitForRound(5, 180s)) << logs();
    ASSERT_TRUE(waitUntil([&] { return swarmStatus().value(QLatin1StringView("val_loss_history")).toArray().size() >= 5; }, 60s));
    const QJsonArray history = swarmStatus().value(QLatin1StringView("val_loss_history")).toArray();
    EXPECT_LT(history.last().toObject().value(QLatin1StringView("val_loss")).toDouble(),
              history.first().toObject().value(QLatin1StringView("val_loss")).toDouble() - 0.3)
        << logs();
    for (int i = 0; i < 2; ++i) {
        const std::string said = clients[i]->output() + clients[i]->errors();
        EXPECT_NE(said.find("its inner optimizer kept from round to round"), std::string::npos) << logs();
        EXPECT_NE(said.find("inner AdamW epsilon 1e-06"), std::string::npos) << logs();
    }
    expectHashesAgree();
}

TEST_F(SwarmProcessTest, AClientKilledMidRoundIsLeftOutAndCatchesUpWhenRestarted)
{
    startCoordinator();
    for (int i = 0; i < kClients; ++i)
        startClient(i);
    ASSERT_TRUE(waitForRound(3, 180s)) << logs();

    // Kill client 2 while it averages a round with the others.
    const std::regex averaging("status: Averaging round (\\d+)");
    qint64 killedIn = -1;
    ASSERT_TRUE(waitUntil(
        [&] {
            const std::string out = clients[2]->output();
            std::smatch last;
            for (auto it = std::sregex_iterator(out.begin(), out.end(), averaging); it != std::sregex_iterator(); ++it)
                last = *it;
            if (last.empty() || std::stoll(last[1].str()) < 3)
                return false;
            killedIn = std::stoll(last[1].str());
            return true;
        },
        60s));
    clients[2]->kill(SIGKILL);
    // Every round it reported finished is in its stats.db (one more if it died between
    // recording a round and printing it), and the file is sound.
    {
        const std::size_t printed = roundsOf(2).size();
        auto stats = StatsStore::open(clientDir(2) / "stats.db");
        ASSERT_TRUE(stats.ok()) << stats.error().message;
        EXPECT_TRUE((*stats)->checkIntegrity().ok());
        const std::int64_t recorded = (*stats)->totals()->contributions;
        EXPECT_GE(recorded, std::int64_t(printed));
        EXPECT_LE(recorded, std::int64_t(printed) + 1);
    }

    // The swarm goes on without it. (It may have been killed just after it said "ready" for
    // the next round, which then starts with it and skips its range; a later one runs without
    // it.) The coordinator may close a round before a survivor has printed it, so wait for the
    // survivor's own line.
    const bool ranWithoutIt = waitUntil(
        [&] {
            const std::map<qint64, RoundLine> survivor = roundsOf(0);
            return std::any_of(survivor.begin(), survivor.end(), [&](const auto &entry) {
                return entry.first > killedIn && entry.second.members == kClients - 1;
            });
        },
        120s);
    ASSERT_TRUE(ranWithoutIt) << logs();

    // Restarted, it rejoins, catches up from the swarm's state and agrees again.
    const qint64 restartedAt = currentRound();
    startClient(2);
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto rounds = roundsOf(2);
            return !rounds.empty() && rounds.rbegin()->first > restartedAt;
        },
        120s))
        << logs();
    expectHashesAgree();
    const std::map<qint64, RoundLine> rejoined = roundsOf(2);
    EXPECT_EQ(rejoined.rbegin()->second.members, kClients) << logs();
}

TEST_F(SwarmProcessTest, ACoordinatorKilledMidRunIsRejoinedAndLosesNoRound)
{
    startCoordinator();
    for (int i = 0; i < kClients; ++i)
        startClient(i);
    ASSERT_TRUE(waitForRound(3, 180s)) << logs();

    const qint64 killedAt = currentRound();
    coordinator->kill(SIGKILL);
    std::this_thread::sleep_for(2s);
    startCoordinator(coordinatorPort);
    ASSERT_TRUE(waitForRound(killedAt + 4, 180s)) << logs();
    // The round cut by the restart may be gathered again and end with other parameters than a
    // client's first try printed; its agreed result is the database's, checked below.
    expectHashesAgree(0, killedAt - 1);
    expectHashesAgree(killedAt + 2);

    for (int i = 0; i < kClients; ++i)
        ASSERT_EQ(clients[i]->kill(SIGTERM), 0) << logs();
    const qint64 last = currentRound();
    ASSERT_EQ(coordinator->kill(SIGTERM), 0);

    // Every round before the current one is in the database, done, with its agreed hash.
    auto store = SqlCoordinatorStore::openSqlite(dir.path() / "coordinator" / "coordinator.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    test::expectEveryRoundDone(**store, last);
}

// The worker behind the desktop app, in this process: pause() holds it within a step and the
// coordinator hears why, resume() carries on, stop() leaves and keeps every contribution.
TEST_F(SwarmProcessTest, WorkControllerPausesResumesAndStops)
{
    startCoordinator();
    const WorkerOptions options = inProcessWorker("in-process");
    WatchedWorker watched(options);
    WorkController &controller = watched.controller;
    QSignalSpy &rounds = watched.rounds;
    QSignalSpy finished(&controller, &WorkController::finished);
    WorkStatus &last = watched.last;

    controller.start();
    ASSERT_TRUE(rounds.wait(60'000)) << "a lone peer runs rounds by itself";
    controller.pause(QStringLiteral("you are using the computer"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return last.state == WorkState::Paused; }, 10'000));
    EXPECT_EQ(last.detail, QStringLiteral("you are using the computer"));
    EXPECT_TRUE(controller.isPaused());
    const qsizetype whilePaused = rounds.count();
    QTest::qWait(1500);
    EXPECT_EQ(rounds.count(), whilePaused) << "no work while paused";

    controller.resume();
    ASSERT_TRUE(rounds.wait(60'000));
    controller.stop();
    ASSERT_TRUE(finished.count() > 0 || finished.wait(30'000));
    EXPECT_TRUE(finished.first().at(0).toBool()) << finished.first().at(1).toString().toStdString();
    EXPECT_FALSE(controller.isRunning());
    EXPECT_EQ(last.state, WorkState::Stopped);

    EXPECT_TRUE(std::filesystem::exists(options.stateDir / "replica.safetensors"));
    auto stats = StatsStore::open(options.stateDir / "stats.db");
    ASSERT_TRUE(stats.ok()) << stats.error().message;
    EXPECT_EQ((*stats)->totals()->contributions, rounds.count());
}

// ThrottleAction::Release (a game started): the replica is saved and dropped with its device
// memory while paused, loaded again on resume, and the swarm's rounds go on.
TEST_F(SwarmProcessTest, WorkControllerReleasesTheReplicaWhilePausedAndLoadsItOnResume)
{
    startCoordinator(0, {"--inner-steps", "5000"}); // seconds of training, so it is caught training
    static QStringList messages;
    messages.clear();
    const QtMessageHandler previous = qInstallMessageHandler([](QtMsgType, const QMessageLogContext &, const QString &text) {
        messages.append(text);
    });
    const WorkerOptions options = inProcessWorker("released");
    WatchedWorker watched(options);
    WorkController &controller = watched.controller;
    QSignalSpy &rounds = watched.rounds;
    WorkStatus &last = watched.last;
    controller.start();
    ASSERT_TRUE(QTest::qWaitFor([&] { return last.state == WorkState::Training && last.innerStepsDone > 0; }, 60'000))
        << messages.join(QLatin1Char('\n')).toStdString();

    controller.pause(QStringLiteral("a game is running"), /*release=*/true);
    ASSERT_TRUE(QTest::qWaitFor([&] { return last.state == WorkState::Paused; }, 10'000));
    ASSERT_TRUE(QTest::qWaitFor([&] { return messages.join(QLatin1Char('\n')).contains(QStringLiteral("released the device's memory")); }, 10'000))
        << messages.join(QLatin1Char('\n')).toStdString();
    EXPECT_TRUE(std::filesystem::exists(options.stateDir / "replica.safetensors")) << "saved before it was dropped";

    controller.resume();
    ASSERT_TRUE(rounds.wait(120'000)) << "a round finishes after the replica is loaded again";
    EXPECT_TRUE(messages.join(QLatin1Char('\n')).contains(QStringLiteral("replica at round")));
    controller.stop();
    QSignalSpy finished(&controller, &WorkController::finished);
    ASSERT_TRUE(!controller.isRunning() || finished.wait(30'000));
    qInstallMessageHandler(previous);
}

// The duty cycle (the person's maximum GPU utilization): the worker rests between steps, so a
// round takes several times its compute time, and only the compute time is counted as work.
TEST_F(SwarmProcessTest, WorkControllerHoldsTheDutyCycle)
{
    startCoordinator(0, {"--inner-steps", "1000"});
    WorkController controller(inProcessWorker("duty"));
    QSignalSpy rounds(&controller, &WorkController::roundFinished);
    controller.setDuty(0.25);
    controller.start();
    ASSERT_TRUE(rounds.wait(120'000));
    QElapsedTimer wall;
    wall.start();
    ASSERT_TRUE(rounds.wait(120'000));
    const double roundSeconds = double(wall.elapsed()) / 1000.0;
    const RoundReport report = rounds.last().at(0).value<RoundReport>();
    ASSERT_GT(report.computeSeconds, 0.0);
    // At a quarter of the time, resting takes three times the compute; allow for the round's
    // other work (averaging, the contribution report) and a loaded machine.
    EXPECT_GT(roundSeconds, 2.0 * report.computeSeconds)
        << "round " << roundSeconds << " s, compute " << report.computeSeconds << " s";
    controller.stop();
    QSignalSpy finished(&controller, &WorkController::finished);
    ASSERT_TRUE(!controller.isRunning() || finished.wait(30'000));
}

// A member whose parameters differ from the others' (here: its own initial weights) reports a
// hash the majority does not share; it is not credited, downloads the agreed state before it says
// it is ready again, and agrees from then on.
TEST_F(SwarmProcessTest, AMemberWithOtherParametersIsOutvotedAndResynchronises)
{
    startCoordinator(0, {"--min-peers", "3"}); // round 0 waits for all three
    const std::filesystem::path served = dir.path() / "coordinator" / "checkpoints" / "round-0.safetensors";
    Result<SwarmStateInfo> info = inspectSwarmState(served);
    ASSERT_TRUE(info.ok()) << info.error().message;
    const Tokenizer tokenizer = Tokenizer::buildCharacter(test::generatedText(120'000)).value();
    std::filesystem::create_directories(clientDir(2));
    ASSERT_TRUE(writeInitialSwarmState(clientDir(2) / "replica.safetensors", info->config, tokenizer, 999).ok());
    for (int i = 0; i < kClients; ++i)
        startClient(i);

    ASSERT_TRUE(waitForRound(8, 180s)) << logs();
    const std::map<qint64, RoundLine> odd = roundsOf(2), even = roundsOf(0);
    ASSERT_TRUE(odd.count(0) && even.count(0)) << logs();
    EXPECT_NE(odd.at(0).hash, even.at(0).hash) << "client 2 started from other weights";
    EXPECT_EQ(roundsOf(1).at(0).hash, even.at(0).hash);
    const std::string log = clients[2]->errors();
    EXPECT_NE(log.find("was not accepted"), std::string::npos) << log;
    EXPECT_NE(log.find("caught up"), std::string::npos) << log;
    // Back in step: the last rounds it finished agree with the others'.
    ASSERT_TRUE(waitUntil([&] { return roundsOf(2).rbegin()->first >= 6; }, 120s)) << logs();
    expectHashesAgree(6);
    // It says it is ready again only once it holds the agreed state, so every round it finished
    // after the first was trained on the swarm's state and agrees with the others'.
    const std::map<qint64, RoundLine> first = roundsOf(0);
    for (const auto &[round, line] : roundsOf(2)) {
        if (round >= 1 && first.count(round))
            EXPECT_EQ(line.hash, first.at(round).hash) << "round " << round << "\n" << logs();
    }
}

// Time-budgeted rounds (issue 18): a client at a quarter of the other's speed (its duty cycle)
// trains a quarter of the steps in the same budget, and neither waits for the other; their
// pieces, weighed by those steps, average to the same parameters on both.
TEST_F(SwarmProcessTest, ABudgetedRoundLetsTheFastPeerTrainMoreAndNoPeerWait)
{
    startCoordinator(0, {"--rounds", "budget", "--round-seconds", "3", "--min-inner-steps", "1", "--max-inner-steps",
                         "20000", "--min-peers", "2"});
    startClient(0);
    startClient(1, "127.0.0.1:0", {"--max-utilization", "25"});
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto fast = roundsOf(0), slow = roundsOf(1);
            return fast.size() >= 4 && slow.size() >= 4;
        },
        180s))
        << logs();
    const std::map<qint64, RoundLine> fast = roundsOf(0), slow = roundsOf(1);
    int compared = 0;
    for (const auto &[round, line] : fast) {
        const auto other = slow.find(round);
        if (other == slow.end() || line.members != 2)
            continue;
        ++compared;
        EXPECT_GT(line.steps, 0) << "round " << round << " printed no budget";
        // Four times the speed: well over one and a half times the steps, however busy the machine.
        EXPECT_GT(double(line.steps), 1.5 * double(other->second.steps))
            << "round " << round << ": " << line.steps << " steps against " << other->second.steps << "\n" << logs();
        EXPECT_GT(other->second.steps, 0);
    }
    EXPECT_GE(compared, 3) << logs();
    expectHashesAgree();
    const auto last = fast.rbegin()->second;
    EXPECT_LT(last.loss, fast.begin()->second.loss) << "the swarm learns";
}

// A peer paused mid-round (the desktop's throttle, WorkController::pause) holds no budgeted
// round: the others' rounds run without it, though the gather timeout is an hour. Its partial
// round is dropped (it sent nothing), and on resume it takes the swarm's state and joins again.
TEST_F(SwarmProcessTest, APeerPausedMidRoundNeverHoldsABudgetedRound)
{
    // A cap far beyond what 3 s hold: every round lasts its budget.
    startCoordinator(0, {"--rounds", "budget", "--round-seconds", "3", "--max-inner-steps", "20000", "--gather-timeout",
                         "3600", "--min-peers", "2"});
    startClient(0);
    startClient(1);
    const WorkerOptions options = inProcessWorker("paused");
    WatchedWorker watched(options);
    WorkController &controller = watched.controller;
    QSignalSpy &rounds = watched.rounds;
    WorkStatus &last = watched.last;
    controller.start();
    ASSERT_TRUE(rounds.wait(120'000)) << logs();
    ASSERT_TRUE(QTest::qWaitFor([&] { return last.state == WorkState::Training && last.innerStepsDone > 0; }, 60'000))
        << logs();
    controller.pause(QStringLiteral("you are using the computer"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return last.state == WorkState::Paused; }, 10'000));
    const qint64 pausedIn = currentRound();
    const qsizetype finishedBefore = rounds.count();

    // Two rounds close without it while it stays paused.
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto others = roundsOf(0);
            return std::count_if(others.begin(), others.end(), [&](const auto &entry) {
                       return entry.first > pausedIn && entry.second.members == 2;
                   }) >= 2;
        },
        120'000))
        << logs();
    EXPECT_EQ(last.state, WorkState::Paused);
    EXPECT_EQ(rounds.count(), finishedBefore) << "no round of its own while paused";

    controller.resume();
    const qint64 resumedIn = currentRound();
    ASSERT_TRUE(rounds.wait(120'000)) << logs();
    EXPECT_GT(rounds.last().at(0).value<RoundReport>().round, resumedIn - 1) << "it caught up to the swarm's round";
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto others = roundsOf(0);
            return std::any_of(others.begin(), others.end(),
                               [&](const auto &entry) { return entry.first >= resumedIn && entry.second.members == 3; });
        },
        120'000))
        << logs();
    controller.stop();
    QSignalSpy finished(&controller, &WorkController::finished);
    ASSERT_TRUE(!controller.isRunning() || finished.wait(30'000));
}

// Straggler-aware admission (issue 18): a client held to the least duty cycle (5%) cannot fit the
// round's minimum steps (H = 200, which the other trains in a fraction of the budget) into its
// 2 s. The coordinator tells it so; it sits rounds out (offered spot checks instead) and the
// other's rounds never wait for it.
TEST_F(SwarmProcessTest, AStragglerIsToldSoAndSitsRoundsOutWithoutHoldingAnyone)
{
    startCoordinator(0, {"--rounds", "budget", "--round-seconds", "2", "--inner-steps", "200", "--min-inner-steps", "200",
                         "--max-inner-steps", "20000", "--min-peers", "1"});
    startClient(0);
    startClient(1, "127.0.0.1:0", {"--max-utilization", "5"});
    ASSERT_TRUE(waitUntil(
        [&] { return clients[1]->output().find("status: Too slow for this swarm's rounds") != std::string::npos; }, 120s))
        << logs();
    const qint64 toldAt = currentRound();
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto rounds = roundsOf(0);
            return std::count_if(rounds.begin(), rounds.end(), [&](const auto &entry) {
                       return entry.first > toldAt && entry.second.members == 1;
                   }) >= 3;
        },
        120s))
        << logs();
    EXPECT_TRUE(roundsOf(1).empty()) << "a straggler's few steps are no round of its own\n" << logs();
    EXPECT_NE(clients[1]->errors().find("it sits rounds out"), std::string::npos) << logs();
    // After 30 heartbeats (30 s here) it trains again to measure its speed, and is told again.
    const auto retriedAndToldAgain = [&] {
        const std::string out = clients[1]->output();
        const std::size_t told = out.find("status: Too slow");
        const std::size_t retried = out.find("status: Training round", told);
        return retried != std::string::npos && out.find("status: Too slow", retried) != std::string::npos;
    };
    EXPECT_TRUE(waitUntil(retriedAndToldAgain, 120s)) << logs();
    EXPECT_TRUE(roundsOf(1).empty()) << logs();
}

// A peer killed mid-round in a budgeted swarm costs the others nothing: with the gather timeout
// at an hour, their rounds go on without it (a round it was taken into ends at its members'
// reports or, for it, the missed heartbeats), and the survivors agree.
TEST_F(SwarmProcessTest, APeerKilledMidBudgetedRoundCostsTheOthersNothing)
{
    startCoordinator(0, {"--rounds", "budget", "--round-seconds", "3", "--max-inner-steps", "20000", "--gather-timeout",
                         "3600", "--min-peers", "2"});
    for (int i = 0; i < kClients; ++i)
        startClient(i);
    ASSERT_TRUE(waitUntil([&] { return roundsOf(2).size() >= 2; }, 180s)) << logs();
    ASSERT_TRUE(waitUntil([&] { return clients[2]->output().rfind("status: Training round") != std::string::npos; }, 60s));
    clients[2]->kill(SIGKILL);
    const qint64 killedIn = currentRound();
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto survivor = roundsOf(0);
            return std::count_if(survivor.begin(), survivor.end(), [&](const auto &entry) {
                       return entry.first > killedIn && entry.second.members == kClients - 1;
                   }) >= 2;
        },
        120s))
        << logs();
    expectHashesAgree();
}

// Asynchronous rounds (issue 18, --rounds async): nobody waits. Two clients run rounds on their
// own; a third, paused mid-budget (WorkController::pause) while they go on, keeps the steps it
// trained: resumed, it joins a newer round with them, trained on an older state, fetches the
// round's state and applies its step. Its work is taken with its staleness (the coordinator's
// record), agrees with the swarm's, and a spot check recomputed from the state it trained on
// (spot checks on for everyone) agrees with it too.
TEST_F(SwarmProcessTest, AnAsynchronousSwarmWaitsForNoOneAndKeepsTheWorkOfAPeerThatFellBehind)
{
    startCoordinator(0, {"--rounds", "async", "--round-seconds", "3", "--max-inner-steps", "20000", "--min-inner-steps",
                         "1", "--gather-timeout", "3600", "--min-peers", "1", "--max-staleness", "32",
                         "--spot-check-rate", "1", "--spot-check-rate-new", "1"});
    startClient(0);
    startClient(1, "127.0.0.1:0", {"--max-utilization", "50"});
    const WorkerOptions options = inProcessWorker("behind");
    const QString key = Identity::loadOrCreate(options.stateDir / "identity.pem")->keyId();
    WatchedWorker watched(options);
    watched.controller.start();
    ASSERT_TRUE(QTest::qWaitFor([&] { return watched.last.state == WorkState::Training && watched.last.innerStepsDone > 0; },
                                120'000))
        << logs();
    watched.controller.pause(QStringLiteral("you are using the computer"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return watched.last.state == WorkState::Paused; }, 10'000));
    const qint64 pausedIn = currentRound();
    const qsizetype finishedBefore = watched.rounds.count();
    // The others' rounds go on: at least two with a single member (no one waited for anyone).
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto first = roundsOf(0), second = roundsOf(1);
            const auto alone = [&](const std::map<qint64, RoundLine> &rounds) {
                return std::count_if(rounds.begin(), rounds.end(), [&](const auto &entry) {
                    return entry.first > pausedIn && entry.second.members == 1;
                });
            };
            return alone(first) + alone(second) >= 2 && currentRound() >= pausedIn + 2;
        },
        120'000))
        << logs();
    EXPECT_EQ(watched.rounds.count(), finishedBefore) << "no round of its own while paused";

    watched.controller.resume();
    ASSERT_TRUE(watched.rounds.wait(120'000)) << logs();
    const RoundReport report = watched.rounds.last().at(0).value<RoundReport>();
    EXPECT_GE(report.round, pausedIn + 2) << "it joined a round newer than the state it trained on";
    EXPECT_GT(report.steps, 0);
    // The coordinator's record: the member, its staleness, its verdict and the spot check.
    std::optional<SpotCheckRecord> check;
    RoundMember member;
    std::optional<bool> accepted;
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            Result<std::unique_ptr<SqlCoordinatorStore>> store =
                SqlCoordinatorStore::openSqlite(dir.path() / "coordinator" / "coordinator.db");
            if (!store)
                return false;
            Result<std::optional<RoundRecord>> round = (*store)->round(report.round);
            if (!round || !*round)
                return false;
            for (const RoundMember &m : (*round)->members) {
                if (m.keyId == key)
                    member = m;
            }
            Result<std::vector<ContributionRecord>> reports = (*store)->contributions(report.round, (*round)->attempt);
            for (const ContributionRecord &c : reports ? *reports : std::vector<ContributionRecord>{}) {
                if (c.keyId == key)
                    accepted = c.accepted;
            }
            Result<std::optional<SpotCheckRecord>> checked = (*store)->spotCheck(report.round, key);
            if (checked && *checked)
                check = **checked;
            return check && (check->state == SpotCheckState::Agreed || check->state == SpotCheckState::Refuted
                             || check->state == SpotCheckState::Expired);
        },
        180'000))
        << logs();
    EXPECT_EQ(member.keyId, key);
    EXPECT_GE(member.staleness, 2) << "trained on the state it was paused on";
    EXPECT_EQ(member.steps, report.steps);
    EXPECT_EQ(check->state, SpotCheckState::Agreed) << check->detail.toStdString() << "\n" << logs();
    EXPECT_EQ(accepted, std::optional<bool>(true)) << "its work agrees with the swarm's\n" << logs();
    watched.controller.stop();
    QSignalSpy finished(&watched.controller, &WorkController::finished);
    ASSERT_TRUE(!watched.controller.isRunning() || finished.wait(30'000));
}
