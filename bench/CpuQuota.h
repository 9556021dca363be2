#pragma once

// Benchmarks' CPU quotas: peers made slower, or all made equal, on one machine (root and the
// cgroup v1 cpu controller at /sys/fs/cgroup/cpu).

#include "Result.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace swarmtrain::bench {

// A cgroup v1 cpu group limited to `share` of one core; threads are moved in by id.
class CpuQuota {
public:
    static Result<CpuQuota> create(const std::string &name, double share)
    {
        const std::filesystem::path root = "/sys/fs/cgroup/cpu";
        if (!std::filesystem::exists(root / "cgroup.procs"))
            return makeError("no cgroup v1 cpu controller at /sys/fs/cgroup/cpu");
        CpuQuota quota(root / name);
        std::error_code error;
        std::filesystem::create_directory(quota.m_dir, error);
        if (error)
            return makeError("cannot create " + quota.m_dir.string() + ": " + error.message());
        if (!quota.write("cpu.cfs_period_us", "100000") || !quota.write("cpu.cfs_quota_us", std::to_string(int(share * 100000))))
            return makeError("cannot set the quota of " + quota.m_dir.string() + " (root is needed)");
        return quota;
    }
    CpuQuota(CpuQuota &&other) noexcept : m_dir(std::exchange(other.m_dir, {})) {}
    ~CpuQuota()
    {
        if (m_dir.empty())
            return;
        // Threads go back to the root group before the group is removed.
        std::ifstream tasks(m_dir / "tasks");
        for (std::string tid; std::getline(tasks, tid);)
            std::ofstream(m_dir.parent_path() / "tasks") << tid << '\n';
        std::error_code ignored;
        std::filesystem::remove(m_dir, ignored);
    }
    bool add(int threadId) const { return write("tasks", std::to_string(threadId)); }
    // A whole process, every thread of it and those it starts later.
    bool addProcess(int pid) const { return write("cgroup.procs", std::to_string(pid)); }

private:
    explicit CpuQuota(std::filesystem::path dir) : m_dir(std::move(dir)) {}
    bool write(const std::string &file, const std::string &value) const
    {
        std::ofstream out(m_dir / file);
        out << value << '\n';
        out.flush();
        return bool(out);
    }
    std::filesystem::path m_dir;
};

} // namespace swarmtrain::bench
