// Verification does not stall (issue 43): a swarm of two `swarmtrain --headless` peers on
// loopback, one made four times slower (--max-utilization 25: it rests three quarters of the
// time), with time-budgeted rounds (20 s, as the measurement asks), runs for a while with spot checks off and then at the
// coordinator's default rates (0.05 for established members, 0.5 on probation), each from fresh
// identities. The fast peer's busy share is read from its own stats.db: the compute seconds of
// its contributions over the wall time from the start of its first to the end of its last.
// Its checks of the slow peer's rounds are not counted as busy. Prints JSON lines:
//   {"bench":"verification_stall","config":"off"|"default","seconds":...,"round_seconds":...,"fast_busy":...,
//    "fast_rounds":...,"slow_rounds":...,"checks":...}
//   {"bench":"verification_stall_summary","fast_busy_off":...,"fast_busy_default":...}
// Usage: swarmtrain_verification_stall [--seconds 150] [--round-seconds 20] [--logs DIR]
#include "ChildProcess.h"
#include "CliFlags.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "StatsStore.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <QCoreApplication>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

struct Busy {
    double busy = 0.0;
    qint64 rounds = 0;
};

// A peer's contributions in its stats.db: the compute seconds over the span they cover.
Result<Busy> busyOf(const std::filesystem::path &statsDb)
{
    Result<std::unique_ptr<StatsStore>> stats = StatsStore::open(statsDb);
    if (!stats)
        return stats.error();
    Result<std::vector<RecordedContribution>> rounds = (*stats)->recentContributions(100'000);
    if (!rounds)
        return rounds.error();
    Busy busy;
    busy.rounds = qint64(rounds->size());
    if (rounds->empty())
        return busy;
    QDateTime first = rounds->front().contribution.startedAt, last = rounds->front().contribution.finishedAt;
    double computeSeconds = 0.0;
    for (const RecordedContribution &round : *rounds) {
        first = std::min(first, round.contribution.startedAt);
        last = std::max(last, round.contribution.finishedAt);
        computeSeconds += round.contribution.computeSeconds;
    }
    const double spanSeconds = double(first.msecsTo(last)) / 1000.0;
    busy.busy = spanSeconds > 0.0 ? computeSeconds / spanSeconds : 0.0;
    return busy;
}

Result<nlohmann::json> run(const std::string &config, double seconds, double roundSeconds, const std::string &logs)
{
    test::TempDir dir;
    dir.write("data.txt", test::generatedText(400'000));
    test::ChildProcess coordinator;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    const bool checks = config == "default";
    args.insert(args.end(), {"--n-layer", "2", "--n-head", "4", "--n-embd", "64", "--block-size", "64", "--rounds",
                             "budget", "--round-seconds", std::to_string(roundSeconds), "--max-inner-steps", "20000",
                             "--min-peers", "1", "--spot-check-rate", checks ? "0.05" : "0", "--spot-check-rate-new",
                             checks ? "0.5" : "0"});
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    test::ChildProcess fast, slow;
    test::startHeadlessPeer(fast, SWARMTRAIN_CLIENT, url, dir.path(), "fast", {"--listen", "127.0.0.1:0"});
    test::startHeadlessPeer(slow, SWARMTRAIN_CLIENT, url, dir.path(), "slow",
                            {"--listen", "127.0.0.1:0", "--max-utilization", "25"});
    const Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    const auto round = [&]() -> qint64 {
        Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
        return answer ? answer->value(QLatin1StringView("round")).toInteger(-1) : -1;
    };
    if (!test::waitUntil([&] { return round() >= 1; }, 600s))
        return makeError(config + ": the swarm did not finish round 0 within 10 minutes");
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    fast.kill(SIGINT);
    slow.kill(SIGINT);
    coordinator.kill(SIGINT);
    const std::string coordinatorLog = coordinator.output() + coordinator.errors();
    if (!logs.empty()) {
        std::ofstream(logs + "/" + config + "-coordinator.log") << coordinatorLog;
        std::ofstream(logs + "/" + config + "-fast.log") << fast.output() << fast.errors();
        std::ofstream(logs + "/" + config + "-slow.log") << slow.output() << slow.errors();
    }
    Result<Busy> fastBusy = busyOf(dir.path() / "fast" / "stats.db");
    Result<Busy> slowBusy = busyOf(dir.path() / "slow" / "stats.db");
    if (!fastBusy || !slowBusy)
        return fastBusy ? slowBusy.error() : fastBusy.error();
    const std::regex assigned("will check the work of");
    const auto checksAssigned = std::distance(std::sregex_iterator(coordinatorLog.begin(), coordinatorLog.end(), assigned),
                                              std::sregex_iterator());
    return nlohmann::json{{"bench", "verification_stall"},   {"config", config},
                          {"seconds", seconds},              {"round_seconds", roundSeconds},
                          {"fast_busy", fastBusy->busy},
                          {"fast_rounds", fastBusy->rounds}, {"slow_rounds", slowBusy->rounds},
                          {"checks", checksAssigned}};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    double seconds = 150.0;
    double roundSeconds = 20.0;
    std::string logs;
    CLI::App cli("The fast peer's busy share beside a peer four times slower, spot checks off and at the defaults.",
                 "swarmtrain_verification_stall");
    flags::configure(cli);
    cli.add_option("--seconds", seconds, "wall time measured per run, after round 0")->transform(flags::numberIn(10, 36000));
    cli.add_option("--round-seconds", roundSeconds, "each round's time budget")->transform(flags::numberIn(1, 3600));
    cli.add_option("--logs", logs, "a folder for the processes' logs");
    if (Result<void> parsed = flags::parse(cli, std::vector<std::string>(argv + 1, argv + argc)); !parsed) {
        std::cerr << parsed.error().message << "\n";
        return 2;
    }
    nlohmann::json summary{{"bench", "verification_stall_summary"}};
    for (const std::string config : {"off", "default"}) {
        Result<nlohmann::json> figures = run(config, seconds, roundSeconds, logs);
        if (!figures) {
            std::cerr << figures.error().message << "\n";
            return 1;
        }
        summary["fast_busy_" + config] = (*figures)["fast_busy"];
        std::cout << figures->dump() << std::endl;
    }
    std::cout << summary.dump() << std::endl;
    return 0;
}
