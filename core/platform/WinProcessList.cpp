#include "WinProcessList.h"

#include "WinText.h"

#include <tlhelp32.h>

#include <algorithm>

namespace swarmtrain {

std::vector<std::string> WinProcessList::runningNames() const
{
    std::vector<std::string> names;
    HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snapshot == INVALID_HANDLE_VALUE)
        return names;
    PROCESSENTRY32W entry{};
    entry.dwSize = sizeof(entry);
    for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry)) {
        // szExeFile is the file name only ("game.exe"), not cut short like Linux's comm.
        if (std::string name = toUtf8(entry.szExeFile); !name.empty())
            names.push_back(std::move(name));
    }
    CloseHandle(snapshot);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

} // namespace swarmtrain
