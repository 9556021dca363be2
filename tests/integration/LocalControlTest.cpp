// swarmtrain-cli against a running `swarmtrain --headless` in a real swarm (issue 19): every
// control command changes the client's state as it says (paused with the right reason and
// deadline, resumed, released, left, joined again), the socket answers only its own user, and
// hostile requests get an error, never a crash. Moments are found by polling the client's own
// answers, never with sleeps.
#include "ChildProcess.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace swarmtrain;
using namespace std::chrono_literals;
using swarmtrain::test::ChildProcess;
using swarmtrain::test::waitUntil;
using json = nlohmann::json;

namespace {

struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
};

// Connects to `path` as whoever runs this, sends `request` and reads until the other side
// closes or a line arrives: the line, "" when closed unanswered; nullopt when connect failed.
std::optional<std::string> rawExchange(const std::string &path, const std::string &request)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        ::close(fd);
        return std::nullopt;
    }
    // MSG_NOSIGNAL: a server that already closed the connection must not kill us with SIGPIPE.
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string answer;
    char buffer[4096];
    for (ssize_t n; answer.find('\n') == std::string::npos && (n = ::read(fd, buffer, sizeof buffer)) > 0;)
        answer.append(buffer, size_t(n));
    ::close(fd);
    return answer;
}

class LocalControlTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir.write("data.txt", test::generatedText(120'000));
        // A runtime folder of this test's own, so that its clients' sockets (and the test that
        // opens their folder to others) meet no other test's.
        std::filesystem::create_directories(runtimeDir());
        std::filesystem::permissions(runtimeDir(), std::filesystem::perms::owner_all);
        ::setenv("XDG_RUNTIME_DIR", runtimeDir().c_str(), 1);
        const int port = test::startCoordinatorProcess(
            coordinator, SWARMTRAIN_COORDINATOR, test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt"),
            dir.path());
        ASSERT_NE(port, 0) << coordinator.errors();
        url = "http://127.0.0.1:" + std::to_string(port);
        ASSERT_TRUE(client.start(SWARMTRAIN_CLIENT,
                                 {"--headless", "--swarm", url, "--state-dir", stateDir().string(), "--listen",
                                  "127.0.0.1:0", "--threads", "1", "--device", "cpu"},
                                 dir.path() / "client.out", dir.path() / "client.err"));
        ASSERT_TRUE(waitUntil([&] { return !socketPath().empty() || client.exited(); }, 60s)) << logs();
        ASSERT_FALSE(socketPath().empty()) << logs();
    }

    std::filesystem::path stateDir() const { return dir.path() / "client"; }
    std::filesystem::path runtimeDir() const { return dir.path() / "runtime"; }

    // The client prints where its socket is.
    std::string socketPath() const
    {
        std::smatch match;
        const std::string out = client.output();
        return std::regex_search(out, match, std::regex("control socket (\\S+)")) ? match[1].str() : std::string();
    }

    CliRun cli(std::vector<std::string> args, const std::filesystem::path &state = {})
    {
        args.push_back("--state-dir");
        args.push_back((state.empty() ? stateDir() : state).string());
        ChildProcess process;
        const std::string name = "cli" + std::to_string(++runs);
        CliRun run;
        if (!process.start(SWARMTRAIN_CLI, args, dir.path() / (name + ".out"), dir.path() / (name + ".err")))
            return run;
        run.code = process.waitForExit(120s);
        run.out = process.output();
        run.err = process.errors();
        return run;
    }

    // `swarmtrain-cli <args> --json`, which must succeed: its answer.
    json control(std::vector<std::string> args)
    {
        args.push_back("--json");
        const CliRun run = cli(args);
        EXPECT_EQ(run.code, 0) << run.err << logs();
        return json::parse(run.out, nullptr, false);
    }

    json status() { return control({"status"})["status"]; }

    // Polls `status` until `condition` holds (the worker takes a step to reach a state).
    bool statusBecomes(const std::function<bool(const json &)> &condition, std::chrono::seconds timeout = 120s)
    {
        return waitUntil([&] { return condition(status()); }, timeout);
    }

    int roundsDone() const
    {
        static const std::regex done("round \\d+ done");
        const std::string out = client.output();
        return int(std::distance(std::sregex_iterator(out.begin(), out.end(), done), std::sregex_iterator()));
    }

    std::string logs() const { return "\n--- client ---\n" + client.output() + client.errors(); }

    test::TempDir dir;
    ChildProcess coordinator;
    ChildProcess client;
    std::string url;
    int runs = 0;
};

