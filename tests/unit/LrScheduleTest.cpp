#include "LrSchedule.h"

#include <gtest/gtest.h>

using swarmtrain::LrSchedule;

TEST(LrScheduleTest, WarmsUpLinearly)
{
    const LrSchedule s{1e-3, 1e-4, 100, 2000};
    EXPECT_DOUBLE_EQ(s.at(0), 1e-3 * 1 / 101);
    EXPECT_DOUBLE_EQ(s.at(49), 1e-3 * 50 / 101);
    EXPECT_LT(s.at(10), s.at(11));
}

TEST(LrScheduleTest, DecaysAlongACosineToTheFloor)
{
    const LrSchedule s{1e-3, 1e-4, 100, 2000};
    EXPECT_DOUBLE_EQ(s.at(100), 1e-3);
    EXPECT_NEAR(s.at(1050), (1e-3 + 1e-4) / 2, 1e-12); // halfway: cos(pi/2) = 0
    EXPECT_NEAR(s.at(2000), 1e-4, 1e-12);
    EXPECT_DOUBLE_EQ(s.at(5000), 1e-4);
    for (int it = 101; it < 2000; ++it)
        ASSERT_LE(s.at(it), s.at(it - 1));
}
