#include "WinPowerSource.h"

#include "WinText.h"

namespace swarmtrain {

WinPowerSource::WinPowerSource(StatusReader readStatus) : m_readStatus(std::move(readStatus))
{
    if (!m_readStatus)
        m_readStatus = [](SYSTEM_POWER_STATUS &status) { return GetSystemPowerStatus(&status) != FALSE; };
}

std::optional<bool> WinPowerSource::onBattery() const
{
    SYSTEM_POWER_STATUS status{};
    if (!m_readStatus(status))
        return std::nullopt;
    // A desktop PC: never on battery, whatever the AC line reads (some drivers report "offline").
    if (status.BatteryFlag != BATTERY_FLAG_UNKNOWN && (status.BatteryFlag & BATTERY_FLAG_NO_BATTERY))
        return false;
    switch (status.ACLineStatus) {
    case AC_LINE_ONLINE:
        return false;
    case AC_LINE_OFFLINE:
    case AC_LINE_BACKUP_POWER:
        return true;
    default: // AC_LINE_UNKNOWN
        return std::nullopt;
    }
}

} // namespace swarmtrain