TEST_F(LocalControlTest, EveryCommandChangesTheRunningClientsState)
{
    ASSERT_TRUE(waitUntil([&] { return roundsDone() >= 1; }, 180s)) << logs();
    json s = status();
    EXPECT_EQ(s["swarm"], url);
    EXPECT_TRUE(s["joined"].get<bool>());
    EXPECT_FALSE(s["paused"].get<bool>());

    // Paused by the person for ten minutes: the reason and the deadline, and the worker stops.
    const auto before = std::chrono::system_clock::now();
    s = control({"pause", "--for", "10m"})["status"];
    EXPECT_TRUE(s["paused"].get<bool>());
    EXPECT_EQ(s["pause_reason"], "manual");
    EXPECT_FALSE(s["released"].get<bool>());
    std::tm until{};
    std::istringstream(s["paused_until"].get<std::string>()) >> std::get_time(&until, "%Y-%m-%dT%H:%M:%SZ");
    const auto deadline = std::chrono::system_clock::from_time_t(timegm(&until));
    EXPECT_GE(deadline - before, 599s);
    EXPECT_LE(deadline - before, 660s);
    EXPECT_TRUE(statusBecomes([](const json &j) { return j["state"] == "paused"; })) << logs();
    const int pausedAt = roundsDone();

    EXPECT_FALSE(control({"resume"})["status"]["paused"].get<bool>());
    EXPECT_TRUE(waitUntil([&] { return roundsDone() > pausedAt; }, 180s)) << logs();

    // Released: paused, and the GPU's memory (the replica's device copy) given back.
    s = control({"release"})["status"];
    EXPECT_TRUE(s["paused"].get<bool>());
    EXPECT_TRUE(s["released"].get<bool>());
    EXPECT_EQ(s["pause_reason"], "manual");
    EXPECT_TRUE(statusBecomes([](const json &j) { return j["state"] == "paused"; })) << logs();
    EXPECT_FALSE(control({"resume"})["status"]["released"].get<bool>());

    // The record of what this PC did, and its log.
    const json stats = control({"stats", "--days", "3"});
    EXPECT_GE(stats["totals"]["contributions"].get<int>(), 1);
    EXPECT_GT(stats["totals"]["tokens"].get<long long>(), 0);
    EXPECT_EQ(stats["days"].size(), 3u);
    const CliRun log = cli({"log", "--lines", "5", "--json"});
    ASSERT_EQ(log.code, 0) << log.err;
    std::istringstream logLines(log.out);
    int lines = 0;
    for (std::string line; std::getline(logLines, line); ++lines)
        EXPECT_TRUE(json::parse(line, nullptr, false).contains("text")) << line;
    EXPECT_GE(lines, 1);
    EXPECT_LE(lines, 5);

    // log --follow prints what comes after it started: the lines of the next rounds.
    ChildProcess follower;
    ASSERT_TRUE(follower.start(SWARMTRAIN_CLI, {"log", "--follow", "--lines", "0", "--state-dir", stateDir().string()},
                               dir.path() / "follow.out", dir.path() / "follow.err"));
    EXPECT_TRUE(waitUntil([&] { return follower.output().find("swarmtrain.") != std::string::npos; }, 180s))
        << follower.errors() << logs();
    follower.kill(SIGTERM);

    // Leaving keeps the client running, out of any swarm; joining again trains again.
    EXPECT_FALSE(control({"swarm", "leave"})["status"].is_null());
    EXPECT_TRUE(statusBecomes([](const json &j) { return j["state"] == "idle" && !j["joined"].get<bool>(); })) << logs();
    EXPECT_FALSE(client.exited()) << logs();
    const int leftAt = roundsDone();
    control({"swarm", "join", url});
    EXPECT_TRUE(statusBecomes([&](const json &j) { return j["joined"].get<bool>() && j["swarm"] == url; })) << logs();
    EXPECT_TRUE(waitUntil([&] { return roundsDone() > leftAt; }, 180s)) << logs();
    EXPECT_EQ(client.kill(SIGINT), 0) << logs();
}

