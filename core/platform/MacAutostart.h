#pragma once

#include "Autostart.h"

namespace swarmtrain {

// macOS: DIR/org.swarmtrain.client.plist, where DIR is ~/Library/LaunchAgents (or a test's
// folder); launchd starts it at the next login (RunAtLoad).
class MacAutostart : public Autostart {
public:
    static constexpr const char *label = "org.swarmtrain.client";

    explicit MacAutostart(std::filesystem::path launchAgentsDir);
    static std::filesystem::path defaultLaunchAgentsDir();

    bool isEnabled() const override;
    Result<void> enable(const std::filesystem::path &executable, const std::string &arguments) override;
    Result<void> disable() override;

    std::filesystem::path file() const { return m_dir / (std::string(label) + ".plist"); }

private:
    std::filesystem::path m_dir;
};

} // namespace swarmtrain
