#pragma once

// The fixture of the adversary tests that run a small real swarm on loopback twice, without and
// with attackers, and compare the honest swarm's loss: a coordinator process, honest `swarmtrain
// --headless` clients and swarmtrain-hostile ones. The keys are the same in every run, and
// clients join one at a time, so each honest client trains on the same shards in both runs.
#include "ChildProcess.h"
#include "CoordinatorClient.h"
#include "Identity.h"
#include "SwarmHarness.h"
#include "TempDir.h"
#include "TestApplication.h"

#include <gtest/gtest.h>

#include <QJsonObject>

#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace swarmtrain::test {

class AttackedSwarmTest : public ::testing::Test {
protected:
    // One run's processes.
    struct Swarm {
        std::filesystem::path root;
        ChildProcess coordinator;
        std::string url;
        std::vector<std::unique_ptr<ChildProcess>> clients;
        std::vector<bool> hostile; // by client

        std::string logs() const { return test::swarmLogs(coordinator, clients); }
    };

    void SetUp() override
    {
        application();
        dir.write("data.txt", generatedText(120'000));
    }

    // Client i's key, made once and used in every run.
    const Identity &identity(std::size_t i)
    {
        auto found = m_identities.find(i);
        if (found == m_identities.end())
            found = m_identities.emplace(i, Identity::loadOrCreate(keyFile(i)).value()).first;
        return found->second;
    }

    // Starts run `name`'s coordinator: smallSwarmFlags, then `flags`.
    void startCoordinator(Swarm &swarm, const std::string &name, const std::vector<std::string> &flags)
    {
        swarm.root = dir.path() / name;
        std::filesystem::create_directories(swarm.root);
        std::vector<std::string> args = smallSwarmFlags(swarm.root / "coordinator", dir.path() / "data.txt");
        args.insert(args.end(), flags.begin(), flags.end());
        const int port = startCoordinatorProcess(swarm.coordinator, SWARMTRAIN_COORDINATOR, args, swarm.root);
        EXPECT_NE(port, 0) << swarm.coordinator.errors();
        swarm.url = "http://127.0.0.1:" + std::to_string(port);
    }

    // Starts the next client with its key: honest when `misbehave` is empty, outbound only unless
    // it `listens` (on `host`, which is also the address the coordinator sees it come from).
    // Waits until it has joined; the round it joined at.
    std::optional<qint64> join(Swarm &swarm, const std::string &misbehave, bool listens,
                               std::chrono::milliseconds patience = std::chrono::minutes(5),
                               const std::string &host = "127.0.0.1")
    {
        const std::size_t i = swarm.clients.size();
        const std::filesystem::path state = swarm.root / ("client" + std::to_string(i));
        std::filesystem::create_directories(state);
        identity(i);
        std::filesystem::copy_file(keyFile(i), state / "identity.pem");
        std::vector<std::string> args = {"--headless",          "--swarm",  swarm.url,
                                         "--state-dir",         state.string(), "--listen",
                                         listens ? host + ":0" : "none", "--threads", "1"};
        if (!misbehave.empty())
            args.insert(args.begin(), {"--misbehave", misbehave});
        swarm.clients.push_back(std::make_unique<ChildProcess>());
        swarm.hostile.push_back(!misbehave.empty());
        ChildProcess &client = *swarm.clients.back();
        EXPECT_TRUE(client.start(misbehave.empty() ? SWARMTRAIN_CLIENT : SWARMTRAIN_HOSTILE, args,
                                 state.string() + ".out", state.string() + ".err"));
        std::smatch joined;
        std::string log;
        const bool ok = waitUntil(
            [&] {
                log = client.errors();
                return std::regex_search(log, joined, std::regex("joined; round (\\d+)"));
            },
            patience);
        EXPECT_TRUE(ok) << log;
        return ok ? std::optional<qint64>(std::stoll(joined[1].str())) : std::nullopt;
    }

    // Asks the run's coordinator for GET /v1/status until `done` says the answer is the awaited
    // one, or `patience` has passed; whether it was.
    static bool watchStatus(const Swarm &swarm, const std::function<bool(const QJsonObject &)> &done,
                            std::chrono::milliseconds patience)
    {
        Identity watcher = Identity::generate().value();
        CoordinatorClient status(watcher, CoordinatorClientOptions{QString::fromStdString(swarm.url), {}, 20, 100, 1000});
        return waitUntil(
            [&] {
                const Result<QJsonObject> answer = status.getJson(QStringLiteral("/v1/status"));
                return answer && done(*answer);
            },
            patience);
    }

    // How often `what` occurs in `text` (a client's log, say).
    static int countOf(const std::string &text, const std::string &what)
    {
        int count = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
            ++count;
        return count;
    }

    // Every honest client of the run still runs, and the coordinator never banned it.
    void expectHonestUnharmed(const Swarm &swarm, const std::string &logs)
    {
        const std::string coordinatorLog = swarm.coordinator.errors();
        for (std::size_t i = 0; i < swarm.clients.size(); ++i) {
            if (swarm.hostile[i])
                continue;
            EXPECT_TRUE(swarm.clients[i]->running()) << "honest client " << i << " ended\n" << logs;
            EXPECT_EQ(coordinatorLog.find("banned " + identity(i).keyId().toStdString()), std::string::npos) << logs;
        }
    }

    // Ends the run: the honest clients leave on Ctrl-C and must exit 0 (a banned attacker may
    // have ended with an error already), then the coordinator on SIGTERM.
    static void leave(Swarm &swarm, const std::string &logs)
    {
        for (std::size_t i = 0; i < swarm.clients.size(); ++i) {
            const int status = swarm.clients[i]->kill(SIGINT);
            if (!swarm.hostile[i]) {
                EXPECT_EQ(status, 0) << "honest client " << i << "\n" << logs;
            }
        }
        EXPECT_EQ(swarm.coordinator.kill(SIGTERM), 0) << logs;
    }

    // The keys live as long as the test process, the same for every test of a suite: a run a
    // suite shares between its tests (SpotCheckTest's clean run) is the run each would make.
    static std::filesystem::path keyFile(std::size_t i)
    {
        static const TempDir keys;
        return keys.path() / (std::to_string(i) + ".pem");
    }

    TempDir dir;

private:
    std::map<std::size_t, Identity> m_identities;
};

} // namespace swarmtrain::test
