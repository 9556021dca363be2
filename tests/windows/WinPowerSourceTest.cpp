#include "WinPowerSource.h"

#include "WinText.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// What GetSystemPowerStatus would report.
std::optional<bool> onBatteryWith(BYTE acLineStatus, BYTE batteryFlag)
{
    return WinPowerSource([=](SYSTEM_POWER_STATUS &status) {
               status.ACLineStatus = acLineStatus;
               status.BatteryFlag = batteryFlag;
               status.BatteryLifePercent = 50;
               return true;
           })
        .onBattery();
}

} // namespace

TEST(WinPowerSourceTest, LaptopOnMainsIsNotOnBattery)
{
    EXPECT_EQ(onBatteryWith(AC_LINE_ONLINE, BATTERY_FLAG_CHARGING | BATTERY_FLAG_HIGH), false);
}

TEST(WinPowerSourceTest, LaptopUnpluggedIsOnBattery)
{
    EXPECT_EQ(onBatteryWith(AC_LINE_OFFLINE, BATTERY_FLAG_HIGH), true);
    EXPECT_EQ(onBatteryWith(AC_LINE_OFFLINE, BATTERY_FLAG_LOW | BATTERY_FLAG_CRITICAL), true);
    EXPECT_EQ(onBatteryWith(AC_LINE_BACKUP_POWER, BATTERY_FLAG_HIGH), true) << "a UPS's battery is a battery too";
}

TEST(WinPowerSourceTest, DesktopWithoutBatteryIsNeverOnBattery)
{
    EXPECT_EQ(onBatteryWith(AC_LINE_ONLINE, BATTERY_FLAG_NO_BATTERY), false);
    EXPECT_EQ(onBatteryWith(AC_LINE_OFFLINE, BATTERY_FLAG_NO_BATTERY), false) << "a driver that misreads the AC line";
    EXPECT_EQ(onBatteryWith(AC_LINE_UNKNOWN, BATTERY_FLAG_NO_BATTERY), false);
}

TEST(WinPowerSourceTest, WhatWindowsDoesNotKnowIsUnknown)
{
    EXPECT_EQ(onBatteryWith(AC_LINE_UNKNOWN, BATTERY_FLAG_HIGH), std::nullopt);
    EXPECT_EQ(onBatteryWith(AC_LINE_UNKNOWN, BATTERY_FLAG_UNKNOWN), std::nullopt);
    EXPECT_EQ(onBatteryWith(AC_LINE_ONLINE, BATTERY_FLAG_UNKNOWN), false);
    EXPECT_EQ(WinPowerSource([](SYSTEM_POWER_STATUS &) { return false; }).onBattery(), std::nullopt)
        << "GetSystemPowerStatus failed";
}

TEST(WinPowerSourceTest, ByDefaultItAsksGetSystemPowerStatus)
{
    const WinPowerSource fromWindows([](SYSTEM_POWER_STATUS &status) { return GetSystemPowerStatus(&status) != FALSE; });
    EXPECT_EQ(WinPowerSource().onBattery(), fromWindows.onBattery());
}
