// Which mode when (issue 17, ATOM's headline): the same model trained by the same 4 headless peers
// as whole swapped copies (full-model mode, DiLoCo rounds) and as a 2-stage pipeline (SWARM), on
// plain loopback and through the user-space link emulator (tests/support/LinkEmulator) with every
// peer-to-peer link at --delay-ms one way and --mbit Mbit/s. Each run trains for --seconds once the
// swarm's first step or round is done; prints one JSON line a run: tokens a second over that time
// and the validation loss at its end (the coordinator's for full-model states, the trainers' through
// the pipeline for pipeline steps, on the same held-back text).
#include "ChildProcess.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "LinkEmulator.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <QThread>

#include <iostream>
#include <memory>

using namespace swarmtrain;
using test::ChildProcess;

namespace {

constexpr int kPeers = 4;
constexpr int kPeerPort = 47100;

struct Setup {
    std::filesystem::path data = "../shared/data/tinyshakespeare.txt";
    double seconds = 120;
    int delayMs = 100;
    double mbit = 100;
    int block = 64;
};

struct Outcome {
    double tokensPerSecond = 0.0;
    double validationLoss = -1.0;
};

QHostAddress peerAddress(int i) { return QHostAddress(QStringLiteral("127.0.31.%1").arg(i + 1)); }

// Tokens trained so far and the latest validation loss, from GET /v1/status.
std::pair<qint64, double> progress(const StatusAnswer &status, const Setup &s, int microbatchSize, int microbatches)
{
    if (status.pipeline) {
        double loss = -1.0;
        for (const PipelineStatus::Step &step : status.pipeline->history) {
            if (step.evalLoss >= 0)
                loss = step.evalLoss;
        }
        return {status.pipeline->step * qint64(microbatches) * microbatchSize * s.block, loss};
    }
    qint64 tokens = 0;
    for (const StatusAnswer::Leader &leader : status.leaderboard)
        tokens += leader.tokens;
    const double loss = status.validationLossHistory.empty() ? -1.0 : status.validationLossHistory.back().validationLoss;
    return {tokens, loss};
}

Result<Outcome> run(const Setup &s, bool pipeline, bool emulated)
{
    test::TempDir dir;
    test::LinkEmulator emulator;
    if (emulated) {
        if (Result<void> started = emulator.start(); !started)
            return started.error();
        emulator.setDefaultShape({s.delayMs, qint64(s.mbit * 1e6 / 8)});
    }
    std::vector<std::string> args = test::smallSwarmFlags(dir.path() / "coordinator", s.data);
    const int microbatchSize = 4, microbatches = 8;
    const std::vector<std::string> model = {"--n-layer", "4", "--n-head", "4", "--n-embd", "128", "--block-size", std::to_string(s.block),
                                            "--min-peers", std::to_string(kPeers), "--shard-tokens", "65536", "--batch-size", "8",
                                            "--inner-steps", "20", "--round-deadline", "120"};
    args.insert(args.end(), model.begin(), model.end());
    if (pipeline)
        args.insert(args.end(), {"--mode", "pipeline", "--stages", "2", "--microbatches-per-step", std::to_string(microbatches),
                                 "--microbatch-size", std::to_string(microbatchSize), "--eval-every", "5"});
    ChildProcess coordinator;
    const int port = test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, args, dir.path());
    if (port == 0)
        return makeError("the coordinator did not start: " + coordinator.errors());
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    std::vector<std::unique_ptr<ChildProcess>> peers;
    for (int i = 0; i < kPeers; ++i) {
        quint16 announced = kPeerPort;
        if (emulated) {
            Result<quint16> relay = emulator.addRelay(peerAddress(i), kPeerPort, peerAddress(i));
            if (!relay)
                return relay.error();
            announced = *relay;
        }
        const std::string name = "peer" + std::to_string(i);
        peers.push_back(std::make_unique<ChildProcess>());
        if (!peers.back()->start(SWARMTRAIN_CLIENT,
                                 {"--headless", "--swarm", url.toStdString(), "--state-dir", (dir.path() / name).string(), "--listen",
                                  peerAddress(i).toString().toStdString() + ":" + std::to_string(kPeerPort), "--announce",
                                  peerAddress(i).toString().toStdString() + ":" + std::to_string(announced), "--threads", "1", "--device", "cpu"},
                                 dir.path() / (name + ".out"), dir.path() / (name + ".err")))
            return makeError("cannot start " + name);
    }
    Identity watcher = Identity::generate().value();
    CoordinatorClient status(watcher, CoordinatorClientOptions{url, {}, 20, 100, 1000});
    const auto read = [&]() -> std::optional<std::pair<qint64, double>> {
        Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
        Result<StatusAnswer> decoded = answer ? StatusAnswer::fromJson(*answer) : Result<StatusAnswer>(answer.error());
        if (!decoded)
            return std::nullopt;
        return progress(*decoded, s, microbatchSize, microbatches);
    };
    if (!test::waitUntil([&] { const auto p = read(); return p && p->first > 0; }, std::chrono::minutes(5)))
        return makeError("the swarm did not train: " + coordinator.errors());
    const auto before = read();
    QThread::msleep(unsigned(s.seconds * 1000));
    const auto after = read();
    if (!before || !after)
        return makeError("the coordinator stopped answering");
    return Outcome{double(after->first - before->first) / s.seconds, after->second};
}

} // namespace

int main(int argc, char **argv)
{
    Setup s;
    CLI::App app("Full-model rounds against a 2-stage pipeline, 4 peers, on loopback and on emulated slow links.");
    app.add_option("--data", s.data, "training text");
    app.add_option("--seconds", s.seconds, "training time measured in each run");
    app.add_option("--delay-ms", s.delayMs, "one-way delay of the emulated links");
    app.add_option("--mbit", s.mbit, "rate of the emulated links, Mbit/s");
    CLI11_PARSE(app, argc, argv);
    test::application();
    for (const bool emulated : {false, true}) {
        for (const bool pipeline : {false, true}) {
            Result<Outcome> outcome = run(s, pipeline, emulated);
            if (!outcome) {
                std::cerr << outcome.error().message << std::endl;
                return 1;
            }
            std::cout << nlohmann::json{{"mode", pipeline ? "pipeline" : "full"},
                                        {"links", emulated ? std::to_string(s.delayMs) + " ms, " + std::to_string(int(s.mbit)) + " Mbit/s" : "loopback"},
                                        {"seconds", s.seconds},
                                        {"tokens_per_s", outcome->tokensPerSecond},
                                        {"validation_loss", outcome->validationLoss}}
                             .dump()
                      << std::endl;
        }
    }
    return 0;
}
