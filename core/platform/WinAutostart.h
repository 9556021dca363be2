#pragma once

#include "Autostart.h"

namespace swarmtrain {

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

} // namespace swarmtrain
