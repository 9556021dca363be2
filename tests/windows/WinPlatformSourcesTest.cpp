#include "WinAutostart.h"
#include "WinIdleSource.h"
#include "WinPowerSource.h"
#include "WinProcessList.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

// PlatformSources.cpp's _WIN32 branch: every concern gets its Win32 source.
TEST(WinPlatformSourcesTest, EachConcernHasItsWindowsSource)
{
    EXPECT_NE(dynamic_cast<WinIdleSource *>(makeIdleSource().get()), nullptr);
    EXPECT_NE(dynamic_cast<WinPowerSource *>(makePowerSource().get()), nullptr);
    EXPECT_NE(dynamic_cast<WinProcessList *>(makeProcessList().get()), nullptr);
    EXPECT_NE(dynamic_cast<WinAutostart *>(makeAutostart().get()), nullptr);
}
