#pragma once

#include "TempDir.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace swarmtrain::test {

// Polls `condition` every 100 ms until it holds or `timeout` passes.
inline bool waitUntil(const std::function<bool()> &condition, std::chrono::milliseconds timeout)
{
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

// A real child process (a coordinator, a headless client) with stdout and stderr in files.
class ChildProcess {
public:
    ChildProcess() = default;
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;
    ~ChildProcess() { kill(SIGKILL); }

    // Output files are truncated first.
    bool start(const std::string &executable, const std::vector<std::string> &args, const std::filesystem::path &out,
               const std::filesystem::path &err)
    {
        m_out = out;
        m_err = err;
        m_exitStatus = -1;
        // Gone before the child starts, so no one reads the last run's output as this one's.
        std::error_code ec;
        std::filesystem::remove(out, ec);
        std::filesystem::remove(err, ec);
        m_pid = ::fork();
        if (m_pid < 0)
            return false;
        if (m_pid == 0) {
            // The child dies with the test, even one that crashed before its destructors ran.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            ::dup2(o, STDOUT_FILENO);
            ::dup2(e, STDERR_FILENO);
            std::vector<char *> argv{const_cast<char *>(executable.c_str())};
            for (const std::string &arg : args)
                argv.push_back(const_cast<char *>(arg.c_str()));
            argv.push_back(nullptr);
            ::execv(executable.c_str(), argv.data());
            ::_exit(127);
        }
        return true;
    }

    // Sends `signal` and waits; returns the wait status (-1 when not running). A process still
    // there after `patience` is hung: it is killed and kill returns -2, so the test fails with
    // its logs instead of hanging until ctest's timeout ends it without them.
    int kill(int signal, std::chrono::milliseconds patience = std::chrono::minutes(3))
    {
        if (m_pid <= 0)
            return -1;
        ::kill(m_pid, signal);
        int status = 0;
        const bool ended = waitUntil([&] { return ::waitpid(m_pid, &status, WNOHANG) == m_pid; }, patience);
        if (!ended) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, &status, 0);
            status = -2;
        }
        m_pid = -1;
        return status;
    }

    // Whether the process has ended by itself (its status is kept for waitForExit).
    bool exited()
    {
        int status = 0;
        if (m_pid > 0 && ::waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            m_pid = -1;
        }
        return m_pid <= 0;
    }

    // Waits up to `timeout` for the process to end by itself; its exit code (128 + the signal
    // that ended it), or -1 when it is still running.
    int waitForExit(std::chrono::milliseconds timeout)
    {
        return waitUntil([&] { return exited(); }, timeout) ? m_exitStatus : -1;
    }

    bool running() const { return m_pid > 0; }
    pid_t pid() const { return m_pid; }
    std::string output() const { return readWholeFile(m_out); }
    std::string errors() const { return readWholeFile(m_err); }

private:
    pid_t m_pid = -1;
    int m_exitStatus = -1;
    std::filesystem::path m_out;
    std::filesystem::path m_err;
};

} // namespace swarmtrain::test
