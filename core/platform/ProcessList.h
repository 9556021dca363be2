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

std::unique_ptr<ProcessList> makeProcessList();

} // namespace swarmtrain
