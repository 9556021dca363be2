#pragma once

#include "PowerSource.h"

#include <filesystem>

namespace swarmtrain {

// Linux: /sys/class/power_supply. On battery when no mains adapter is online and a battery
// is discharging; a desktop without a battery is never on battery.
class SysfsPowerSource : public PowerSource {
public:
    explicit SysfsPowerSource(std::filesystem::path root = "/sys/class/power_supply") : m_root(std::move(root)) {}
    std::optional<bool> onBattery() const override;

private:
    std::filesystem::path m_root;
};

} // namespace swarmtrain
