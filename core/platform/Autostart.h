#pragma once

#include "Result.h"

#include <filesystem>
#include <memory>
#include <string>

namespace swarmtrain {

// Starting SwarmTrain when the person logs in. One implementation per OS (an XDG autostart
// file on Linux, the Run key on Windows, a LaunchAgent on macOS); makeAutostart() picks it.
class Autostart {
public:
    virtual ~Autostart() = default;
    virtual bool isEnabled() const = 0;
    // `executable` is started with `arguments` (already quoted for the OS's command line).
    virtual Result<void> enable(const std::filesystem::path &executable, const std::string &arguments) = 0;
    virtual Result<void> disable() = 0;
};

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

std::unique_ptr<Autostart> makeAutostart();

} // namespace swarmtrain
