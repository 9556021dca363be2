#include "SysfsPowerSource.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

// A fake /sys/class/power_supply.
class PowerSourceTest : public ::testing::Test {
protected:
    void supply(const std::string &name, const std::string &type, const std::string &file, const std::string &value,
                const std::string &scope = {})
    {
        dir.write(name + "/type", type + "\n");
        dir.write(name + "/" + file, value + "\n");
        if (!scope.empty())
            dir.write(name + "/scope", scope + "\n");
    }
    std::optional<bool> onBattery() const { return SysfsPowerSource(dir.path()).onBattery(); }

    test::TempDir dir;
};

} // namespace

TEST_F(PowerSourceTest, LaptopOnMainsIsNotOnBattery)
{
    supply("AC", "Mains", "online", "1");
    supply("BAT0", "Battery", "status", "Charging");
    EXPECT_EQ(onBattery(), false);
}

TEST_F(PowerSourceTest, LaptopUnpluggedIsOnBattery)
{
    supply("AC", "Mains", "online", "0");
    supply("BAT0", "Battery", "status", "Discharging");
    EXPECT_EQ(onBattery(), true);
}

TEST_F(PowerSourceTest, DesktopWithoutBatteryIsNeverOnBattery)
{
    supply("AC", "Mains", "online", "1");
    EXPECT_EQ(onBattery(), false);
    // A wireless mouse's battery is not the PC's.
    supply("hidpp_battery_0", "Battery", "status", "Discharging", "Device");
    EXPECT_EQ(onBattery(), false);
}

TEST_F(PowerSourceTest, NothingToReadIsUnknown)
{
    EXPECT_EQ(onBattery(), std::nullopt);
    EXPECT_EQ(SysfsPowerSource(dir.path() / "missing").onBattery(), std::nullopt);
}
