#include "ProcfsProcessList.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// A fake /proc.
class ProcessListTest : public ::testing::Test {
protected:
    void process(const std::string &pid, const std::string &cmdline, const std::string &comm)
    {
        dir.write(pid + "/cmdline", cmdline);
        dir.write(pid + "/comm", comm + "\n");
    }

    test::TempDir dir;
};

} // namespace

TEST_F(ProcessListTest, NamesComeFromTheCommandLineWithoutTheirFolders)
{
    process("1", std::string("/sbin/init\0splash\0", 18), "systemd");
    // comm is cut to 15 characters; argv[0] is not. Wine paths use backslashes.
    process("4242", std::string("C:\\Games\\Cyberpunk 2077\\bin\\Cyberpunk2077.exe\0", 47), "Cyberpunk2077.e");
    process("77", "", "kworker/0:1"); // a kernel thread has no command line
    process("78", std::string("steam\0", 6), "steam");
    process("79", std::string("steam\0-silent\0", 14), "steam");
    dir.write("self/comm", "ignored\n"); // not a process number
    dir.write("meminfo", "MemTotal: 1 kB\n");

    const std::vector<std::string> names = ProcfsProcessList(dir.path()).runningNames();
    const std::vector<std::string> expected = {"Cyberpunk2077.exe", "init", "kworker/0:1", "steam"};
    EXPECT_EQ(names, expected) << "sorted, each once";
}

TEST_F(ProcessListTest, AMissingRootIsAnEmptyList)
{
    EXPECT_TRUE(ProcfsProcessList(dir.path() / "missing").runningNames().empty());
}

TEST_F(ProcessListTest, ThisMachinesProcessesIncludeThisTest)
{
    const std::vector<std::string> names = makeProcessList()->runningNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "swarmtrain_platform_tests"), names.end());
}
