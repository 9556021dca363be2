#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#ifdef _WIN32
struct _SYSTEM_POWER_STATUS; // <windows.h>'s SYSTEM_POWER_STATUS, kept out of this header
#endif

namespace swarmtrain {

// Whether the PC runs on battery. One implementation per OS (sysfs on Linux, UPower could
// come later; GetSystemPowerStatus on Windows; IOKit on macOS); makePowerSource() picks it.
class PowerSource {
public:
    virtual ~PowerSource() = default;
    // nullopt: unknown (no battery information), which never pauses training.
    virtual std::optional<bool> onBattery() const = 0;
};

// Linux: /sys/class/power_supply. On battery when no mains adapter is online and a battery
// is discharging; a desktop without a battery is never on battery.
class SysfsPowerSource : public PowerSource {
public:
    explicit SysfsPowerSource(std::filesystem::path root = "/sys/class/power_supply") : m_root(std::move(root)) {}
    std::optional<bool> onBattery() const override;

private:
    std::filesystem::path m_root;
};

#ifdef _WIN32
// Windows: GetSystemPowerStatus. On battery when the AC line is off (or on backup power) and
// the PC has a system battery; unknown when Windows does not know the AC line's state.
class WinPowerSource : public PowerSource {
public:
    // Fills the status and says whether it could, like GetSystemPowerStatus (the default).
    using StatusReader = std::function<bool(::_SYSTEM_POWER_STATUS &)>;
    explicit WinPowerSource(StatusReader readStatus = {});
    std::optional<bool> onBattery() const override;

private:
    StatusReader m_readStatus;
};
#endif

#ifdef __APPLE__
// macOS: IOPSCopyPowerSourcesInfo's providing power source. On battery on "Battery Power" and
// on a UPS's power; a Mac without a battery always reports AC power.
class MacPowerSource : public PowerSource {
public:
    std::optional<bool> onBattery() const override;
};
#endif

std::unique_ptr<PowerSource> makePowerSource();

} // namespace swarmtrain
