// What spot checks cost an honest swarm (issue 16: "with no attacker, the default spot-check rate
// costs at most 10% of the swarm's throughput"). A small real swarm on loopback (coordinator and
// N `swarmtrain --headless` processes, the tests' small model) runs with spot checks off, then with
// the coordinator's default rates (0.05 for established members, 0.5 on probation); each run starts
// from fresh identities. After a warm-up (with spot checks: once every peer is past probation, so
// the window shows an established swarm's steady cost), the tokens the coordinator credits over R rounds give the
// throughput; a member that verifies another's work sits its round out, which is the cost. The
// checks are counted from the coordinator's log. Prints JSON lines:
//   {"bench":"spot_check_cost","config":"off"|"default","peers":N,"rounds":R,"seconds":...,
//    "tokens_per_s":...,"rounds_per_min":...,"members_per_round":...,"checks":...,"agreed":...,
//    "refuted":...,"expired":...}
//   {"bench":"spot_check_cost_summary","ratio":default/off,"cost_pct":(1 - ratio) * 100,...}
// Usage: swarmtrain_spot_check_cost [--peers 4] [--min-peers 4] [--rounds 30] [--warmup 3] [--runs 1] [--data FILE]
//        [--probation-rounds P] [--inner-steps H] [--logs DIR]
#include "ChildProcess.h"
#include "CliFlags.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <QCoreApplication>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <regex>
#include <set>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

struct Options {
    int peers = 4;
    std::optional<int> minPeers; // default: every peer, so a member that verifies holds the next round
    int rounds = 30;
    int warmup = 3;
    int runs = 1;
    std::string data; // empty: a generated text
    std::optional<int> probationRounds;
    int innerSteps = 20; // the tests' small swarm's: rounds of about 0.65 s here
    std::string logs; // empty: the runs' logs go with their temporary folders
};

struct Figures {
    qint64 rounds = 0; // closed in the window: the ones asked for, or one more when a poll came late
    double seconds = 0.0;
    qint64 tokens = 0;
    double membersPerRound = 0.0;
    int checks = 0; // assigned to a verifier
    int agreed = 0;
    int refuted = 0;
    int expired = 0;
};

// The coordinator's view at one moment: its round and the tokens credited to everyone so far.
struct Snapshot {
    qint64 round = 0;
    qint64 tokens = 0;
    std::chrono::steady_clock::time_point at;
};

std::optional<Snapshot> snapshot(CoordinatorClient &status)
{
    const Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
    const Result<StatusAnswer> decoded = answer ? StatusAnswer::fromJson(*answer) : Result<StatusAnswer>(answer.error());
    if (!decoded)
        return std::nullopt;
    // The leaderboard lists 20 peers, more than a benchmark swarm has, so its sum is everyone's.
    qint64 tokens = 0;
    for (const StatusAnswer::Leader &leader : decoded->leaderboard)
        tokens += leader.tokens;
    return Snapshot{decoded->round, tokens, std::chrono::steady_clock::now()};
}

int countMatches(const std::string &text, const std::regex &pattern)
{
    return int(std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
}

// Spot checks and round sizes in the part of the coordinator's log written during the window.
void countFromLog(const std::string &log, qint64 firstRound, qint64 endRound, Figures &figures)
{
    static const std::regex assigned("will check the work of");
    static const std::regex unassigned("\\(no one free yet\\)\\\"? will check the work of");
    static const std::regex agreed("spot check of \\S+ by \\S+ : agreed");
    static const std::regex refuted("spot check of \\S+ by \\S+ : refuted");
    static const std::regex expired("spot check of \\S+ by \\S+ : expired");
    figures.checks = countMatches(log, assigned) - countMatches(log, unassigned);
    figures.agreed = countMatches(log, agreed);
    figures.refuted = countMatches(log, refuted);
    figures.expired = countMatches(log, expired);
    static const std::regex done("round (\\d+) done: (\\d+) reports");
    qint64 rounds = 0, reports = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), done); it != std::sregex_iterator(); ++it) {
        const qint64 round = std::stoll((*it)[1].str());
        if (round >= firstRound && round < endRound) {
            ++rounds;
            reports += std::stoll((*it)[2].str());
        }
    }
    figures.membersPerRound = rounds > 0 ? double(reports) / double(rounds) : 0.0;
}

