// A stage peer killed mid-run in pipeline-stage mode (issue 17): 3 stages, two trainers, two peers
// in stages 1 and 2, the trainers reaching the stage peers through the user-space link emulator
// (25 ms and 50 Mbit/s by default). Prints JSON lines: microbatches a second before the kill,
// how long after the kill the hop it held was retried on the other peer, microbatches a second
// while the peer is gone, and, once it is back (a fresh process with its key that takes its
// stage's state from its neighbour), its share of its stage's requests over the next steps.
//   swarmtrain_pipeline_failure [--steps 3] [--microbatches 8]
#include "CliFlags.h"
#include "LinkEmulator.h"
#include "LocalPipeline.h"
#include "TestApplication.h"
#include "Trainer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <QTimer>

#include <chrono>
#include <iostream>
#include <random>

using namespace swarmtrain;

namespace {

using Clock = std::chrono::steady_clock;

struct Setup {
    GptConfig model;
    MicrobatchShape shape{4, 128};
    int steps = 3;
    int microbatches = 8; // per trainer and step
    int delayMs = 25;
    double mbit = 50;
    int killAfterMs = 300; // into the step the peer is killed in
};

class Run {
public:
    Run(const Setup &s, test::LocalPipeline &swarm) : m_s(s), m_swarm(swarm) {}

    // `count` steps; microbatches a second over them.
    Result<double> steps(int count)
    {
        const auto start = Clock::now();
        for (int i = 0; i < count; ++i) {
            if (Result<double> stepped = step(); !stepped)
                return stepped.error();
        }
        return double(count) * 2 * m_s.microbatches / std::chrono::duration<double>(Clock::now() - start).count();
    }

    Result<double> step()
    {
        std::vector<std::vector<Microbatch>> batches(2);
        for (auto &trainer : batches) {
            for (int i = 0; i < m_s.microbatches; ++i) {
                Microbatch batch{m_next++, 0, m_s.shape, std::vector<std::int32_t>(m_s.shape.tokenCount()),
                                 std::vector<std::int32_t>(m_s.shape.tokenCount())};
                for (auto *ids : {&batch.tokens, &batch.targets})
                    for (std::int32_t &v : *ids)
                        v = std::int32_t(m_rng() % unsigned(m_s.model.vocabSize));
                trainer.push_back(std::move(batch));
            }
        }
        return m_swarm.step(batches);
    }

private:
    const Setup &m_s;
    test::LocalPipeline &m_swarm;
    std::mt19937 m_rng{3};
    std::uint64_t m_next = 1;
};

qint64 servedBy(const test::LocalPipeline::Peer &peer) { return peer.server ? peer.server->served() : 0; }

int runMain(int argc, char **argv)
{
    Setup s;
    s.model.vocabSize = 256;
    s.model.nLayer = 6;
    s.model.nHead = 4;
    s.model.nEmbd = 256;
    s.model.blockSize = 128;
    CLI::App app("A stage peer killed mid-run in pipeline-stage mode, and restarted: retry delay, throughput during "
                 "the outage, the restarted peer's share. Prints JSON lines.",
                 "swarmtrain_pipeline_failure");
    flags::configure(app);
    app.add_option("--steps", s.steps, "steps measured before, during and after")->transform(flags::wholeNumberIn(1, 100000));
    app.add_option("--microbatches", s.microbatches, "microbatches per trainer and step")->transform(flags::wholeNumberIn(1, 1024));
    app.add_option("--delay-ms", s.delayMs, "one-way delay of the emulated links")->transform(flags::wholeNumberIn(0, 10000));
    app.add_option("--mbit", s.mbit, "rate of the emulated links, Mbit/s")->transform(flags::numberIn(0.1, 100000));
    CLI11_PARSE(app, argc, argv);

    test::application();
    configureThreads(1);
    test::LinkEmulator emulator;
    if (Result<void> started = emulator.start(); !started) {
        std::cerr << started.error().message << '\n';
        return 1;
    }
    emulator.setDefaultShape({s.delayMs, qint64(s.mbit * 1e6 / 8)});
    test::LocalPipeline::Settings settings;
    settings.config = s.model;
    settings.stages = 3;
    settings.trainers = 2;
    settings.peersPerStage = 2;
    settings.route = [&emulator](const QString &endpoint) {
        const quint16 port = quint16(endpoint.section(QLatin1Char(':'), -1).toUInt());
        return QStringLiteral("127.0.0.1:%1").arg(emulator.addRelay(QHostAddress::LocalHost, port).value());
    };
    Result<std::unique_ptr<test::LocalPipeline>> created = test::LocalPipeline::create(settings);
    if (!created) {
        std::cerr << created.error().message << '\n';
        return 1;
    }
    test::LocalPipeline &swarm = **created;
    Run run(s, swarm);
    const auto fail = [](const std::string &what, const Error &error) {
        std::cerr << what << ": " << error.message << '\n';
        return 1;
    };
    if (Result<double> warm = run.step(); !warm)
        return fail("warm-up", warm.error());
    Result<double> before = run.steps(s.steps);
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
    if (Result<double> killStep = run.step(); !killStep)
        return fail("the step of the kill", killStep.error());
    Result<double> during = run.steps(s.steps);
    if (!during)
        return fail("during the outage", during.error());

    if (Result<void> back = swarm.restart(victim); !back)
        return fail("restart", back.error());
    const qint64 victimBefore = servedBy(victim);
    qint64 stageBefore = 0;
    for (const auto *peer : swarm.ofStage(1))
        stageBefore += servedBy(*peer);
    Result<double> after = run.steps(2);
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
