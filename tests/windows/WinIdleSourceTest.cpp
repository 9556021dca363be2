#include "WinIdleSource.h"

#include "WinText.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

TEST(WinIdleSourceTest, TicksBecomeSecondsAcrossTheCountersWrap)
{
    EXPECT_DOUBLE_EQ(WinIdleSource::secondsBetween(1000, 4500), 3.5);
    EXPECT_DOUBLE_EQ(WinIdleSource::secondsBetween(5, 5), 0.0);
    // GetTickCount() wraps to 0 every 49.7 days.
    EXPECT_DOUBLE_EQ(WinIdleSource::secondsBetween(0xFFFFFC18u, 500), 1.5);
}

TEST(WinIdleSourceTest, ThisSessionHasAnIdleTimeNoLongerThanItsUptime)
{
    const std::optional<double> idle = WinIdleSource().idleSeconds();
    ASSERT_TRUE(idle.has_value());
    EXPECT_GE(*idle, 0.0);
    EXPECT_LE(*idle, double(GetTickCount64()) / 1000.0 + 1.0);
}

TEST(WinIdleSourceTest, InputMakesTheSessionBusy)
{
    // A zero-distance relative mouse move: input the system counts, which moves nothing.
    INPUT input{};
    input.type = INPUT_MOUSE;
    input.mi.dwFlags = MOUSEEVENTF_MOVE;
    if (SendInput(1, &input, sizeof(input)) != 1)
        GTEST_SKIP() << "this session does not accept synthetic input (a locked or service session)";
    const std::optional<double> idle = WinIdleSource().idleSeconds();
    ASSERT_TRUE(idle.has_value());
    EXPECT_LT(*idle, 5.0) << "the input just sent was not counted";
}
