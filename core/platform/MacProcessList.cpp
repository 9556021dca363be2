#include "MacProcessList.h"

#include <libproc.h>
#include <sys/param.h>
#include <sys/proc_info.h>

#include <algorithm>
#include <cstring>

namespace swarmtrain {

std::vector<std::string> MacProcessList::runningNames() const
{
    std::vector<std::string> names;
    // The first call says how many bytes the pids take now; leave room for processes started since.
    const int bytes = proc_listpids(PROC_ALL_PIDS, 0, nullptr, 0);
    if (bytes <= 0)
        return names;
    std::vector<pid_t> pids(std::size_t(bytes) / sizeof(pid_t) + 64);
    const int filled = proc_listpids(PROC_ALL_PIDS, 0, pids.data(), int(pids.size() * sizeof(pid_t)));
    if (filled <= 0)
        return names;
    pids.resize(std::size_t(filled) / sizeof(pid_t));

    for (const pid_t pid : pids) {
        if (pid <= 0)
            continue;
        // proc_name is cut to 32 characters; the executable's path is not, where it may be read.
        char path[PROC_PIDPATHINFO_MAXSIZE] = {};
        std::string name;
        if (proc_pidpath(pid, path, sizeof(path)) > 0) {
            const char *slash = std::strrchr(path, '/');
            name = slash ? slash + 1 : path;
        } else {
            char shortName[2 * MAXCOMLEN + 1] = {};
            if (proc_name(pid, shortName, sizeof(shortName)) > 0)
                name = shortName;
        }
        // A process may end between listing and reading; it is simply not there then.
        if (!name.empty())
            names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

} // namespace swarmtrain
