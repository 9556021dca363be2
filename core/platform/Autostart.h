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

// The text of a launchd LaunchAgent (an XML property list) that starts `executable` with
// `arguments` at login. `arguments` is split as a POSIX shell would (blanks separate words,
// quotes and backslashes keep them together), since launchd takes an array, not a command line.
// Plain text on every OS, so its tests run anywhere.
std::string launchAgentPlist(const std::string &label, const std::filesystem::path &executable,
                             const std::string &arguments);

#ifdef _WIN32
// Windows: a value under HKEY_CURRENT_USER's Run key holding the command line, as the shell
// starts programs at login. Task Manager's Startup tab turns the value off without removing it
// (in StartupApproved\Run), so that is read as well; enabling here clears that switch again.
class WinAutostart : public Autostart {
public:
    static constexpr const wchar_t *defaultRunKey = L"Software\\Microsoft\\Windows\\CurrentVersion\\Run";
    static constexpr const wchar_t *defaultApprovedKey =
        L"Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\StartupApproved\\Run";

    // Keys under HKEY_CURRENT_USER (a test's scratch keys).
    explicit WinAutostart(std::wstring runKey = defaultRunKey, std::wstring approvedKey = defaultApprovedKey,
                          std::wstring valueName = L"SwarmTrain");

    bool isEnabled() const override;
    Result<void> enable(const std::filesystem::path &executable, const std::string &arguments) override;
    Result<void> disable() override;

private:
    std::wstring m_runKey;
    std::wstring m_approvedKey;
    std::wstring m_valueName;
};
#endif

#ifdef __APPLE__
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
#endif

std::unique_ptr<Autostart> makeAutostart();

} // namespace swarmtrain
