// What checking each range costs the all-reduce (issues 16, 43): four ButterflyAllReduce peers in
// one process on loopback (real PeerTransports: handshakes, encrypted records), three that accept
// connections and own ranges and one outbound-only, average a pseudo-gradient of --params values
// for --rounds rounds with range checks off, with a checker a range, and with its referee checking
// every average too (AllReduceOptions::refereeChecks, the default since issue 43), taking turns
// round by round (shared machines drift). Each round's time is from the first start() to the last
// finished(); bytes are what all four transports sent. Prints JSON lines:
//   {"bench":"range_check_cost","checks":false|true,"referee":false|true,"params":N,"rounds":R,"median_round_s":...,"bytes_per_round":...}
//   {"bench":"range_check_cost_ratio","time_on_over_off":...,"bytes_on_over_off":...,
//    "time_referee_over_off":...,"bytes_referee_over_off":...}
// Usage: swarmtrain_range_check_cost [--params 4000000] [--rounds 10]
#include "ButterflyAllReduce.h"
#include "CliFlags.h"
#include "Identity.h"
#include "Statistics.h"
#include "PeerTransport.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QHostAddress>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>

using namespace swarmtrain;

namespace {

struct Peer {
    Identity identity;
    std::unique_ptr<PeerTransport> transport;
    std::unique_ptr<ButterflyAllReduce> allReduce;
    QString endpoint;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::int64_t params = 4'000'000;
    int rounds = 10;
    CLI::App cli("What checking each range costs the all-reduce, against no checks.", "swarmtrain_range_check_cost");
    flags::configure(cli);
    cli.add_option("--params", params, "values in the averaged vector")->transform(flags::wholeNumberIn(3, 1ll << 30));
    cli.add_option("--rounds", rounds, "rounds timed in each configuration")->transform(flags::wholeNumberIn(1, 1000));
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (flags::helpAsked(args)) {
        std::cout << cli.help();
        return 0;
    }
    if (Result<void> parsed = flags::parse(cli, args); !parsed) {
        std::cerr << "swarmtrain_range_check_cost: error: " << parsed.error().message << "\n";
        return 2;
    }

    std::vector<std::unique_ptr<Peer>> peers;
    for (int i = 0; i < 4; ++i)
        peers.push_back(std::make_unique<Peer>(Peer{Identity::generate().value(), nullptr, nullptr, {}}));
    const PeerKeyRegistry registry = [&](const QString &keyId) -> std::optional<QByteArray> {
        for (const auto &peer : peers) {
            if (peer->identity.keyId() == keyId)
                return peer->identity.publicKey();
        }
        return std::nullopt;
    };
    QList<AllReduceMember> members;
    for (int i = 0; i < 4; ++i) {
        Peer &peer = *peers[std::size_t(i)];
        peer.transport = std::make_unique<PeerTransport>(peer.identity, registry);
        peer.allReduce = std::make_unique<ButterflyAllReduce>(*peer.transport, peer.identity.keyId());
        AllReduceMember member{peer.identity.keyId(), {}, 0, 0};
        if (i < 3) {
            const Result<quint16> port = peer.transport->listen(QHostAddress::LocalHost);
            if (!port) {
                std::cerr << "cannot listen: " << port.error().message << "\n";
                return 1;
            }
            member.endpoint = QStringLiteral("127.0.0.1:%1").arg(*port);
            member.begin = params * i / 3;
            member.end = params * (i + 1) / 3;
        }
        members.append(member);
    }
    std::vector<std::vector<float>> vectors(4, std::vector<float>(std::size_t(params)));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 0.01f);
    for (auto &v : vectors)
        std::generate(v.begin(), v.end(), [&] { return normal(rng); });

    // 0: no checks; 1: a checker a range; 2: and its referee checking every average.
    constexpr int kModes = 3;
    std::map<int, std::vector<double>> seconds;
    std::map<int, std::vector<double>> bytes;
    quint64 round = 1;
    for (int r = 0; r < kModes * (rounds + 1); ++r) {
        const int mode = r % kModes;
        qint64 sentBefore = 0;
        for (const auto &peer : peers)
            sentBefore += peer->transport->bytesSent();
        int finished = 0;
        QEventLoop loop;
        std::vector<QMetaObject::Connection> connections;
        const auto started = std::chrono::steady_clock::now();
        for (const auto &peer : peers) {
            connections.push_back(QObject::connect(peer->allReduce.get(), &ButterflyAllReduce::finished, &loop, [&] {
                if (++finished == 4)
                    loop.quit();
            }));
            AllReduceOptions options;
            options.timeoutMs = 600'000;
            options.rangeChecks = mode > 0;
            options.refereeChecks = mode == 2;
            const std::size_t i = std::size_t(&peer - peers.data());
            if (Result<void> begun = peer->allReduce->start(round, members, vectors[i], 1.0, options); !begun) {
                std::cerr << "cannot start: " << begun.error().message << "\n";
                return 1;
            }
        }
        if (finished < 4)
            loop.exec();
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        for (const auto &c : connections)
            QObject::disconnect(c);
        for (const auto &peer : peers) {
            if (!peer->allReduce->outcome().skippedRanges.empty()) {
                std::cerr << "round " << round << " skipped a range\n";
                return 1;
            }
        }
        qint64 sentAfter = 0;
        for (const auto &peer : peers)
            sentAfter += peer->transport->bytesSent();
        ++round;
        if (r < kModes)
            continue; // the first round of each dials and shakes hands
        seconds[mode].push_back(elapsed);
        bytes[mode].push_back(double(sentAfter - sentBefore));
    }
    for (int mode = 0; mode < kModes; ++mode) {
        std::cout << nlohmann::json{{"bench", "range_check_cost"}, {"checks", mode > 0}, {"referee", mode == 2},
                                    {"params", params}, {"rounds", rounds}, {"median_round_s", median(seconds[mode])},
                                    {"bytes_per_round", median(bytes[mode])}}
                         .dump()
                  << std::endl;
    }
    std::cout << nlohmann::json{{"bench", "range_check_cost_ratio"},
                                {"time_on_over_off", median(seconds[1]) / median(seconds[0])},
                                {"bytes_on_over_off", median(bytes[1]) / median(bytes[0])},
                                {"time_referee_over_off", median(seconds[2]) / median(seconds[0])},
                                {"bytes_referee_over_off", median(bytes[2]) / median(bytes[0])}}
                     .dump()
              << std::endl;
    return 0;
}
