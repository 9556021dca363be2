// The all-reduce's ranges sized by bandwidth against equal ranges (issue 15): a 4-peer swarm on
// loopback where one peer's access link (all its connections together, as a home line) carries a
// quarter of the others', through the user-space link emulator: its upload only (the usual home
// line), or both ways. Each configuration runs its own swarm (coordinator and four `swarmtrain
// --headless` processes); once every link is measured, the time each round's all-reduce took is
// read from the peers' round lines (the slowest member's, per round). Prints JSON lines:
//   {"bench":"allreduce_ranges","slow":"upload"|"both","split":"equal"|"bandwidth","rounds":N,
//    "median_allreduce_s":...,"slow_peer_share":...,"measured_links_bytes_per_s":{...}}
//   {"bench":"allreduce_ranges_ratio","slow":...,"bandwidth_over_equal":...}
// Usage: swarmtrain_allreduce_ranges [--rounds N] [--fast-bytes-per-s B] [--delay-ms D]
#include "ChildProcess.h"
#include "CliFlags.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "Statistics.h"
#include "LinkEmulator.h"
#include "SqlCoordinatorStore.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <QCoreApplication>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <regex>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

constexpr int kPeers = 4;
constexpr int kSlowPeer = 3;
constexpr quint16 kPeerPort = 47'411;

QHostAddress peerAddress(int i) { return QHostAddress(QStringLiteral("127.0.1.%1").arg(20 + i)); }

struct Figures {
    std::vector<double> allReduceSeconds; // per round, the slowest member's
    double slowPeerShare = 0.0;           // of the parameter vector, in the last round seen
    nlohmann::json links;                 // measured: "from->to": bytes/s
};

// round -> the longest "averaged in" of the peers that printed that round.
std::map<long long, double> averagingByRound(const std::vector<std::unique_ptr<test::ChildProcess>> &peers)
{
    static const std::regex line("round (\\d+) done: 4 members, .* averaged in ([0-9.]+) s");
    std::map<long long, double> rounds;
    for (const auto &peer : peers) {
        const std::string out = peer->output();
        for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
            rounds[std::stoll((*it)[1].str())] = std::max(rounds[std::stoll((*it)[1].str())], std::stod((*it)[2].str()));
    }
    return rounds;
}

