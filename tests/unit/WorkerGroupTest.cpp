// WorkerGroup: a worker per device, each a peer with a state folder and ports of its own.
#include "WorkerGroup.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace swarmtrain;

namespace {

WorkerOptions baseOptions()
{
    WorkerOptions options;
    options.stateDir = "/home/someone/.local/share/SwarmTrain";
    options.device = "auto";
    options.listenPort = 7000;
    options.announcedPort = 9000;
    return options;
}

TEST(WorkerGroupTest, TheFirstWorkerKeepsTheStateFolderAndPorts)
{
    const WorkerOptions first = WorkerGroup::workerOptions(baseOptions(), "cuda:1", 0);
    EXPECT_EQ(first.device, "cuda:1");
    EXPECT_EQ(first.stateDir, baseOptions().stateDir);
    EXPECT_EQ(first.listenPort, 7000);
    EXPECT_EQ(first.announcedPort, 9000);
}

TEST(WorkerGroupTest, LaterWorkersArePeersOfTheirOwn)
{
    const WorkerOptions third = WorkerGroup::workerOptions(baseOptions(), "cuda:3", 2);
    EXPECT_EQ(third.device, "cuda:3");
    EXPECT_EQ(third.stateDir, baseOptions().stateDir / "gpu-3");
    EXPECT_EQ(third.listenPort, 7002);
    EXPECT_EQ(third.announcedPort, 9002);

    WorkerOptions anyPort = baseOptions();
    anyPort.listenPort = 0; // the system's choice, for each
    anyPort.announcedPort = 0;
    const WorkerOptions second = WorkerGroup::workerOptions(anyPort, "cuda:0", 1);
    EXPECT_EQ(second.listenPort, 0);
    EXPECT_EQ(second.announcedPort, 0);

    WorkerOptions top = baseOptions();
    top.listenPort = 65535;
    EXPECT_EQ(WorkerGroup::workerOptions(top, "cuda:1", 1).listenPort, 65535);
}

TEST(WorkerGroupTest, StatsFoldersAreTheStateFolderAndEachWorkersThatKeptStats)
{
    test::TempDir dir;
    const std::filesystem::path state = dir.path() / "state";
    for (const char *folder : {"gpu-3", "gpu-2", "gpu-4", "shards"})
        std::filesystem::create_directories(state / folder);
    for (const char *folder : {"gpu-3", "gpu-2", "shards"})
        std::ofstream(state / folder / "stats.db") << "x";
    std::ofstream(state / "gpu-5") << "a file, not a folder";

    const std::vector<std::filesystem::path> expected{state, state / "gpu-2", state / "gpu-3"};
    EXPECT_EQ(WorkerGroup::statsFolders(state), expected);
    EXPECT_EQ(WorkerGroup::statsFolders(dir.path() / "missing"),
              std::vector<std::filesystem::path>{dir.path() / "missing"});
}

} // namespace
