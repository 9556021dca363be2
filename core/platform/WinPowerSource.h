#pragma once

#include "PowerSource.h"

#include <functional>

struct _SYSTEM_POWER_STATUS; // <windows.h>'s SYSTEM_POWER_STATUS, kept out of this header

namespace swarmtrain {

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

} // namespace swarmtrain
