// Rebalancing in a real pipeline swarm (issue 17): swarmtrain-coordinator --mode pipeline and six
// `swarmtrain --headless` processes, each held to the same CPU quota (a cgroup v1 cpu group of its
// own: six equal peers on one machine), on loopback. Three runs of `--periods` rebalancing periods:
//   rebalanced  peers placed 1 / 1 / 4 (--place), the coordinator moving them;
//   unbalanced  the same placement, no moves;
//   balanced    placed 2 / 2 / 2, no moves.
// Prints one JSON line a period (placement, moves so far, microbatches a second) and one a run.
// Needs root (the cgroups) and the built coordinator and client.
#include "ChildProcess.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "CpuQuota.h"
#include "Identity.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <QThread>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>

using namespace swarmtrain;
using bench::CpuQuota;
using test::ChildProcess;

namespace {

constexpr int kPeers = 6;

struct Setup {
    std::filesystem::path data = "../shared/data/tinyshakespeare.txt";
    double share = 0.3;      // of a core, each peer
    double periodSeconds = 20;
    int periods = 10;
    int microbatches = 24;   // a step's
    int microbatchSize = 4;  // sequences
    int width = 256;
};

struct Period {
    std::vector<int> placement; // peers per stage at its end
    double microbatchesPerSecond = 0.0;
    int changes = 0;            // placements seen during it
};

std::vector<int> placementOf(const PipelineStatus &status)
{
    std::vector<int> counts;
    for (const PipelineStatus::Stage &stage : status.stages)
        counts.push_back(int(stage.peers.size()));
    return counts;
}

Result<std::vector<Period>> run(const Setup &s, const std::string &name, const std::vector<int> &stages, bool rebalance,
                                const std::vector<CpuQuota> &quotas)
{
    test::TempDir dir;
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", s.data);
    const std::vector<std::string> pipeline = {
        "--mode", "pipeline", "--stages", "3", "--min-peers", std::to_string(kPeers), "--n-layer", "3", "--n-head", "4",
        "--n-embd", std::to_string(s.width), "--block-size", "64", "--microbatches-per-step", std::to_string(s.microbatches),
        "--microbatch-size", std::to_string(s.microbatchSize), "--eval-every", "0", "--shard-tokens", "65536",
        "--rebalance-seconds", rebalance ? std::to_string(s.periodSeconds) : std::string("86400")};
    args.insert(args.end(), pipeline.begin(), pipeline.end());
    std::vector<std::filesystem::path> stateDirs;
    for (int i = 0; i < kPeers; ++i) {
        stateDirs.push_back(dir.path() / ("peer" + std::to_string(i)));
        std::filesystem::create_directories(stateDirs.back());
        Result<Identity> identity = Identity::loadOrCreate(stateDirs.back() / "identity.pem");
        if (!identity)
            return identity.error();
        args.insert(args.end(), {"--place", identity->keyId().toStdString() + "=" + std::to_string(stages[std::size_t(i)])});
    }
    ChildProcess coordinator;
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    std::vector<std::unique_ptr<ChildProcess>> peers;
    for (int i = 0; i < kPeers; ++i) {
        peers.push_back(std::make_unique<ChildProcess>());
        const std::vector<std::string> client = {"--headless", "--swarm", url.toStdString(), "--state-dir", stateDirs[std::size_t(i)].string(),
                                                 "--listen", "127.0.0.1:0", "--threads", "1"};
        if (!peers.back()->start(SWARMTRAIN_CLIENT, client, dir.path() / ("peer" + std::to_string(i) + ".out"),
                                 dir.path() / ("peer" + std::to_string(i) + ".err"))
            || !quotas[std::size_t(i)].addProcess(peers.back()->pid()))
            return makeError("cannot start peer " + std::to_string(i) + " in its CPU quota");
    }
    Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    const auto pipelineStatus = [&]() -> std::optional<PipelineStatus> {
        Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
        Result<StatusAnswer> decoded = answer ? StatusAnswer::fromJson(*answer) : Result<StatusAnswer>(answer.error());
        return decoded ? decoded->pipeline : std::nullopt;
    };
    // Periods count from the swarm's first step; the placement is sampled every second, so a move
    // shows in the period it happened in.
    if (!test::waitUntil([&] { const auto p = pipelineStatus(); return p && p->step >= 1; }, std::chrono::minutes(5)))
        return makeError("the swarm did not train: " + coordinator.errors());
    std::vector<Period> periods;
    std::vector<int> placement = placementOf(*pipelineStatus());
    for (int p = 0; p < s.periods; ++p) {
        const auto before = pipelineStatus();
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::vector<int>> seen;
        while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(s.periodSeconds)) {
            QThread::msleep(1000);
            if (const auto now = pipelineStatus(); now && placementOf(*now) != placement)
                seen.push_back(placement = placementOf(*now));
        }
        const auto after = pipelineStatus();
        if (!before || !after)
            return makeError("the coordinator stopped answering");
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        Period period{placement, double(after->step - before->step) * s.microbatches / seconds, int(seen.size())};
        periods.push_back(period);
        std::cout << nlohmann::json{{"run", name}, {"period", p + 1}, {"placement", period.placement}, {"placement_changes", seen},
                                    {"microbatches_per_s", period.microbatchesPerSecond}}
                         .dump()
                  << std::endl;
    }
    return periods;
}

