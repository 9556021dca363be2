#include "WinAutostart.h"

#include "WinText.h"

namespace swarmtrain {

namespace {

// The shell splits the Run value like any command line: the program's path is quoted so that
// "C:\Program Files\..." stays one word (a Windows path cannot contain '"').
std::wstring commandLine(const std::filesystem::path &executable, const std::string &arguments)
{
    std::wstring command = L"\"" + executable.wstring() + L"\"";
    if (!arguments.empty())
        command += L" " + fromUtf8(arguments);
    return command;
}

// Removing what is not there is not an error.
LONG deleteValue(const std::wstring &key, const std::wstring &name)
{
    const LONG status = RegDeleteKeyValueW(HKEY_CURRENT_USER, key.c_str(), name.c_str());
    return status == ERROR_FILE_NOT_FOUND || status == ERROR_PATH_NOT_FOUND ? ERROR_SUCCESS : status;
}

} // namespace

WinAutostart::WinAutostart(std::wstring runKey, std::wstring approvedKey, std::wstring valueName)
    : m_runKey(std::move(runKey)), m_approvedKey(std::move(approvedKey)), m_valueName(std::move(valueName))
{
}

bool WinAutostart::isEnabled() const
{
    DWORD size = 0;
    if (RegGetValueW(HKEY_CURRENT_USER, m_runKey.c_str(), m_valueName.c_str(),
                     RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND, nullptr, nullptr, &size) != ERROR_SUCCESS)
        return false;
    // StartupApproved holds 12 bytes per program; the first byte's low bit set means "disabled".
    BYTE approved[64] = {};
    DWORD approvedSize = sizeof(approved);
    const LONG status = RegGetValueW(HKEY_CURRENT_USER, m_approvedKey.c_str(), m_valueName.c_str(), RRF_RT_REG_BINARY,
                                     nullptr, approved, &approvedSize);
    return !(status == ERROR_SUCCESS && approvedSize >= 1 && (approved[0] & 1));
}

Result<void> WinAutostart::enable(const std::filesystem::path &executable, const std::string &arguments)
{
    HKEY key = nullptr;
    LONG status = RegCreateKeyExW(HKEY_CURRENT_USER, m_runKey.c_str(), 0, nullptr, REG_OPTION_NON_VOLATILE,
                                  KEY_SET_VALUE, nullptr, &key, nullptr);
    if (status != ERROR_SUCCESS)
        return makeError("cannot open the registry key HKCU\\" + toUtf8(m_runKey) + ": " + windowsErrorText(status));
    const std::wstring command = commandLine(executable, arguments);
    status = RegSetValueExW(key, m_valueName.c_str(), 0, REG_SZ, reinterpret_cast<const BYTE *>(command.c_str()),
                            DWORD((command.size() + 1) * sizeof(wchar_t)));
    RegCloseKey(key);
    if (status != ERROR_SUCCESS)
        return makeError("cannot write the registry key HKCU\\" + toUtf8(m_runKey) + ": " + windowsErrorText(status));
    // The person asked for it here, so an earlier "disabled" from Task Manager no longer holds.
    status = deleteValue(m_approvedKey, m_valueName);
    if (status != ERROR_SUCCESS)
        return makeError("cannot clear HKCU\\" + toUtf8(m_approvedKey) + ": " + windowsErrorText(status));
    return {};
}

Result<void> WinAutostart::disable()
{
    if (const LONG status = deleteValue(m_runKey, m_valueName); status != ERROR_SUCCESS)
        return makeError("cannot remove the value from HKCU\\" + toUtf8(m_runKey) + ": " + windowsErrorText(status));
    if (const LONG status = deleteValue(m_approvedKey, m_valueName); status != ERROR_SUCCESS)
        return makeError("cannot remove the value from HKCU\\" + toUtf8(m_approvedKey) + ": " +
                         windowsErrorText(status));
    return {};
}

} // namespace swarmtrain