TEST_F(LocalControlTest, ItSaysWhenNoClientRunsOrTheRequestIsWrong)
{
    const CliRun none = cli({"status"}, dir.path() / "nobody-runs-here");
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("no SwarmTrain client is running"), std::string::npos) << none.err;
    const CliRun badDuration = cli({"pause", "--for", "soon"});
    EXPECT_EQ(badDuration.code, 1);
    EXPECT_NE(badDuration.err.find("--for needs a duration"), std::string::npos) << badDuration.err;
    const CliRun badSwarm = cli({"swarm", "join", "ftp://example.org"});
    EXPECT_EQ(badSwarm.code, 1) << badSwarm.out;
    EXPECT_FALSE(status()["swarm"] != url) << "a refused join must leave the swarm as it was";

    // A second client on the same state folder would spoil the replica: it refuses to start.
    ChildProcess second;
    ASSERT_TRUE(second.start(SWARMTRAIN_CLIENT, {"--headless", "--swarm", url, "--state-dir", stateDir().string()},
                             dir.path() / "second.out", dir.path() / "second.err"));
    EXPECT_EQ(second.waitForExit(120s), 2);
    EXPECT_NE(second.errors().find("another SwarmTrain client is running"), std::string::npos) << second.errors();
    EXPECT_FALSE(client.exited()) << logs();
}

// Hostile or broken requests on the socket itself (a local program of this user's, but bounded
// all the same): an error line, and the client carries on.
TEST_F(LocalControlTest, MalformedAndOutOfRangeRequestsAreRefused)
{
    const std::string path = socketPath();
    const auto error = [&](const std::string &request) {
        const std::optional<std::string> answer = rawExchange(path, request);
        if (!answer)
            return std::string("no connection");
        const json j = json::parse(*answer, nullptr, false);
        return j.is_object() && j.value("ok", true) == false ? j.value("error", std::string()) : "accepted: " + *answer;
    };
    EXPECT_NE(error("not json\n").find("one JSON object"), std::string::npos);
    EXPECT_NE(error("[1,2]\n").find("one JSON object"), std::string::npos);
    EXPECT_NE(error(std::string(40'000, '{')).find("at most"), std::string::npos);
    EXPECT_NE(error(R"({"command":"format-disk"})" "\n").find("unknown command"), std::string::npos);
    for (const char *seconds : {"-5", "0.5", "1e12", "\"600\"", "null"})
        EXPECT_NE(error(std::string(R"({"command":"pause","seconds":)") + seconds + "}\n").find("a pause lasts"),
                  std::string::npos)
            << seconds;
    EXPECT_NE(error(R"({"command":"stats","days":100000})" "\n").find("stats covers"), std::string::npos);
    EXPECT_NE(error(R"({"command":"log","lines":-1})" "\n").find("log shows"), std::string::npos);
    EXPECT_NE(error(R"({"command":"join","swarm":")" + std::string(5000, 'a') + "\"}\n").find("join needs"),
              std::string::npos);
    EXPECT_NE(error(R"({"command":"join","swarm":7})" "\n").find("join needs"), std::string::npos);
    EXPECT_FALSE(status()["paused"].get<bool>()) << "no refused request may change the state";
    EXPECT_FALSE(client.exited()) << logs();
}

// Only this user: the socket's folder is closed to others, and a connection from another user
// id that gets through anyway (the folder opened by mistake) is closed unanswered.
TEST_F(LocalControlTest, AnotherUserIsRefused)
{
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root, to run the test client as nobody";
    const std::string path = socketPath();
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    struct stat info {};
    ASSERT_EQ(::stat(folder.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    // 2: could not connect; 3: connected, closed unanswered; 4: answered.
    const auto asNobody = [&] {
        const pid_t child = ::fork();
        if (child == 0) {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(9);
            const std::optional<std::string> answer = rawExchange(path, "{\"command\":\"status\"}\n");
            ::_exit(!answer ? 2 : answer->empty() ? 3 : 4);
        }
        int wstatus = 0;
        ::waitpid(child, &wstatus, 0);
        return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    };
    EXPECT_EQ(asNobody(), 2);
    for (const std::filesystem::path &above : {dir.path(), runtimeDir()})
        std::filesystem::permissions(above, std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
    ASSERT_EQ(::chmod(folder.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
    EXPECT_EQ(asNobody(), 3);
    ::chmod(folder.c_str(), 0700);
    EXPECT_FALSE(status()["paused"].get<bool>());
    EXPECT_NE(client.errors().find("refused a control connection from user 65534"), std::string::npos) << logs();
}

} // namespace
