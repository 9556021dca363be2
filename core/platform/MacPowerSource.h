#pragma once

#include "PowerSource.h"

namespace swarmtrain {

// macOS: IOPSCopyPowerSourcesInfo's providing power source. On battery on "Battery Power" and
// on a UPS's power; a Mac without a battery always reports AC power.
class MacPowerSource : public PowerSource {
public:
    std::optional<bool> onBattery() const override;
};

} // namespace swarmtrain
