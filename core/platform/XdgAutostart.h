#pragma once

#include "Autostart.h"

namespace swarmtrain {

// Linux and other XDG desktops: CONFIG/autostart/swarmtrain.desktop, where CONFIG is
// $XDG_CONFIG_HOME or ~/.config (or a test's folder).
class XdgAutostart : public Autostart {
public:
    explicit XdgAutostart(std::filesystem::path configDir);
    // From the environment, as the desktop reads it.
    static std::filesystem::path defaultConfigDir();

    bool isEnabled() const override;
    Result<void> enable(const std::filesystem::path &executable, const std::string &arguments) override;
    Result<void> disable() override;

    std::filesystem::path file() const { return m_configDir / "autostart" / "swarmtrain.desktop"; }

private:
    std::filesystem::path m_configDir;
};

} // namespace swarmtrain