Result<Figures> runSwarm(const std::string &split, int rounds, test::LinkEmulator &emulator)
{
    test::TempDir dir;
    dir.write("data.txt", test::generatedText(200'000));
    test::ChildProcess coordinator;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    args.insert(args.end(), {"--n-layer", "4", "--n-head", "4", "--n-embd", "256", "--inner-steps", "2",
                             "--min-peers", "4", "--range-split", split, "--round-deadline", "120"});
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    std::vector<std::unique_ptr<test::ChildProcess>> peers;
    for (int i = 0; i < kPeers; ++i) {
        Result<quint16> relay = emulator.addRelay(peerAddress(i), kPeerPort);
        if (!relay)
            return relay.error();
        const std::string name = "peer" + std::to_string(i);
        peers.push_back(std::make_unique<test::ChildProcess>());
        test::startHeadlessPeer(*peers.back(), SWARMTRAIN_CLIENT, url, dir.path(), name,
                                {"--listen", peerAddress(i).toString().toStdString() + ":" + std::to_string(kPeerPort),
                                 "--announce", "127.0.0.1:" + std::to_string(*relay)});
    }
    const Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    // Rounds count once every link is measured: before that, ranges are equal either way.
    long long firstRound = -1;
    const bool measured = test::waitUntil(
        [&] {
            Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/schedule"));
            Result<ScheduleAnswer> s = answer ? ScheduleAnswer::fromJson(*answer) : Result<ScheduleAnswer>(answer.error());
            if (!s || s->linksMeasured < kPeers * (kPeers - 1))
                return false;
            const std::map<long long, double> done = averagingByRound(peers);
            firstRound = done.empty() ? 0 : done.rbegin()->first + 2;
            return true;
        },
        300s);
    if (!measured)
        return makeError("the links were not measured within 5 minutes");
    const bool finished = test::waitUntil(
        [&] {
            const std::map<long long, double> done = averagingByRound(peers);
            return std::count_if(done.begin(), done.end(), [&](const auto &r) { return r.first >= firstRound; }) >= rounds;
        },
        600s);
    if (!finished)
        return makeError(split + ": the swarm did not finish its rounds within 10 minutes");
    Figures figures;
    for (const auto &[round, seconds] : averagingByRound(peers)) {
        if (round >= firstRound)
            figures.allReduceSeconds.push_back(seconds);
    }
    for (auto &peer : peers)
        peer->kill(SIGINT);
    coordinator.kill(SIGINT);
    // The slow peer's share of the last round's parameter vector, from the coordinator's database.
    Result<std::unique_ptr<SqlCoordinatorStore>> store =
        SqlCoordinatorStore::openSqlite(dir.path() / "coordinator" / "coordinator.db");
    const QString slowKey = Identity::loadOrCreate(dir.path() / "peer3" / "identity.pem")->keyId();
    std::map<QString, int> index;
    for (int i = 0; i < kPeers; ++i)
        index[Identity::loadOrCreate(dir.path() / ("peer" + std::to_string(i)) / "identity.pem")->keyId()] = i;
    if (store) {
        const Result<std::vector<LinkRecord>> links = (*store)->links(0);
        for (const LinkRecord &link : links ? *links : std::vector<LinkRecord>{}) {
            figures.links[std::to_string(index[link.fromKeyId]) + "->" + std::to_string(index[link.toKeyId])] =
                link.bytesPerSecond;
        }
        if (Result<std::optional<RoundRecord>> last = (*store)->round(firstRound + rounds - 1); last && *last) {
            qint64 total = 0, slow = 0;
            for (const RoundMember &member : (*last)->members) {
                total += member.end - member.begin;
                slow += member.keyId == slowKey ? member.end - member.begin : 0;
            }
            figures.slowPeerShare = total > 0 ? double(slow) / double(total) : 0.0;
        }
    }
    return figures;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int rounds = 6;
    double fastBytesPerSecond = 8e6;
    int delayMs = 5;
    CLI::App cli("The all-reduce's ranges by bandwidth against equal ranges, one peer on a quarter of the bandwidth.",
                 "swarmtrain_allreduce_ranges");
    flags::configure(cli);
    cli.add_option("--rounds", rounds, "rounds timed per configuration")->transform(flags::wholeNumberIn(1, 1000));
    cli.add_option("--fast-bytes-per-s", fastBytesPerSecond, "the fast peers' access rate; the slow peer's is a quarter")
        ->transform(flags::numberIn(1e4, 1e10));
    cli.add_option("--delay-ms", delayMs, "one-way delay of every link")->transform(flags::wholeNumberIn(0, 10'000));
    if (Result<void> parsed = flags::parse(cli, std::vector<std::string>(argv + 1, argv + argc)); !parsed) {
        std::cerr << parsed.error().message << "\n";
        return 2;
    }
    test::LinkEmulator emulator;
    if (Result<void> started = emulator.start(); !started) {
        std::cerr << started.error().message << "\n";
        return 1;
    }
    emulator.setDefaultShape({delayMs, 0});
    const qint64 fast = qint64(fastBytesPerSecond);
    for (const std::string slow : {"upload", "both"}) {
        for (int i = 0; i < kPeers; ++i) {
            const bool slowPeer = i == kSlowPeer;
            emulator.setAccessRate(peerAddress(i), slowPeer ? fast / 4 : fast, slowPeer && slow == "both" ? fast / 4 : fast);
        }
        std::map<std::string, double> medians;
        for (const std::string split : {"equal", "bandwidth"}) {
            Result<Figures> figures = runSwarm(split, rounds, emulator);
            if (!figures) {
                std::cerr << figures.error().message << "\n";
                return 1;
            }
            medians[split] = median(figures->allReduceSeconds);
            std::cout << nlohmann::json{{"bench", "allreduce_ranges"},
                                        {"slow", slow},
                                        {"split", split},
                                        {"rounds", figures->allReduceSeconds.size()},
                                        {"allreduce_s", figures->allReduceSeconds},
                                        {"median_allreduce_s", medians[split]},
                                        {"slow_peer_share", figures->slowPeerShare},
                                        {"measured_links_bytes_per_s", figures->links},
                                        {"fast_bytes_per_s", fastBytesPerSecond},
                                        {"slow_bytes_per_s", fastBytesPerSecond / 4}}
                             .dump()
                      << std::endl;
        }
        std::cout << nlohmann::json{{"bench", "allreduce_ranges_ratio"},
                                    {"slow", slow},
                                    {"bandwidth_over_equal", medians["bandwidth"] / medians["equal"]}}
                         .dump()
                  << std::endl;
    }
    return 0;
}
