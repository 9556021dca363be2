#pragma once

// What the pipeline benchmarks over emulated links share (PipelineWiring.cpp, PipelineFailure.cpp):
// their model and microbatches, the link emulator and the trainers' routes through it, and the
// common command-line options.

#include "CliFlags.h"
#include "LinkEmulator.h"
#include "LocalPipeline.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <random>
#include <vector>

namespace swarmtrain::bench {

struct EmulatedPipelineSetup {
    ModelConfig model;
    MicrobatchShape shape{4, 128};
    int steps = 3;
    int microbatches = 8; // per trainer and step
    int delayMs = 25;
    double mbit = 50;

    EmulatedPipelineSetup()
    {
        model.vocabSize = 256;
        model.nLayer = 6;
        model.nHead = 4;
        model.nEmbd = 256;
        model.blockSize = 128;
    }

    void addOptions(CLI::App &app)
    {
        app.add_option("--steps", steps, "measured steps")->transform(flags::wholeNumberIn(1, 100000));
        app.add_option("--microbatches", microbatches, "microbatches per trainer and step")->transform(flags::wholeNumberIn(1, 1024));
        app.add_option("--delay-ms", delayMs, "one-way delay of the emulated links")->transform(flags::wholeNumberIn(0, 10000));
        app.add_option("--mbit", mbit, "rate of the emulated links, Mbit/s")->transform(flags::numberIn(0.1, 100000));
    }

    // A started link emulator shaping every link as the options say.
    Result<std::unique_ptr<test::LinkEmulator>> startEmulator() const
    {
        auto emulator = std::make_unique<test::LinkEmulator>();
        if (Result<void> started = emulator->start(); !started)
            return started.error();
        emulator->setDefaultShape({delayMs, qint64(mbit * 1e6 / 8)});
        return emulator;
    }

    // 3 stages, two trainers and two peers a stage, the trainers dialing through `emulator`.
    test::LocalPipeline::Settings swarm(test::LinkEmulator &emulator) const
    {
        test::LocalPipeline::Settings settings;
        settings.config = model;
        settings.stages = 3;
        settings.trainers = 2;
        settings.peersPerStage = 2;
        settings.route = [&emulator](const QString &endpoint) {
            const quint16 port = quint16(endpoint.section(QLatin1Char(':'), -1).toUInt());
            return QStringLiteral("127.0.0.1:%1").arg(emulator.addRelay(QHostAddress::LocalHost, port).value());
        };
        return settings;
    }
};

// Random tokens, `microbatches` a trainer and step, ids never repeating.
class MicrobatchSource {
public:
    explicit MicrobatchSource(const EmulatedPipelineSetup &setup) : m_setup(setup) {}

    int perTrainer() const { return m_setup.microbatches; }

    std::vector<std::vector<Microbatch>> step(int trainers)
    {
        std::vector<std::vector<Microbatch>> batches(static_cast<std::size_t>(trainers));
        const MicrobatchShape shape = m_setup.shape;
        for (auto &trainer : batches) {
            for (int i = 0; i < m_setup.microbatches; ++i) {
                Microbatch batch{m_next++, 0, shape, std::vector<std::int32_t>(shape.tokenCount()),
                                 std::vector<std::int32_t>(shape.tokenCount())};
                for (auto *ids : {&batch.tokens, &batch.targets})
                    for (std::int32_t &v : *ids)
                        v = std::int32_t(m_rng() % unsigned(m_setup.model.vocabSize));
                trainer.push_back(std::move(batch));
            }
        }
        return batches;
    }

private:
    const EmulatedPipelineSetup &m_setup;
    std::mt19937 m_rng{3};
    std::uint64_t m_next = 1;
};

} // namespace swarmtrain::bench
