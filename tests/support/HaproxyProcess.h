#pragma once

#include "ChildProcess.h"
#include "FreePort.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace swarmtrain::test {

// HAProxy in the foreground, in front of coordinator instances on 127.0.0.1, running a configuration
// such as installer/coordinator/haproxy.cfg that reads its addresses from the environment:
// SWARMTRAIN_LISTEN and SWARMTRAIN_INSTANCE_1, _2, ... (one per entry of instancePorts).
class HaproxyProcess {
public:
    HaproxyProcess() = default;
    HaproxyProcess(const HaproxyProcess &) = delete;
    HaproxyProcess &operator=(const HaproxyProcess &) = delete;
    ~HaproxyProcess() { stop(); }

    // "" when haproxy is installed, else why not (for GTEST_SKIP() << reason).
    static std::string unavailableReason()
    {
        return binary().empty() ? "no haproxy in /usr/sbin or on PATH (install haproxy)" : std::string();
    }

    // Starts `haproxy -db -f config` with its output in logDir/haproxy.out and .err, and waits until it
    // accepts connections on listenPort. False when it ended (a configuration error, a port in use) or
    // did not listen within 30 s; output() says why.
    bool start(const std::filesystem::path &config, int listenPort, const std::vector<int> &instancePorts,
               const std::filesystem::path &logDir)
    {
        stop();
        // Through env(1): ChildProcess passes this process's environment on unchanged, and setenv here
        // would change it for every thread of the test.
        std::vector<std::string> args{"SWARMTRAIN_LISTEN=127.0.0.1:" + std::to_string(listenPort)};
        for (std::size_t i = 0; i < instancePorts.size(); ++i)
            args.push_back("SWARMTRAIN_INSTANCE_" + std::to_string(i + 1) + "=127.0.0.1:"
                           + std::to_string(instancePorts[i]));
        args.insert(args.end(), {binary(), "-db", "-f", config.string()});
        if (!m_process.start("/usr/bin/env", args, logDir / "haproxy.out", logDir / "haproxy.err"))
            return false;
        // A configuration error ends it at once: no use waiting the whole time for a port that never opens.
        waitUntil([&] { return m_process.exited() || acceptsConnections(listenPort); }, std::chrono::seconds(30));
        if (m_process.running() && acceptsConnections(listenPort))
            return true;
        stop();
        return false;
    }

    // A hard stop (SIGTERM): connections in progress are cut, as when the machine in front goes away.
    void stop() { m_process.kill(SIGTERM, std::chrono::seconds(10)); }

    bool running() { return !m_process.exited(); }
    pid_t pid() const { return m_process.pid(); }
    // Its log lines (stdout) and its warnings and errors (stderr), for failure messages.
    std::string output() const { return m_process.output() + m_process.errors(); }

private:
    static std::string binary()
    {
        if (::access("/usr/sbin/haproxy", X_OK) == 0)
            return "/usr/sbin/haproxy";
        const char *path = std::getenv("PATH");
        std::string rest = path != nullptr ? path : "";
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string candidate = rest.substr(0, colon) + "/haproxy";
            if (::access(candidate.c_str(), X_OK) == 0)
                return candidate;
            rest = colon == std::string::npos ? std::string() : rest.substr(colon + 1);
        }
        return {};
    }

    ChildProcess m_process;
};

} // namespace swarmtrain::test
