// SWARM's stochastic wiring against fixed pipelines (issue 17): 3 stages, two trainers and two
// peers in stages 1 and 2, one fast and one slowed by a CPU quota (a cgroup v1 `cpu` group holding
// its stage thread), the trainers reaching the stage peers through the user-space link emulator
// (25 ms and 50 Mbit/s by default). Stochastic: both trainers choose among both peers of every
// stage (HopChooser). Fixed: trainer i always uses peer i. Prints JSON lines: microbatches a second
// and each fast peer's share of its stage's requests, for each wiring, then their ratio. Needs
// root and the cgroup v1 cpu controller at /sys/fs/cgroup/cpu.
//   swarmtrain_pipeline_wiring [--steps 6] [--microbatches 8] [--slow-share 0.33]
#include "CpuQuota.h"
#include "EmulatedPipeline.h"
#include "TestApplication.h"
#include "Trainer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <unistd.h>

using namespace swarmtrain;
using bench::CpuQuota;

namespace {

struct Setup : bench::EmulatedPipelineSetup {
    double slowShare = 1.0 / 3.0;
};

struct RunResult {
    double microbatchesPerSecond = 0;
    std::vector<double> fastShare; // stages 1 and 2
    double utilisation = 0;        // the peers' compute time over their wall time, on average
};

// `quota`: the group that slows peer 1 of stages 1 and 2; none: every peer runs free.
Result<RunResult> run(const Setup &s, bool fixed, test::LinkEmulator &emulator, const CpuQuota *quota)
{
    test::LocalPipeline::Settings settings = s.swarm(emulator);
    settings.fixedWiring = fixed;
    Result<std::unique_ptr<test::LocalPipeline>> created = test::LocalPipeline::create(settings);
    if (!created)
        return created.error();
    test::LocalPipeline &swarm = **created;
    // Peer 1 of stages 1 and 2 is the slow one.
    for (int stage = 1; stage <= 2 && quota; ++stage) {
        StageWorker &slow = swarm.ofStage(stage)[1]->worker();
        const int tid = test::onStage(slow, [](PipelineStage &) { return int(gettid()); });
        if (!quota->add(tid))
            return makeError("cannot move the slow peer's thread into the cpu group");
    }
    bench::MicrobatchSource source(s);
    const auto step = [&] { return swarm.step(source.step(2)); };
    if (Result<double> warm = step(); !warm) // connections and first measurements
        return warm.error();
    std::vector<qint64> servedBefore;
    double busyBefore = 0;
    for (const auto &peer : swarm.peers()) {
        servedBefore.push_back(peer->server ? peer->server->served() : 0);
        busyBefore += peer->worker().busySeconds();
    }
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < s.steps; ++i) {
        if (Result<double> stepped = step(); !stepped)
            return stepped.error();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RunResult result;
    result.microbatchesPerSecond = double(s.steps) * 2 * s.microbatches / seconds;
    double busy = -busyBefore;
    for (const auto &peer : swarm.peers())
        busy += peer->worker().busySeconds();
    result.utilisation = busy / (seconds * double(swarm.peers().size()));
    for (int stage = 1; stage <= 2; ++stage) {
        double fast = 0, all = 0;
        for (std::size_t i = 0; i < swarm.peers().size(); ++i) {
            const auto &peer = swarm.peers()[i];
            if (peer->stage != stage)
                continue;
            const double served = double(peer->server->served() - servedBefore[i]);
            all += served;
            fast += peer.get() == swarm.ofStage(stage)[0] ? served : 0;
        }
        result.fastShare.push_back(all > 0 ? fast / all : 0);
    }
    return result;
}

// SWARM's square-cube premise: a block's compute grows with width squared, what it sends with
// width, so over the same links wider models keep their peers busier.
int reportUtilisation(Setup s)
{
    Result<std::unique_ptr<test::LinkEmulator>> emulator = s.startEmulator();
    if (!emulator) {
        std::cerr << emulator.error().message << '\n';
        return 1;
    }
    for (const int width : {128, 256, 512}) {
        s.model.nEmbd = width;
        Result<RunResult> result = run(s, false, **emulator, nullptr);
        if (!result) {
            std::cerr << "width " << width << ": " << result.error().message << '\n';
            return 1;
        }
        std::cout << nlohmann::json{{"bench", "pipeline_utilisation"}, {"n_embd", width}, {"delay_ms", s.delayMs},
                                    {"mbit", s.mbit}, {"microbatches_per_s", result->microbatchesPerSecond},
                                    {"utilisation", result->utilisation}}
                         .dump()
                  << std::endl;
    }
    return 0;
}

int runMain(int argc, char **argv)
{
    Setup s;
    CLI::App app("Stochastic wiring against fixed pipelines: 3 stages, a fast and a CPU-quota-slowed peer in stages 1 "
                 "and 2, over emulated links. Prints JSON lines.",
                 "swarmtrain_pipeline_wiring");
    flags::configure(app);
    s.addOptions(app);
    app.add_option("--slow-share", s.slowShare, "the slow peers' CPU quota, in cores")->transform(flags::numberIn(0.01, 1));
    app.add_option("--n-embd", s.model.nEmbd, "embedding width")->transform(flags::wholeNumberIn(16, 8192));
    app.add_option("--n-layer", s.model.nLayer, "transformer blocks")->transform(flags::wholeNumberIn(2, 96));
    bool utilisation = false;
    app.add_flag("--utilisation", utilisation,
                 "instead: no slow peers, stochastic wiring at widths 128, 256 and 512, and the peers' compute time over "
                 "wall time (the square-cube effect)");
    CLI11_PARSE(app, argc, argv);

    test::application();
    configureThreads(1); // each peer computes on its own stage thread, which the quota can hold
    if (utilisation)
        return reportUtilisation(s);
    Result<CpuQuota> quota = CpuQuota::create("swarmtrain-pipeline-wiring", s.slowShare);
    if (!quota) {
        std::cerr << quota.error().message << '\n';
        return 1;
    }
    Result<std::unique_ptr<test::LinkEmulator>> emulator = s.startEmulator();
    if (!emulator) {
        std::cerr << emulator.error().message << '\n';
        return 1;
    }
    nlohmann::json summary{{"bench", "pipeline_wiring"}, {"summary", true}, {"delay_ms", s.delayMs}, {"mbit", s.mbit},
                           {"slow_share", s.slowShare}, {"n_embd", s.model.nEmbd}};
    std::map<std::string, double> throughput;
    for (const bool fixed : {false, true}) {
        const std::string wiring = fixed ? "fixed" : "stochastic";
        Result<RunResult> result = run(s, fixed, **emulator, &*quota);
        if (!result) {
            std::cerr << wiring << ": " << result.error().message << '\n';
            return 1;
        }
        throughput[wiring] = result->microbatchesPerSecond;
        std::cout << nlohmann::json{{"bench", "pipeline_wiring"}, {"wiring", wiring},
                                    {"microbatches_per_s", result->microbatchesPerSecond},
                                    {"fast_share_stage1", result->fastShare[0]}, {"fast_share_stage2", result->fastShare[1]}}
                         .dump()
                  << std::endl;
    }
    summary["stochastic_over_fixed"] = throughput["stochastic"] / throughput["fixed"];
    std::cout << summary.dump() << std::endl;
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}
