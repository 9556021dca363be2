#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace swarmtrain {

// The names of the programs running now, to find the person's exclusive apps (games). One
// implementation per OS (/proc on Linux, Toolhelp32 on Windows, libproc on macOS);
// makeProcessList() picks it.
class ProcessList {
public:
    virtual ~ProcessList() = default;
    virtual std::vector<std::string> runningNames() const = 0;
};

// Linux: the `comm` of every process in /proc (or a test's fake root).
class ProcfsProcessList : public ProcessList {
public:
    explicit ProcfsProcessList(std::filesystem::path root = "/proc") : m_root(std::move(root)) {}
    std::vector<std::string> runningNames() const override;

private:
    std::filesystem::path m_root;
};

#ifdef _WIN32
// Windows: the executable file names ("Cyberpunk2077.exe") of a Toolhelp32 snapshot.
class WinProcessList : public ProcessList {
public:
    std::vector<std::string> runningNames() const override;
};
#endif

#ifdef __APPLE__
// macOS: libproc's list of processes, each named by its executable's file name (proc_pidpath),
// or by proc_name where the path may not be read.
class MacProcessList : public ProcessList {
public:
    std::vector<std::string> runningNames() const override;
};
#endif

std::unique_ptr<ProcessList> makeProcessList();

} // namespace swarmtrain
