#include "ProcfsProcessList.h"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace swarmtrain {

namespace {

// The file name of argv[0] ("Cyberpunk2077.exe" also under Wine, whose paths use '\\'); the
// kernel's `comm` is cut to 15 characters, so it is only the fallback (kernel threads).
std::string processName(const std::filesystem::path &processDir)
{
    std::ifstream cmdline(processDir / "cmdline", std::ios::binary);
    std::string argv0;
    std::getline(cmdline, argv0, '\0');
    if (!argv0.empty()) {
        const std::size_t slash = argv0.find_last_of("/\\");
        return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
    }
    std::ifstream comm(processDir / "comm");
    std::string name;
    std::getline(comm, name);
    return name;
}

} // namespace

std::vector<std::string> ProcfsProcessList::runningNames() const
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(m_root, ec)) {
        const std::string pid = entry.path().filename().string();
        if (pid.empty() || !std::all_of(pid.begin(), pid.end(), [](unsigned char c) { return std::isdigit(c); }))
            continue;
        // A process may end between listing and reading; it is simply not there then.
        if (std::string name = processName(entry.path()); !name.empty())
            names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

} // namespace swarmtrain