double lastMean(const std::vector<Period> &periods, int count)
{
    double sum = 0.0;
    const int n = std::min<int>(count, int(periods.size()));
    for (int i = int(periods.size()) - n; i < int(periods.size()); ++i)
        sum += periods[std::size_t(i)].microbatchesPerSecond;
    return n > 0 ? sum / n : 0.0;
}

} // namespace

int main(int argc, char **argv)
{
    Setup s;
    CLI::App app("Rebalancing in a real pipeline swarm: 6 equal peers from 1/1/4, against no moves and a static 2/2/2.");
    app.add_option("--data", s.data, "training text");
    app.add_option("--share", s.share, "each peer's CPU quota, in cores");
    app.add_option("--period", s.periodSeconds, "seconds between the coordinator's moves");
    app.add_option("--periods", s.periods, "periods each run measures");
    app.add_option("--microbatches", s.microbatches, "microbatches a step");
    app.add_option("--width", s.width, "the model's width (n_embd)");
    CLI11_PARSE(app, argc, argv);
    test::application();
    std::vector<CpuQuota> quotas;
    for (int i = 0; i < kPeers; ++i) {
        Result<CpuQuota> quota = CpuQuota::create("swarmtrain-rebalance-" + std::to_string(i), s.share);
        if (!quota) {
            std::cerr << quota.error().message << std::endl;
            return 2;
        }
        quotas.push_back(std::move(*quota));
    }
    const std::vector<int> skewed = {0, 1, 2, 2, 2, 2};
    const std::vector<int> even = {0, 0, 1, 1, 2, 2};
    Result<std::vector<Period>> rebalanced = run(s, "rebalanced", skewed, true, quotas);
    Result<std::vector<Period>> unbalanced = rebalanced ? run(s, "unbalanced", skewed, false, quotas) : rebalanced;
    Result<std::vector<Period>> balanced = unbalanced ? run(s, "balanced", even, false, quotas) : unbalanced;
    if (!balanced) {
        std::cerr << balanced.error().message << std::endl;
        return 1;
    }
    // When the placement first reached 2 / 2 / 2, and whether it moved after.
    int reached = -1, movesAfter = 0;
    for (std::size_t p = 0; p < rebalanced->size(); ++p) {
        if (reached > 0)
            movesAfter += (*rebalanced)[p].changes;
        else if ((*rebalanced)[p].placement == std::vector<int>{2, 2, 2})
            reached = int(p) + 1;
    }
    const double rebalancedRate = lastMean(*rebalanced, 3);
    std::cout << nlohmann::json{{"summary", "rebalancing"},
                                {"reached_2_2_2_in_period", reached},
                                {"placement_changes_after", movesAfter},
                                {"rebalanced_microbatches_per_s", rebalancedRate},
                                {"unbalanced_microbatches_per_s", lastMean(*unbalanced, 3)},
                                {"balanced_microbatches_per_s", lastMean(*balanced, 3)},
                                {"over_unbalanced", rebalancedRate / std::max(1e-9, lastMean(*unbalanced, 3))},
                                {"over_balanced", rebalancedRate / std::max(1e-9, lastMean(*balanced, 3))}}
                     .dump()
              << std::endl;
    return 0;
}