// Peers with a spot check agreed in the coordinator's log: past probation once they agreed with
// enough rounds, too.
int establishedPeers(const std::string &log)
{
    static const std::regex agreed("spot check of (\\S+) by \\S+ : agreed");
    std::set<std::string> keys;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), agreed); it != std::sregex_iterator(); ++it)
        keys.insert((*it)[1].str());
    return int(keys.size());
}

// The coordinator's and the peers' output, copied to `to` before the run's folder goes.
void keepLogs(const std::filesystem::path &from, const std::filesystem::path &to)
{
    std::error_code ec;
    std::filesystem::create_directories(to, ec);
    for (const auto &entry : std::filesystem::directory_iterator(from, ec)) {
        const std::string extension = entry.path().extension().string();
        if (extension == ".out" || extension == ".err")
            std::filesystem::copy_file(entry.path(), to / entry.path().filename(),
                                       std::filesystem::copy_options::overwrite_existing, ec);
    }
}

Result<Figures> runSwarm(const Options &options, bool spotChecks, int run)
{
    const std::string config = spotChecks ? "default" : "off";
    test::TempDir dir;
    const std::filesystem::path data =
        options.data.empty() ? dir.write("data.txt", test::generatedText(400'000)) : std::filesystem::path(options.data);
    test::ChildProcess coordinator;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", data);
    args.insert(args.end(), {"--min-peers", std::to_string(options.minPeers.value_or(options.peers))});
    if (spotChecks) {
        // The coordinator's defaults (TrustSettings), given after smallSwarmFlags' zeros.
        args.insert(args.end(), {"--spot-check-rate", "0.05", "--spot-check-rate-new", "0.5"});
    }
    if (options.probationRounds)
        args.insert(args.end(), {"--probation-rounds", std::to_string(*options.probationRounds)});
    args.insert(args.end(), {"--inner-steps", std::to_string(options.innerSteps)});
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    std::vector<std::unique_ptr<test::ChildProcess>> peers;
    for (int i = 0; i < options.peers; ++i) {
        const std::string name = "peer" + std::to_string(i);
        peers.push_back(std::make_unique<test::ChildProcess>());
        peers.back()->start(SWARMTRAIN_CLIENT,
                            {"--headless", "--swarm", url, "--state-dir", (dir.path() / name).string(), "--listen",
                             "127.0.0.1:0", "--threads", "1", "--device", "cpu"},
                            dir.path() / (name + ".out"), dir.path() / (name + ".err"));
    }
    const auto stop = [&] {
        for (auto &peer : peers)
            peer->kill(SIGINT);
        coordinator.kill(SIGTERM);
        if (!options.logs.empty())
            keepLogs(dir.path(), std::filesystem::path(options.logs) / (config + "-" + std::to_string(run)));
    };

    const Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(url), {}, 20, 100, 1000});
    const auto reach = [&](qint64 round, std::chrono::milliseconds timeout) {
        std::optional<Snapshot> seen;
        test::waitUntil(
            [&] {
                seen = snapshot(status);
                return seen && seen->round >= round;
            },
            timeout);
        return seen && seen->round >= round ? seen : std::nullopt;
    };
    // With spot checks, the window opens once every peer is past probation (one of its rounds
    // recomputed and agreed): what is measured is an established swarm's steady cost, not how
    // fast newcomers are checked in.
    const bool settled = !spotChecks || test::waitUntil([&] { return establishedPeers(coordinator.errors()) >= options.peers; },
                                                        std::chrono::minutes(2) * (options.warmup + 10));
    const std::optional<Snapshot> warm = settled ? reach(options.warmup, 600s) : std::nullopt;
    const std::optional<Snapshot> start = warm ? reach(warm->round + 1, 600s) : std::nullopt;
    const std::size_t logStart = coordinator.errors().size();
    const std::optional<Snapshot> end =
        start ? reach(start->round + options.rounds, std::chrono::minutes(2) * options.rounds) : std::nullopt;
    if (!start || !end) {
        const std::string log = coordinator.errors();
        stop();
        return makeError(config + ": the swarm did not reach round "
                         + std::to_string(start ? start->round + options.rounds : options.warmup)
                         + " in time; the coordinator's log ends:\n"
                         + log.substr(log.size() - std::min<std::size_t>(log.size(), 4000)));
    }
    Figures figures;
    figures.rounds = end->round - start->round;
    figures.seconds = std::chrono::duration<double>(end->at - start->at).count();
    figures.tokens = end->tokens - start->tokens;
    countFromLog(coordinator.errors().substr(logStart), start->round, end->round, figures);
    stop();
    return figures;
}

