#pragma once

#include "ProcessList.h"

#include <filesystem>

namespace swarmtrain {

// Linux: the `comm` of every process in /proc (or a test's fake root).
class ProcfsProcessList : public ProcessList {
public:
    explicit ProcfsProcessList(std::filesystem::path root = "/proc") : m_root(std::move(root)) {}
    std::vector<std::string> runningNames() const override;

private:
    std::filesystem::path m_root;
};

} // namespace swarmtrain
