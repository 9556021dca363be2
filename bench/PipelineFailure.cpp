// A stage peer killed mid-run in pipeline-stage mode (issue 17): 3 stages, two trainers, two peers
// in stages 1 and 2, the trainers reaching the stage peers through the user-space link emulator
// (25 ms and 50 Mbit/s by default). Prints JSON lines: microbatches a second before the kill,
// how long after the kill the hop it held was retried on the other peer, microbatches a second
// while the peer is gone, and, once it is back (a fresh process with its key that takes its
// stage's state from its neighbour), its share of its stage's requests over the next steps.
//   swarmtrain_pipeline_failure [--steps 3] [--microbatches 8]
#include "EmulatedPipeline.h"
#include "TestApplication.h"
#include "Trainer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <QTimer>

#include <chrono>
#include <iostream>

using namespace swarmtrain;

namespace {

using Clock = std::chrono::steady_clock;

struct Setup : bench::EmulatedPipelineSetup {
    int killAfterMs = 300; // into the step the peer is killed in
};

// `count` steps; microbatches a second over them.
Result<double> steps(test::LocalPipeline &swarm, bench::MicrobatchSource &source, int count)
{
    const auto start = Clock::now();
    for (int i = 0; i < count; ++i) {
        if (Result<double> stepped = swarm.step(source.step(2)); !stepped)
            return stepped.error();
    }
    return double(count) * 2 * double(source.perTrainer()) / std::chrono::duration<double>(Clock::now() - start).count();
}

qint64 servedBy(const test::LocalPipeline::Peer &peer) { return peer.server ? peer.server->served() : 0; }

int runMain(int argc, char **argv)
{
    Setup s;
    CLI::App app("A stage peer killed mid-run in pipeline-stage mode, and restarted: retry delay, throughput during "
                 "the outage, the restarted peer's share. Prints JSON lines.",
                 "swarmtrain_pipeline_failure");
    flags::configure(app);
    s.addOptions(app);
    CLI11_PARSE(app, argc, argv);

    test::application();
    configureThreads(1);
    Result<std::unique_ptr<test::LinkEmulator>> emulator = s.startEmulator();
    if (!emulator) {
        std::cerr << emulator.error().message << '\n';
        return 1;
    }
    Result<std::unique_ptr<test::LocalPipeline>> created = test::LocalPipeline::create(s.swarm(**emulator));
    if (!created) {
        std::cerr << created.error().message << '\n';
        return 1;
    }
    test::LocalPipeline &swarm = **created;
    bench::MicrobatchSource source(s);
    const auto fail = [](const std::string &what, const Error &error) {
        std::cerr << what << ": " << error.message << '\n';
        return 1;
    };
    if (Result<double> warm = swarm.step(source.step(2)); !warm)
        return fail("warm-up", warm.error());
    Result<double> before = steps(swarm, source, s.steps);
    if (!before)
        return fail("before", before.error());

    // The kill, in the middle of a step; the first retry of a hop it held.
    test::LocalPipeline::Peer &victim = *swarm.ofStage(1).front();
    const QString victimKey = victim.keyId();
    std::optional<Clock::time_point> killedAt, retriedAt;
    for (auto *trainer : swarm.trainers()) {
        QObject::connect(trainer->driver.get(), &PipelineDriver::hopRetried, trainer->driver.get(),
                         [&](quint64, int, const QString &peer, const QString &) {
                             if (peer == victimKey && killedAt && !retriedAt)
                                 retriedAt = Clock::now();
                         });
    }
    QTimer::singleShot(s.killAfterMs, &test::application(), [&] {
        killedAt = Clock::now();
        swarm.kill(victim);
    });
    if (Result<double> killStep = swarm.step(source.step(2)); !killStep)
        return fail("the step of the kill", killStep.error());
    Result<double> during = steps(swarm, source, s.steps);
    if (!during)
        return fail("during the outage", during.error());

    if (Result<void> back = swarm.restart(victim); !back)
        return fail("restart", back.error());
    const qint64 victimBefore = servedBy(victim);
    qint64 stageBefore = 0;
    for (const auto *peer : swarm.ofStage(1))
        stageBefore += servedBy(*peer);
    Result<double> after = steps(swarm, source, 2);
    if (!after)
        return fail("after the restart", after.error());
    qint64 stageServed = -stageBefore;
    for (const auto *peer : swarm.ofStage(1))
        stageServed += servedBy(*peer);

    nlohmann::json report{{"bench", "pipeline_failure"},
                          {"delay_ms", s.delayMs},
                          {"mbit", s.mbit},
                          {"microbatches_per_s_before", *before},
                          {"microbatches_per_s_during", *during},
                          {"during_over_before", *during / *before},
                          {"microbatches_per_s_after", *after},
                          {"restarted_share_next_2_steps", stageServed > 0 ? double(servedBy(victim) - victimBefore) / double(stageServed) : 0.0}};
    report["retry_after_kill_s"] =
        killedAt && retriedAt ? nlohmann::json(std::chrono::duration<double>(*retriedAt - *killedAt).count()) : nlohmann::json(nullptr);
    std::cout << report.dump() << std::endl;
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    return runMain(argc, argv);
}
