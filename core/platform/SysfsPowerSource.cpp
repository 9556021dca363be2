#include "SysfsPowerSource.h"

#include <fstream>
#include <string>

namespace swarmtrain {

namespace {

std::string firstLine(const std::filesystem::path &file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

} // namespace

std::optional<bool> SysfsPowerSource::onBattery() const
{
    std::error_code ec;
    bool mainsOnline = false, sawMains = false, discharging = false, sawBattery = false;
    for (const auto &entry : std::filesystem::directory_iterator(m_root, ec)) {
        const std::string type = firstLine(entry.path() / "type");
        if (type == "Mains" || type == "USB") {
            sawMains = true;
            mainsOnline = mainsOnline || firstLine(entry.path() / "online") == "1";
        } else if (type == "Battery") {
            // Peripherals (a mouse's battery) report scope "Device"; only the system's counts.
            if (firstLine(entry.path() / "scope") == "Device")
                continue;
            sawBattery = true;
            discharging = discharging || firstLine(entry.path() / "status") == "Discharging";
        }
    }
    if (ec || (!sawBattery && !sawMains))
        return std::nullopt;
    if (!sawBattery)
        return false;
    if (sawMains)
        return !mainsOnline && discharging;
    return discharging;
}

} // namespace swarmtrain
