#pragma once

#include "ChildProcess.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace swarmtrain::test {

// A swarm's processes' logs, for a failed assertion's message: the coordinator's errors, then
// each client's output and errors, numbered and named `label`.
template <typename Clients>
std::string swarmLogs(const ChildProcess &coordinator, const Clients &clients, const std::string &label = "client")
{
    std::string all = "coordinator:\n" + coordinator.errors();
    int i = 0;
    for (const auto &client : clients) {
        if (client) // a test may start fewer than its fixture holds
            all += label + " " + std::to_string(i) + ":\n" + client->output() + client->errors();
        ++i;
    }
    return all;
}

// The small swarm integration tests and benchmarks host: a one-block model on `data`, rounds of
// a few seconds, heartbeats every second. Flags given after these win (the last of a flag counts).
// Plain HTTP on loopback, which clients accept without asking: these tests are about training,
// and CoordinatorProcessTest covers the default HTTPS with its pin. No spot checks (a checking
// peer sits a round out): the adversary tests that are about them turn them on. Fixed H rounds,
// so that runs with the same keys are the same bit for bit: the tests of time-budgeted rounds
// say --rounds budget.
inline std::vector<std::string> smallSwarmFlags(const std::filesystem::path &stateDir, const std::filesystem::path &data,
                                                int port = 0)
{
    return {"--listen", "127.0.0.1:" + std::to_string(port), "--state-dir", stateDir.string(), "--data", data.string(),
            "--n-layer", "1", "--n-head", "2", "--n-embd", "32", "--block-size", "32", "--batch-size", "8",
            "--inner-steps", "20", "--lr", "3e-3", "--warmup-iters", "20", "--eval-iters", "8", "--shard-tokens",
            "16384", "--heartbeat-interval", "1", "--gather-timeout", "5", "--round-deadline", "20", "--plain-http",
            "--spot-check-rate", "0", "--spot-check-rate-new", "0", "--rounds", "fixed"};
}

// Starts swarmtrain-coordinator (its output in `logDir`/coordinator.{out,err}) and waits until it
// says where it listens; the port, or 0 when it did not within a minute.
inline int startCoordinatorProcess(ChildProcess &process, const std::string &executable,
                                   const std::vector<std::string> &args, const std::filesystem::path &logDir)
{
    if (!process.start(executable, args, logDir / "coordinator.out", logDir / "coordinator.err"))
        return 0;
    const std::regex listening("listening on https?://127\\.0\\.0\\.1:(\\d+)");
    std::smatch match;
    std::string out;
    const bool started = waitUntil(
        [&] {
            out = process.output();
            return std::regex_search(out, match, listening);
        },
        std::chrono::seconds(60));
    return started ? std::stoi(match[1].str()) : 0;
}

// Starts `swarmtrain --headless` (`client`) on `url`, its state in `dir`/`name` and its output
// in `dir`/`name`.{out,err}, on one CPU thread, with `flags` after those.
inline bool startHeadlessPeer(ChildProcess &peer, const std::string &client, const QString &url,
                              const std::filesystem::path &dir, const std::string &name,
                              const std::vector<std::string> &flags)
{
    std::vector<std::string> args = {"--headless", "--swarm", url.toStdString(), "--state-dir",
                                     (dir / name).string(), "--threads", "1", "--device", "cpu"};
    args.insert(args.end(), flags.begin(), flags.end());
    return peer.start(client, args, dir / (name + ".out"), dir / (name + ".err"));
}

// The coordinator's validation loss of state `round`, from its /v1/status answer; empty until
// it has validated that state.
inline std::optional<double> validationLossAt(const QJsonObject &status, qint64 round)
{
    for (const QJsonValue &point : status.value(QLatin1StringView("val_loss_history")).toArray()) {
        if (point.toObject().value(QLatin1StringView("round")).toInteger() == round)
            return point.toObject().value(QLatin1StringView("val_loss")).toDouble();
    }
    return std::nullopt;
}

// ...of each of the states `rounds` it has validated, into `losses`; whether all of them are there.
inline bool validationLossesAt(const QJsonObject &status, const std::set<qint64> &rounds, std::map<qint64, double> &losses)
{
    for (const qint64 round : rounds) {
        if (const std::optional<double> loss = validationLossAt(status, round))
            losses[round] = *loss;
    }
    return losses.size() == rounds.size();
}

// `keyId`'s credit on the coordinator's leaderboard in its /v1/status answer; empty when unlisted.
inline std::optional<double> leaderboardCredit(const QJsonObject &status, const QString &keyId)
{
    for (const QJsonValue &leader : status.value(QLatin1StringView("leaderboard")).toArray()) {
        if (leader.toObject().value(QLatin1StringView("peer_id")).toString() == keyId)
            return leader.toObject().value(QLatin1StringView("credit")).toDouble();
    }
    return std::nullopt;
}

// A relative change as the adversary tests print it: "+0.12%".
inline std::string signedPercent(double delta)
{
    std::ostringstream out;
    out << std::showpos << std::fixed << std::setprecision(2) << delta * 100.0 << "%";
    return out.str();
}

} // namespace swarmtrain::test
