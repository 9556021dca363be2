// Runs the real swarmtrain binary, windowed (on Qt's offscreen platform) and --headless, and
// checks what it says when it cannot start.
#include "ChildProcess.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>

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

// A URL nothing answers: the folder fails before any connection is tried.
TEST_F(ClientProcessTest, AStateFolderThatCannotBeMadeEndsTheHeadlessClientWithAnError)
{
    EXPECT_EQ(run({"--headless", "--swarm", "http://127.0.0.1:9", "--state-dir", stateDir}), 1) << client.errors();
    const std::string errors = client.errors();
    EXPECT_NE(errors.find("swarmtrain: error: cannot create the state directory " + stateDir + ": "),
              std::string::npos)
        << errors;
    EXPECT_NE(errors.find("Not a directory"), std::string::npos) << errors;
}

} // namespace
