#pragma once

#include <filesystem>
#include <memory>
#include <optional>

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

std::unique_ptr<PowerSource> makePowerSource();

} // namespace swarmtrain
