// Pipeline-stage mode end to end (issue 17): swarmtrain-coordinator --mode pipeline and six
// `swarmtrain --headless` clients, each its own process, on loopback, in three stages. The swarm
// learns; every step counts each of its microbatches exactly once at every stage, and each stage's
// replicas end every step equal; a stage peer killed with SIGKILL in the middle of a step loses
// nothing, and comes back, takes its stage's state from a neighbour and steps with it again; gone
// again as its stage's all-reduce begins, it loses nothing either (the stage steps again once its
// work is replayed); a coordinator killed and restarted loses no step.
#include "ChildProcess.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SwarmHarness.h"
#include "Sha256.h"
#include "StatsStore.h"
#include "SwarmState.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <QJsonArray>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <regex>
#include <set>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;

namespace {

class PipelineSwarmTest : public ::testing::Test {
protected:
    static constexpr int kClients = 6;
    static constexpr int kMicrobatches = 6;

    void SetUp() override
    {
        test::application();
        dir.write("data.txt", test::generatedText(120'000));
    }

    void startCoordinator(int port = 0)
    {
        coordinator = std::make_unique<ChildProcess>();
        std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt", port);
        args.insert(args.end(), pipelineFlags.begin(), pipelineFlags.end());
        coordinatorPort = test::startCoordinatorProcess(*coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
        ASSERT_NE(coordinatorPort, 0) << coordinator->errors();
        url = QStringLiteral("http://127.0.0.1:%1").arg(coordinatorPort);
        status = std::make_unique<CoordinatorClient>(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    }

    // `misbehave`: run swarmtrain-hostile with that --misbehave instead of the client.
    void startClient(int i, const std::string &suffix = {}, const std::string &misbehave = {})
    {
        clients[i] = std::make_unique<ChildProcess>();
        const std::string name = "client" + std::to_string(i);
        std::vector<std::string> args = {"--headless", "--swarm", url.toStdString(), "--state-dir",
                                         (dir.path() / name).string(), "--listen", "127.0.0.1:0", "--threads", "1"};
        if (!misbehave.empty())
            args.insert(args.begin(), {"--misbehave", misbehave});
        ASSERT_TRUE(clients[i]->start(misbehave.empty() ? SWARMTRAIN_CLIENT : SWARMTRAIN_HOSTILE, args,
                                      dir.path() / (name + suffix + ".out"), dir.path() / (name + suffix + ".err")));
    }

    std::optional<PipelineStatus> pipeline() const
    {
        Result<QJsonObject> answer = status->getJson(QStringLiteral("/v1/status"));
        if (!answer)
            return std::nullopt;
        Result<StatusAnswer> decoded = StatusAnswer::fromJson(*answer);
        return decoded ? decoded->pipeline : std::nullopt;
    }

    // The number of steps done (the open step's number), or -1 when the coordinator does not answer.
    qint64 stepsDone() const
    {
        const std::optional<PipelineStatus> p = pipeline();
        return p ? p->step : -1;
    }

    bool waitForSteps(qint64 steps, std::chrono::milliseconds timeout = 5min) const
    {
        return waitUntil([&] { return stepsDone() >= steps; }, timeout);
    }

    // "step N done at stage K of S: ... params HASH" lines of client i, as (step, stage) -> hash.
    std::map<std::pair<qint64, int>, std::string> stepsOf(int i) const
    {
        static const std::regex line("step (\\d+) done at stage (\\d+) of \\d+: .* params ([0-9a-f]{64})");
        std::map<std::pair<qint64, int>, std::string> steps;
        const std::string out = clients[i]->output();
        for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
            steps[{std::stoll((*it)[1].str()), std::stoi((*it)[2].str())}] = (*it)[3].str();
        return steps;
    }

    // The processes' logs, with those of the lives killed before (a failure at an early step is
    // told there: the victim's first life and the first coordinator).
    std::string logs() const { return earlierLives + test::swarmLogs(*coordinator, clients); }
    void keepLogs(const std::string &who, const ChildProcess &process)
    {
        earlierLives += who + " (killed):\n" + process.output() + process.errors() + "\n";
    }

    // Two blocks, so three stages each hold a part worth computing; no peer moves stage
    // (rebalancing has its own tests), so the one killed below has a neighbour to come back to.
    std::vector<std::string> pipelineFlags = {"--mode", "pipeline", "--stages", "3", "--min-peers", "6", "--n-layer", "2",
                                              "--microbatches-per-step", std::to_string(kMicrobatches),
                                              "--microbatch-size", "4", "--eval-every", "5", "--rebalance-seconds", "86400"};
    test::TempDir dir;
    Identity watcher = Identity::generate().value();
    std::unique_ptr<ChildProcess> coordinator;
    std::unique_ptr<ChildProcess> clients[kClients];
    std::unique_ptr<CoordinatorClient> status;
    QString url;
    int coordinatorPort = 0;
    std::string earlierLives;
};

} // namespace

TEST_F(PipelineSwarmTest, SixClientsInThreeStagesLearnAndSurviveAKilledPeerAndACoordinatorRestart)
{
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    for (int i = 0; i < kClients; ++i)
        ASSERT_NO_FATAL_FAILURE(startClient(i));
    ASSERT_TRUE(waitForSteps(6)) << logs();

    // A peer of a later stage that has a neighbour, killed while the step's microbatches run.
    std::optional<PipelineStatus> placed = pipeline();
    ASSERT_TRUE(placed.has_value());
    QString victimKey;
    for (std::size_t s = 1; s < placed->stages.size() && victimKey.isEmpty(); ++s) {
        if (placed->stages[s].peers.size() >= 2)
            victimKey = placed->stages[s].peers.front();
    }
    ASSERT_FALSE(victimKey.isEmpty()) << "no later stage has two peers";
    int victim = -1;
    for (int i = 0; i < kClients && victim < 0; ++i) {
        if (clients[i]->errors().find("peer " + victimKey.toStdString()) != std::string::npos)
            victim = i;
    }
    ASSERT_GE(victim, 0) << "no client says it is peer " << victimKey.toStdString();
    ASSERT_TRUE(waitUntil([&] {
        const std::optional<PipelineStatus> p = pipeline();
        return p && p->phase == QLatin1StringView("training");
    }, 2min));
    ASSERT_EQ(clients[victim]->kill(SIGKILL), SIGKILL);
    keepLogs("client " + std::to_string(victim), *clients[victim]);
    const qint64 killedAt = stepsDone();
    ASSERT_TRUE(waitForSteps(killedAt + 4)) << "training did not go on without the killed peer\n" << logs();

    // Back with the same key: it takes its stage's state from a neighbour and steps again, once;
    // then it is gone as its stage's next all-reduce begins, its pieces never sent. Its stage
    // applies nothing of that all-reduce, the trainers replay its work on its neighbour, and the
    // stage steps again: no microbatch lost (checked below, for every step).
    ASSERT_NO_FATAL_FAILURE(startClient(victim, ".restarted", "vanish-in-all-reduce"));
    ASSERT_TRUE(waitUntil([&] { return !stepsOf(victim).empty(); }, 5min)) << "the restarted peer never stepped again\n" << logs();
    ASSERT_EQ(clients[victim]->waitForExit(5min), 137) << "it never reached its next all-reduce\n" << logs();
    ASSERT_NE(clients[victim]->output().find("vanishing in an all-reduce"), std::string::npos) << logs();
    const qint64 vanishedAt = stepsDone();
    ASSERT_TRUE(waitForSteps(vanishedAt + 2)) << "training did not go on without the vanished peer\n" << logs();
    EXPECT_NE(coordinator->errors().find("lacked a vanished member's work"), std::string::npos)
        << "the stage was not stepped again\n" << logs();

    // The coordinator killed mid-run and started again on the same state and port.
    const qint64 beforeRestart = stepsDone();
    ASSERT_EQ(coordinator->kill(SIGKILL), SIGKILL);
    keepLogs("coordinator", *coordinator);
    ASSERT_NO_FATAL_FAILURE(startCoordinator(coordinatorPort));
    ASSERT_TRUE(waitForSteps(beforeRestart + 5)) << "no steps after the coordinator's restart\n" << logs();

    const std::optional<PipelineStatus> final = pipeline();
    ASSERT_TRUE(final.has_value());
    ASSERT_FALSE(final->history.empty());
    qint64 expected = final->history.front().step;
    std::vector<double> evalLosses;
    for (const PipelineStatus::Step &step : final->history) {
        EXPECT_EQ(step.step, expected++) << "a step is missing from the history";
        // No microbatch lost (the killed peer's work was replayed) and none counted twice.
        EXPECT_EQ(step.issued, kMicrobatches) << "step " << step.step;
        for (std::size_t s = 0; s < step.applied.size(); ++s)
            EXPECT_EQ(step.applied[s], step.issued) << "step " << step.step << ", stage " << s << "\n" << logs();
        EXPECT_TRUE(step.agreed) << "step " << step.step << ": a stage's replicas disagree";
        if (step.evalLoss >= 0)
            evalLosses.push_back(step.evalLoss);
    }
    ASSERT_GE(evalLosses.size(), 3u);
    EXPECT_LT(evalLosses.back(), evalLosses.front() - 0.2) << "the validation loss did not fall";

    // Credit (issue 43): a step every stage applied earns its members, all together, what a
    // whole-model round earns for its tokens (6 microbatches x 4 sequences x 32 tokens x the
    // default 0.001), split by the stages' FLOPs; no step earns more. A step whose work was
    // replayed may earn less: the trainers' word on who served it reaches the coordinator with
    // their next request, which may come after the step finished. The steps before the first
    // kill had no replay.
    const double full = kMicrobatches * 4 * 32 * 0.001;
    int inFull = 0;
    for (const PipelineStatus::Step &step : final->history) {
        EXPECT_LE(step.credit, full * (1 + 1e-9)) << "step " << step.step;
        const bool whole = std::abs(step.credit - full) <= 1e-9 * full;
        inFull += whole;
        EXPECT_TRUE(whole || step.step >= killedAt) << "step " << step.step << " earned " << step.credit << " of " << full;
    }
    // Each client that served to the end has it in its statistics (the dashboard's credit).
    for (int i = 0; i < kClients; ++i) {
        if (i == victim)
            continue;
        auto stats = StatsStore::open(dir.path() / ("client" + std::to_string(i)) / "stats.db");
        ASSERT_TRUE(stats.ok()) << stats.error().message;
        EXPECT_GT((*stats)->totals()->credit, 0.0) << "client " << i << " has no credit in its statistics";
    }
    std::cout << "pipeline swarm: " << inFull << " of " << final->history.size() << " steps credited in full (" << full
              << " each)" << std::endl;

    // What the clients printed agrees too: one hash per step and stage.
    std::map<std::pair<qint64, int>, std::set<std::string>> hashes;
    for (int i = 0; i < kClients; ++i) {
        for (const auto &[key, hash] : stepsOf(i))
            hashes[key].insert(hash);
    }
    for (const auto &[key, set] : hashes)
        EXPECT_EQ(set.size(), 1u) << "step " << key.first << ", stage " << key.second << " ended with " << set.size() << " states";
    std::cout << "pipeline swarm: " << final->history.size() << " steps, validation loss " << evalLosses.front() << " -> "
              << evalLosses.back() << ", killed a stage peer at step " << killedAt << ", lost it in an all-reduce at step "
              << vanishedAt << ", restarted the coordinator at step "
              << beforeRestart << std::endl;
}

// A pipeline swarm publishes its model (issue 44), which no peer holds whole: with
// --export-every 1, one member of each stage is asked to upload the stage's agreed state, the
// coordinator checks it against the agreed hash, puts the model together, validates and
// publishes it, and GET /v1/checkpoint serves it. ATTACK: a member that uploads a forged stage
// state (one bit of one parameter) is refused and charged for it each time it is asked, and the
// state comes from its stage's honest replica.
TEST_F(PipelineSwarmTest, PublishesItsModelFromTheStagesAgreedStatesAndRefusesAForgedOne)
{
    // Two blocks in two stages of equal cost: five peers are placed three and two, so the forger's
    // stage has an honest replica, whichever it is placed on.
    constexpr int kForger = 4;
    pipelineFlags = {"--mode", "pipeline", "--stages", "2", "--min-peers", "5", "--n-layer", "2", "--microbatches-per-step", "4",
                     "--microbatch-size", "4", "--rebalance-seconds", "86400", "--export-every", "1"};
    ASSERT_NO_FATAL_FAILURE(startCoordinator());
    for (int i = 0; i < kForger; ++i)
        ASSERT_NO_FATAL_FAILURE(startClient(i));
    ASSERT_NO_FATAL_FAILURE(startClient(kForger, {}, "forge-stage-state"));
    const std::regex peerLine("peer ([0-9a-f]{16,64})");
    std::smatch forger;
    ASSERT_TRUE(waitUntil([&] { const std::string err = clients[kForger]->errors(); return std::regex_search(err, forger, peerLine); }, 2min))
        << logs();
    const std::string forgerKey = forger[1].str();

    // Asked at random among its stage's members, the forger is asked sooner or later: refused.
    ASSERT_TRUE(waitUntil([&] { return coordinator->errors().find("refused stage") != std::string::npos; }, 5min))
        << "the forger was never asked for its stage's state\n" << logs();
    QJsonArray exports;
    ASSERT_TRUE(waitUntil([&] {
        const Result<QJsonObject> model = status->getJson(QStringLiteral("/v1/model"));
        exports = model ? model->value(QLatin1StringView("exports")).toArray() : QJsonArray();
        return !exports.isEmpty();
    }, 3min)) << logs();
    const std::string coordinatorLog = coordinator->errors();
    static const std::regex refusedLine("refused stage \\d+ state of step \\d+ from \"?([0-9a-f]+)\"?");
    int refusals = 0;
    for (auto it = std::sregex_iterator(coordinatorLog.begin(), coordinatorLog.end(), refusedLine); it != std::sregex_iterator(); ++it) {
        EXPECT_EQ((*it)[1].str(), forgerKey) << "an honest member's upload was refused\n" << logs();
        ++refusals;
    }
    EXPECT_GE(refusals, 1);

    // The swarm stops, so that no newer export replaces the one checked below.
    for (int i = 0; i <= kForger; ++i)
        clients[i]->kill(SIGINT);
    for (int i = 0; i <= kForger; ++i)
        clients[i]->waitForExit(1min);

    // The model served is the stages' agreed states after its round's steps: each stage's part of
    // it hashes to what that stage's replicas printed for that many steps.
    const std::filesystem::path state = dir.path() / "published.safetensors";
    ASSERT_TRUE(status->download(QStringLiteral("/v1/checkpoint"), state, {}).ok()) << logs();
    const Result<SwarmStateInfo> info = inspectSwarmState(state);
    ASSERT_TRUE(info.ok()) << info.error().message;
    const qint64 round = info->round;
    ASSERT_GE(round, 1);
    const Result<QJsonObject> listed = status->getJson(QStringLiteral("/v1/model"));
    ASSERT_TRUE(listed.ok());
    QJsonObject published;
    for (const QJsonValue manifest : listed->value(QLatin1StringView("exports")).toArray()) {
        if (manifest.toObject().value(QLatin1StringView("round")).toInteger() == round)
            published = manifest.toObject();
    }
    ASSERT_FALSE(published.isEmpty()) << "GET /v1/checkpoint served round " << round << ", which GET /v1/model does not list";
    EXPECT_EQ(published.value(QLatin1StringView("state_sha256")).toString().toStdString(),
              Sha256::hexOfFile(state).value());
    EXPECT_GT(published.value(QLatin1StringView("validation_loss")).toDouble(), 0.0) << logs();
    // Tokens trained: the first stage's optimizer steps (= the steps done), 4 microbatches of 4 sequences of 32.
    EXPECT_EQ(published.value(QLatin1StringView("tokens_trained")).toInteger(-1), round * 4 * 4 * 32) << logs();
    Result<std::vector<std::string>> stageHashes = swarmStateStageHashes(state, 2);
    ASSERT_TRUE(stageHashes.ok()) << stageHashes.error().message;
    for (int stage = 0; stage < 2; ++stage) {
        std::set<std::string> printed;
        for (int i = 0; i < kForger; ++i) {
            const auto steps = stepsOf(i);
            if (const auto it = steps.find({round - 1, stage + 1}); it != steps.end()) // printed counting from 1
                printed.insert(it->second);
        }
        ASSERT_EQ(printed.size(), 1u) << "stage " << stage << "'s honest replicas after step " << round - 1 << "\n" << logs();
        EXPECT_EQ((*stageHashes)[std::size_t(stage)], *printed.begin()) << "stage " << stage;
    }
    std::cout << "ATTACK forged stage state: refused " << refusals << " times; the model published after " << round
              << " steps is the stages' agreed states" << std::endl;
}
