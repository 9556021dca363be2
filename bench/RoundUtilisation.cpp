// Nobody waits (issue 18): four `swarmtrain --headless` peers whose speeds differ 1 : 1 : 2 : 4,
// made slower with the duty cycle (--max-utilization 25, 25, 50, 100: each rests between steps
// so that it computes that share of the time), train with a real coordinator on loopback, once
// with fixed H rounds, with time-budgeted rounds and with asynchronous rounds (--min-peers 1: a
// round starts as soon as a peer is ready). Over the measured rounds (after the
// first, which runs H steps while the budget is unknown, and a warm-up) it prints each peer's
// utilisation (the share of each round's wall time it trained, computing or resting as its duty
// cycle asks, so what it lacks is waiting and averaging; the median of its round lines)
// and the swarm's tokens a second (the tokens the coordinator credited those rounds, over their
// wall time). JSON lines:
//   {"bench":"round_utilisation","rounds":"fixed"|"budget"|"async","peer_utilisation":[...],
//    "peer_steps":[...],"swarm_tokens_per_s":...,"measured_rounds":N,"wall_s":...}
//   {"bench":"round_utilisation_ratio","budget_over_fixed_tokens_per_s":...,"async_over_fixed_tokens_per_s":...}
// Usage: swarmtrain_round_utilisation [--rounds N] [--inner-steps H] [--modes fixed budget async]
// (SWARMTRAIN_BENCH_LOGS=DIR keeps the coordinator's and the peers' logs there.)
#include "ChildProcess.h"
#include "CliFlags.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SqlCoordinatorStore.h"
#include "Statistics.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

constexpr int kPeers = 4;
constexpr int kUtilisationPercent[kPeers] = {25, 25, 50, 100};

struct PeerRound {
    qint64 steps = 0;
    double utilisation = 0.0;
};

// round -> what the peer printed of it.
std::map<qint64, PeerRound> roundsOf(const test::ChildProcess &peer)
{
    static const std::regex line("round (\\d+) done: \\d+ members, .*, (\\d+) steps( in a budget of [0-9.]+ s)?, "
                                 "utilisation (\\d+)%");
    std::map<qint64, PeerRound> rounds;
    const std::string out = peer.output();
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
        rounds[std::stoll((*it)[1].str())] = {std::stoll((*it)[2].str()), std::stod((*it)[4].str()) / 100.0};
    return rounds;
}

