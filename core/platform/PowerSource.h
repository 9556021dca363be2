#pragma once

#include <memory>
#include <optional>

namespace swarmtrain {

// Whether the PC runs on battery. One implementation per OS (sysfs on Linux, UPower could
// come later; GetSystemPowerStatus on Windows; IOKit on macOS), each in a header of its own;
// makePowerSource() picks it.
class PowerSource {
public:
    virtual ~PowerSource() = default;
    // nullopt: unknown (no battery information), which never pauses training.
    virtual std::optional<bool> onBattery() const = 0;
};

std::unique_ptr<PowerSource> makePowerSource();

} // namespace swarmtrain
