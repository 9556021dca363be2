// Runs the real swarmtrain binary, windowed (on Qt's offscreen platform) and --headless, and
// checks what it says when it cannot start.
#include "ChildProcess.h"
#include "SwarmHarness.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace std::chrono_literals;

namespace {

class ClientProcessTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1); // the child's window needs no display
        // Under a regular file, so no folder can be made there, not even by root (as CI runs).
        dir.write("file", "not a folder");
        stateDir = (dir.path() / "file" / "state").string();
    }

    // Runs swarmtrain with `args` to its end; its exit code (-1 when it kept running).
    int run(const std::vector<std::string> &args)
    {
        EXPECT_TRUE(client.start(SWARMTRAIN_CLIENT, args, dir.path() / "out", dir.path() / "err"));
        return client.waitForExit(60s);
    }

    swarmtrain::test::TempDir dir;
    std::string stateDir;
    swarmtrain::test::ChildProcess client;
};

TEST_F(ClientProcessTest, AStateFolderThatCannotBeMadeEndsTheWindowedClientWithAnError)
{
    if (!SWARMTRAIN_HAS_DESKTOP)
        GTEST_SKIP() << "this build has no desktop window (SWARMTRAIN_GUI off)";
    EXPECT_EQ(run({"--state-dir", stateDir}), 2) << client.errors();
    const std::string errors = client.errors();
    EXPECT_NE(errors.find("swarmtrain: error: cannot create the state directory " + stateDir + ": "),
              std::string::npos)
        << errors;
    EXPECT_NE(errors.find("Not a directory"), std::string::npos) << errors; // the OS's reason
}

// A URL nothing answers: the folder fails before any connection is tried, with the windowed
// client's exit code for "cannot start".
TEST_F(ClientProcessTest, AStateFolderThatCannotBeMadeEndsTheHeadlessClientWithAnError)
{
    EXPECT_EQ(run({"--headless", "--swarm", "http://127.0.0.1:9", "--state-dir", stateDir}), 2) << client.errors();
    const std::string errors = client.errors();
    EXPECT_NE(errors.find("swarmtrain: error: cannot create the state directory " + stateDir + ": "),
              std::string::npos)
        << errors;
    EXPECT_NE(errors.find("Not a directory"), std::string::npos) << errors;
}

// A state folder it may not write in: the error on stderr and exit code 1, never a crash. Root
// writes anywhere, so as root the client runs as nobody (setpriv) on a folder root owns.
TEST_F(ClientProcessTest, AStateFolderItMayNotWriteInEndsTheHeadlessClientWithAnError)
{
    const std::filesystem::path state = dir.path() / "state";
    std::filesystem::create_directories(state);
    std::vector<std::string> args = {SWARMTRAIN_CLIENT, "--headless", "--swarm", "http://127.0.0.1:9", "--state-dir",
                                     state.string()};
    ::unsetenv("XDG_RUNTIME_DIR"); // root's; the control socket goes to nobody's own folder in /tmp
    if (::geteuid() == 0) {
        // nobody must reach the folder (and the binary) to be refused writing in it.
        std::filesystem::permissions(dir.path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
        std::filesystem::permissions(state, std::filesystem::perms::others_read | std::filesystem::perms::others_exec,
                                     std::filesystem::perm_options::add);
        args.insert(args.begin(), {"--reuid=65534", "--regid=65534", "--clear-groups"});
        EXPECT_TRUE(client.start("/usr/bin/setpriv", args, dir.path() / "out", dir.path() / "err"));
    } else {
        std::filesystem::permissions(state, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
        args.erase(args.begin());
        EXPECT_TRUE(client.start(SWARMTRAIN_CLIENT, args, dir.path() / "out", dir.path() / "err"));
    }
    EXPECT_EQ(client.waitForExit(60s), 1) << client.errors();
    const std::string errors = client.errors();
    EXPECT_NE(errors.find("swarmtrain: error: "), std::string::npos) << errors;
    EXPECT_NE(errors.find(state.string()), std::string::npos) << errors;
    EXPECT_NE(errors.find("Permission denied"), std::string::npos) << errors; // the OS's reason
    EXPECT_EQ(errors.find("terminate"), std::string::npos) << errors;
}

// http:// to a coordinator that serves HTTPS (its default): the first attempt says so and what
// to use instead, and the client ends, instead of retrying "Empty reply from server".
TEST_F(ClientProcessTest, PlainHttpToAnHttpsCoordinatorSaysToUseHttpsAtOnce)
{
    dir.write("data.txt", swarmtrain::test::generatedText(20000));
    std::vector<std::string> flags = swarmtrain::test::smallSwarmFlags(dir.path() / "coordinator", dir.path() / "data.txt");
    std::erase(flags, std::string("--plain-http"));
    swarmtrain::test::ChildProcess coordinator;
    const int port = swarmtrain::test::startCoordinatorProcess(coordinator, SWARMTRAIN_COORDINATOR, flags, dir.path());
    ASSERT_NE(port, 0) << coordinator.errors();
    const std::string address = "127.0.0.1:" + std::to_string(port);
    EXPECT_EQ(run({"--headless", "--swarm", "http://" + address, "--state-dir", (dir.path() / "client").string()}), 1)
        << client.errors();
    const std::string errors = client.errors();
    EXPECT_NE(errors.find("speaks HTTPS, not HTTP: use https://" + address + " or the swarm's invite link"), std::string::npos)
        << errors;
    EXPECT_EQ(errors.find("retry"), std::string::npos) << "it retried:\n" << errors;
    EXPECT_EQ(errors.find("Empty reply"), std::string::npos) << errors;
}

// --device names one device, or several GPUs as cuda:N each once; anything else is refused
// before the client starts, saying what was wrong.
TEST_F(ClientProcessTest, ADeviceListOfOtherThanGpusIsRefused)
{
    const std::pair<const char *, const char *> refused[] = {
        {"cuda:0,cpu", "--device: several devices are GPUs named cuda:N, not 'cpu'"},
        {"cuda:0,cuda:0", "--device names cuda:0 twice"},
        {"cuda:1,", "--device: several devices are GPUs named cuda:N, not ''"},
    };
    for (const auto &[devices, message] : refused) {
        EXPECT_EQ(run({"--headless", "--device", devices, "--state-dir", (dir.path() / "state").string()}), 2)
            << devices << ": " << client.errors();
        EXPECT_NE(client.errors().find(std::string("swarmtrain: error: ") + message), std::string::npos)
            << client.errors();
    }
}

} // namespace