Result<nlohmann::json> runSwarm(const std::string &mode, int rounds, int innerSteps)
{
    test::TempDir dir;
    dir.write("data.txt", test::generatedText(400'000));
    test::ChildProcess coordinator;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    // Steps of some milliseconds, so resting between them is what sets a peer's speed.
    args.insert(args.end(), {"--n-layer", "2", "--n-head", "4", "--n-embd", "64", "--block-size", "64", "--inner-steps",
                             std::to_string(innerSteps), "--min-peers", mode == "async" ? "1" : "4", "--rounds", mode,
                             "--round-deadline", "120", "--gather-timeout", "600"});
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    std::vector<std::unique_ptr<test::ChildProcess>> peers;
    for (int i = 0; i < kPeers; ++i) {
        const std::string name = "peer" + std::to_string(i);
        peers.push_back(std::make_unique<test::ChildProcess>());
        test::startHeadlessPeer(*peers.back(), SWARMTRAIN_CLIENT, url, dir.path(), name,
                                {"--listen", "127.0.0.1:0", "--max-utilization", std::to_string(kUtilisationPercent[i])});
    }
    const Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    const auto round = [&]() -> qint64 {
        Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
        return answer ? answer->value(QLatin1StringView("round")).toInteger(-1) : -1;
    };
    // Warm-up: round 0 runs H steps (no speed known yet) and the next adapts the budget.
    constexpr qint64 kFirst = 3;
    if (!test::waitUntil([&] { return round() >= kFirst; }, 600s))
        return makeError(mode + ": the swarm did not reach round 3 within 10 minutes");
    QElapsedTimer wall;
    wall.start();
    if (!test::waitUntil([&] { return round() >= kFirst + rounds; }, 1800s))
        return makeError(mode + ": the swarm did not finish its rounds within 30 minutes");
    const double seconds = double(wall.elapsed()) / 1000.0;
    for (auto &peer : peers)
        peer->kill(SIGINT);
    coordinator.kill(SIGINT);
    if (const char *logs = std::getenv("SWARMTRAIN_BENCH_LOGS")) {
        std::ofstream(std::string(logs) + "/" + mode + "-coordinator.log") << coordinator.output() << coordinator.errors();
        for (int i = 0; i < kPeers; ++i)
            std::ofstream(std::string(logs) + "/" + mode + "-peer" + std::to_string(i) + ".log")
                << peers[std::size_t(i)]->output() << peers[std::size_t(i)]->errors();
    }

    Result<std::unique_ptr<SqlCoordinatorStore>> store =
        SqlCoordinatorStore::openSqlite(dir.path() / "coordinator" / "coordinator.db");
    if (!store)
        return store.error();
    qint64 tokens = 0;
    for (qint64 r = kFirst; r < kFirst + rounds; ++r) {
        Result<std::optional<RoundRecord>> record = (*store)->round(r);
        if (!record || !*record)
            return makeError(mode + ": round " + std::to_string(r) + " is not in the coordinator's database");
        Result<std::vector<ContributionRecord>> reports = (*store)->contributions(r, (*record)->attempt);
        for (const ContributionRecord &report : reports ? *reports : std::vector<ContributionRecord>{})
            tokens += report.accepted.value_or(false) ? report.tokens : 0;
    }
    std::vector<double> utilisation, steps;
    for (const auto &peer : peers) {
        std::vector<double> u, s;
        for (const auto &[r, line] : roundsOf(*peer)) {
            if (r >= kFirst && r < kFirst + rounds) {
                u.push_back(line.utilisation);
                s.push_back(double(line.steps));
            }
        }
        utilisation.push_back(u.empty() ? 0.0 : median(u));
        steps.push_back(s.empty() ? 0.0 : median(s));
    }
    return nlohmann::json{{"bench", "round_utilisation"},
                          {"rounds", mode},
                          {"speeds", "1:1:2:4 by --max-utilization 25/25/50/100"},
                          {"peer_utilisation", utilisation},
                          {"peer_steps", steps},
                          {"swarm_tokens_per_s", double(tokens) / seconds},
                          {"measured_rounds", rounds},
                          {"wall_s", seconds}};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int rounds = 6;
    int innerSteps = 40;
    CLI::App cli("Peer utilisation and swarm tokens/s with fixed H, time-budgeted and asynchronous rounds, peers at 1:1:2:4.",
                 "swarmtrain_round_utilisation");
    flags::configure(cli);
    cli.add_option("--rounds", rounds, "rounds measured per mode")->transform(flags::wholeNumberIn(1, 1000));
    cli.add_option("--inner-steps", innerSteps, "H")->transform(flags::wholeNumberIn(1, 100'000));
    std::vector<std::string> modes = {"fixed", "budget", "async"};
    cli.add_option("--modes", modes, "which rounds to run")->check(flags::oneOf({"fixed", "budget", "async"}));
    if (Result<void> parsed = flags::parse(cli, std::vector<std::string>(argv + 1, argv + argc)); !parsed) {
        std::cerr << parsed.error().message << "\n";
        return 2;
    }
    std::map<std::string, double> tokensPerSecond;
    for (const std::string &mode : modes) {
        Result<nlohmann::json> figures = runSwarm(mode, rounds, innerSteps);
        if (!figures) {
            std::cerr << figures.error().message << "\n";
            return 1;
        }
        tokensPerSecond[mode] = (*figures)["swarm_tokens_per_s"].get<double>();
        std::cout << figures->dump() << std::endl;
    }
    if (tokensPerSecond.count("fixed") > 0) {
        nlohmann::json ratio{{"bench", "round_utilisation_ratio"}};
        for (const char *mode : {"budget", "async"}) {
            if (tokensPerSecond.count(mode) > 0)
                ratio[std::string(mode) + "_over_fixed_tokens_per_s"] = tokensPerSecond[mode] / tokensPerSecond["fixed"];
        }
        std::cout << ratio.dump() << std::endl;
    }
    return 0;
}