nlohmann::json report(const Options &options, const std::string &config, const Figures &figures)
{
    return {{"bench", "spot_check_cost"},
            {"config", config},
            {"peers", options.peers},
            {"min_peers", options.minPeers.value_or(options.peers)},
            {"inner_steps", options.innerSteps},
            {"rounds", figures.rounds},
            {"seconds", figures.seconds},
            {"tokens", figures.tokens},
            {"tokens_per_s", double(figures.tokens) / figures.seconds},
            {"rounds_per_min", double(figures.rounds) * 60.0 / figures.seconds},
            {"members_per_round", figures.membersPerRound},
            {"checks", figures.checks},
            {"agreed", figures.agreed},
            {"refuted", figures.refuted},
            {"expired", figures.expired}};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options options;
    CLI::App cli("What the default spot-check rates cost an honest swarm's throughput, against no spot checks.",
                 "swarmtrain_spot_check_cost");
    flags::configure(cli);
    cli.add_option("--peers", options.peers, "honest headless clients in the swarm")
        ->transform(flags::wholeNumberIn(2, 32));
    cli.add_option("--min-peers", options.minPeers, "peers a round needs to start (default: --peers)")
        ->transform(flags::wholeNumberIn(1, 32));
    cli.add_option("--rounds", options.rounds, "rounds timed per run, after the warm-up")
        ->transform(flags::wholeNumberIn(1, 1000));
    cli.add_option("--warmup", options.warmup, "rounds before timing starts")->transform(flags::wholeNumberIn(0, 1000));
    cli.add_option("--runs", options.runs, "off/default pairs, run alternately")
        ->transform(flags::wholeNumberIn(1, 100));
    cli.add_option("--data", options.data, "training text (default: a generated one)")->type_name("FILE");
    cli.add_option("--probation-rounds", options.probationRounds, "passed to the coordinator (default: its own)")
        ->transform(flags::wholeNumberIn(0, 1'000'000));
    cli.add_option("--inner-steps", options.innerSteps, "inner steps a round (longer rounds)")
        ->transform(flags::wholeNumberIn(1, 100'000));
    cli.add_option("--logs", options.logs, "keep each run's logs in DIR/<config>-<run>")->type_name("DIR");
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << cli.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(cli, args); !parsed) {
        std::cerr << "swarmtrain_spot_check_cost: error: " << parsed.error().message << "\n";
        return 2;
    }
    std::map<std::string, std::vector<double>> tokensPerSecond;
    std::vector<double> pairRatios;
    int refuted = 0;
    for (int run = 0; run < options.runs; ++run) {
        for (const bool spotChecks : {false, true}) {
            const std::string config = spotChecks ? "default" : "off";
            Result<Figures> figures = runSwarm(options, spotChecks, run);
            if (!figures) {
                std::cerr << figures.error().message << "\n";
                return 1;
            }
            refuted += figures->refuted;
            tokensPerSecond[config].push_back(double(figures->tokens) / figures->seconds);
            std::cout << report(options, config, *figures).dump() << std::endl;
        }
        pairRatios.push_back(tokensPerSecond["default"].back() / tokensPerSecond["off"].back());
    }
    const auto mean = [](const std::vector<double> &values) {
        return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    };
    const double ratio = mean(tokensPerSecond["default"]) / mean(tokensPerSecond["off"]);
    std::cout << nlohmann::json{{"bench", "spot_check_cost_summary"},
                                {"peers", options.peers},
                                {"min_peers", options.minPeers.value_or(options.peers)},
                                {"inner_steps", options.innerSteps},
                                {"rounds", options.rounds},
                                {"runs", options.runs},
                                {"off_tokens_per_s", mean(tokensPerSecond["off"])},
                                {"default_tokens_per_s", mean(tokensPerSecond["default"])},
                                {"ratio", ratio},
                                {"cost_pct", (1.0 - ratio) * 100.0},
                                {"pair_ratios", pairRatios},
                                {"refuted_honest", refuted}}
                     .dump()
              << std::endl;
    return 0;
}
