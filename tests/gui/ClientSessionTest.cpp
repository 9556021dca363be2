// ClientSession below the widgets: what it decides from the person's preferences.
#include "ClientSession.h"
#include "GuiTest.h"

#include <QTest>

#include <gtest/gtest.h>

#include <fstream>

using namespace swarmtrain;

namespace {

class ClientSessionTest : public test::GuiTest {};

// The state folder is measured against the disk limit: over it, training pauses and says why;
// a higher limit lets it run again.
TEST_F(ClientSessionTest, PausesWhileTheStateFolderIsOverTheDiskLimit)
{
    std::filesystem::create_directories(stateDir() / "shards");
    {
        // 1.5 GiB as the file system reports its size, without writing it (a sparse file).
        std::ofstream big(stateDir() / "shards" / "big.txt", std::ios::binary);
        big.seekp((std::streamoff(3) << 29) - 1);
        big.put('x');
    }
    ClientSession &s = session();
    EXPECT_TRUE(s.state().decision.running());

    Preferences preferences = s.preferences();
    preferences.diskLimitGiB = 1;
    s.setPreferences(preferences);
    ASSERT_TRUE(QTest::qWaitFor([&] { return s.state().decision.reason == PauseReason::DiskFull; }, 10'000));
    EXPECT_EQ(ThrottleMonitor::describe(s.state().decision),
              QStringLiteral("Paused: SwarmTrain's files are over your disk limit"));

    preferences.diskLimitGiB = 2;
    s.setPreferences(preferences);
    ASSERT_TRUE(QTest::qWaitFor([&] { return s.state().decision.running(); }, 10'000));
}

} // namespace
