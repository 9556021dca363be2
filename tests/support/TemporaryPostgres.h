#pragma once

#include "ChildProcess.h"
#include "FreePort.h"
#include "TempDir.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <glob.h>
#include <grp.h>
#include <memory>
#include <pwd.h>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace swarmtrain::test {

// A real PostgreSQL server (the newest installed, 15 on Debian 12) in a folder of a TempDir, with the
// database `swarmtrain`, reached over TCP on 127.0.0.1 with trust authentication. The folder holds the
// data, the socket, the server's log (postgres.log) and each command's output (initdb.out, ...).
//
// PostgreSQL refuses to run as root: a test running as root runs the server as `postgres` (Debian's
// package creates it) or else `nobody`. The folder must then lie under the system temp dir, whose
// folders on the way are made traversable for that user.
//
// The server is started by pg_ctl, so it is no child of the test and outlives one that crashes (the
// destructor stops it otherwise); `pg_ctl stop -D <folder>/data` ends a leftover one.
class TemporaryPostgres {
public:
    // In a folder of a TempDir of its own.
    TemporaryPostgres() : m_ownDir(std::make_unique<TempDir>()), m_folder(m_ownDir->path() / "postgres") {}
    // In `folder` (created), e.g. a folder of the test's TempDir, so the server's log stays with the test's.
    explicit TemporaryPostgres(const std::filesystem::path &folder) : m_folder(std::filesystem::absolute(folder)) {}
    ~TemporaryPostgres() { stop(); }
    TemporaryPostgres(const TemporaryPostgres &) = delete;
    TemporaryPostgres &operator=(const TemporaryPostgres &) = delete;

    // "" when a server can be started here, else why not (for GTEST_SKIP() << reason).
    static std::string unavailableReason()
    {
        const std::filesystem::path initdb = findInitdb();
        if (initdb.empty())
            return "no initdb under /usr/lib/postgresql/*/bin or on PATH (install postgresql)";
        for (const char *tool : {"pg_ctl", "createdb"}) {
            if (findTool(initdb.parent_path(), tool).empty())
                return std::string("no ") + tool + " next to " + initdb.string() + " or on PATH";
        }
        if (::geteuid() == 0 && !serverAccount().valid)
            return "running as root, and there is no user `postgres` or `nobody` to run PostgreSQL as";
        return {};
    }

    // Creates the cluster and the database on the first call, then starts the server and waits until it
    // accepts connections. A later call (after stop) starts the same data on the same port.
    bool start()
    {
        if (m_running)
            return true;
        m_error.clear();
        if (!m_initialized && !initialize())
            return false;
        if (!startServer())
            return false;
        m_running = true;
        if (!m_databaseCreated)
            m_databaseCreated = createDatabase();
        return m_databaseCreated;
    }

    // A fast shutdown (open connections are cut); an immediate one when that does not end in time.
    void stop()
    {
        m_running = false;
        // Also after a start that failed half-way: a server that came up late is still there.
        if (!m_initialized || !std::filesystem::exists(dataDir() / "postmaster.pid"))
            return;
        const std::vector<std::string> fast{m_pgCtl, "stop", "-D", dataDir(), "-m", "fast", "-w", "-t", "60"};
        if (run(fast, "pg_ctl-stop", std::chrono::seconds(90)) != 0)
            run({m_pgCtl, "stop", "-D", dataDir(), "-m", "immediate", "-w", "-t", "60"}, "pg_ctl-stop-immediate",
                std::chrono::seconds(90));
    }

    // For tests that lose the database mid-run: the same data, on the same port, so URLs stay valid.
    bool restart()
    {
        stop();
        return start();
    }

    std::string url() const { return "postgresql://postgres@127.0.0.1:" + std::to_string(m_port) + "/swarmtrain"; }
    int port() const { return m_port; }
    bool running() const { return m_running; }
    const std::filesystem::path &folder() const { return m_folder; }
    // The server's log, all starts together, for failure messages.
    std::string log() const { return readWholeFile(m_folder / "postgres.log"); }
    // Why the last start, stop or restart failed: the command, its exit code and its output.
    std::string error() const { return m_error; }

private:
    struct Account {
        bool valid = false;
        bool switchUser = false;
        uid_t uid = 0;
        gid_t gid = 0;
    };

    static constexpr auto kCommandTimeout = std::chrono::minutes(3);

    std::filesystem::path dataDir() const { return m_folder / "data"; }

    // The newest /usr/lib/postgresql/<version>/bin/initdb (Debian keeps it off PATH), else initdb on PATH.
    static std::filesystem::path findInitdb()
    {
        std::filesystem::path best;
        int bestVersion = -1;
        glob_t found{};
        if (::glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &found) == 0) {
            for (std::size_t i = 0; i < found.gl_pathc; ++i) {
                const std::filesystem::path initdb = found.gl_pathv[i];
                const int version = std::atoi(initdb.parent_path().parent_path().filename().c_str());
                if (version > bestVersion && ::access(initdb.c_str(), X_OK) == 0) {
                    best = initdb;
                    bestVersion = version;
                }
            }
        }
        ::globfree(&found);
        return best.empty() ? findOnPath("initdb") : best;
    }

    // `name` next to initdb, so the tools match the server's version; else on PATH.
    static std::filesystem::path findTool(const std::filesystem::path &binDir, const std::string &name)
    {
        const std::filesystem::path beside = binDir / name;
        return ::access(beside.c_str(), X_OK) == 0 ? beside : findOnPath(name);
    }

    static std::filesystem::path findOnPath(const std::string &name)
    {
        const char *path = std::getenv("PATH");
        std::string rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / name;
            if (!candidate.parent_path().empty() && ::access(candidate.c_str(), X_OK) == 0)
                return candidate;
            rest = colon == std::string::npos ? std::string() : rest.substr(colon + 1);
        }
        return {};
    }

    // Who runs the server: this process's user, or when that is root (which PostgreSQL refuses) an
    // unprivileged one.
    static Account serverAccount()
    {
        if (::geteuid() != 0)
            return Account{true, false, ::geteuid(), ::getegid()};
        for (const char *name : {"postgres", "nobody"}) {
            if (const passwd *user = ::getpwnam(name); user != nullptr && user->pw_uid != 0)
                return Account{true, true, user->pw_uid, user->pw_gid};
        }
        return {};
    }

    bool initialize()
    {
        const std::string reason = unavailableReason();
        if (!reason.empty())
            return fail(reason);
        const std::filesystem::path initdb = findInitdb();
        m_pgCtl = findTool(initdb.parent_path(), "pg_ctl");
        m_createdb = findTool(initdb.parent_path(), "createdb");
        m_account = serverAccount();
        if (!prepareFolder())
            return false;
        const std::vector<std::string> command{initdb, "-D", dataDir(), "-A", "trust", "-U", "postgres", "--no-sync",
                                               "-E", "UTF8", "--locale=C"};
        if (run(command, "initdb", kCommandTimeout) != 0)
            return false;
        m_initialized = true;
        return true;
    }

    // The folder belongs to the server's user, and the folders above it up to the temp dir let it pass.
    bool prepareFolder()
    {
        std::error_code ec;
        std::filesystem::create_directories(m_folder, ec);
        if (ec)
            return fail("cannot create " + m_folder.string() + ": " + ec.message());
        if (!m_account.switchUser)
            return true;
        namespace fs = std::filesystem;
        const fs::path temp = fs::weakly_canonical(fs::temp_directory_path());
        for (fs::path above = fs::weakly_canonical(m_folder).parent_path(); isInside(above, temp);
             above = above.parent_path())
            fs::permissions(above, fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add, ec);
        if (::chown(m_folder.c_str(), m_account.uid, m_account.gid) != 0)
            return fail("cannot hand " + m_folder.string() + " to uid " + std::to_string(m_account.uid));
        return true;
    }

    static bool isInside(const std::filesystem::path &path, const std::filesystem::path &folder)
    {
        const std::filesystem::path relative = path.lexically_relative(folder);
        return !relative.empty() && relative != "." && *relative.begin() != "..";
    }

    // The first start picks a free port, and picks again when another process took it meanwhile; later
    // starts keep it.
    bool startServer()
    {
        const bool portChosen = m_port > 0;
        for (int attempt = 0; attempt < (portChosen ? 1 : 3); ++attempt) {
            if (!portChosen)
                m_port = freePort();
            const std::size_t logBefore = log().size();
            if (startOnPort())
                return true;
            if (log().find("already in use", logBefore) == std::string::npos)
                break;
        }
        m_error += "\nserver log:\n" + tail(log(), 4000);
        return false;
    }

    bool startOnPort()
    {
        // pg_ctl hands -o to a shell: the quotes keep the socket folder one word.
        const std::string options = "-p " + std::to_string(m_port) + " -k '" + m_folder.string()
                                    + "' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100";
        const std::vector<std::string> command{m_pgCtl, "start", "-D", dataDir(), "-w", "-t", "120",
                                               "-l", m_folder / "postgres.log", "-o", options};
        return run(command, "pg_ctl-start", kCommandTimeout) == 0;
    }

    bool createDatabase()
    {
        const std::vector<std::string> command{m_createdb, "-h", "127.0.0.1", "-p", std::to_string(m_port),
                                               "-U", "postgres", "swarmtrain"};
        return run(command, "createdb", kCommandTimeout) == 0;
    }

    // Runs `command` as the server's user in the folder, with stdout and stderr in <folder>/<name>.out; its
    // exit code, or -1 when it could not start or did not end within `timeout` (it is killed then). A
    // failure is described in m_error.
    int run(const std::vector<std::string> &command, const std::string &name, std::chrono::milliseconds timeout)
    {
        const std::filesystem::path output = m_folder / (name + ".out");
        std::vector<char *> argv;
        for (const std::string &arg : command)
            argv.push_back(const_cast<char *>(arg.c_str()));
        argv.push_back(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) {
            fail(name + ": fork failed");
            return -1;
        }
        if (pid == 0)
            execAsServerUser(argv, output);
        int status = 0;
        if (!waitUntil([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, timeout)) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            fail(name + " did not end within " + std::to_string(timeout.count() / 1000) + " s:\n"
                 + readWholeFile(output));
            return -1;
        }
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code != 0)
            fail(name + " failed with exit code " + std::to_string(code) + ":\n" + readWholeFile(output));
        return code;
    }

    // In the forked child: system calls only (no allocation), since the test may have had other threads.
    [[noreturn]] void execAsServerUser(const std::vector<char *> &argv, const std::filesystem::path &output) const
    {
        const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0)
            ::_exit(126);
        // The server's user may not enter the test's working folder; initdb and pg_ctl look at theirs.
        if (::chdir(m_folder.c_str()) != 0)
            ::_exit(126);
        if (m_account.switchUser
            && (::setgroups(0, nullptr) != 0 || ::setgid(m_account.gid) != 0 || ::setuid(m_account.uid) != 0)) {
            static const char message[] = "cannot switch to the server's user\n";
            [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message, sizeof message - 1);
            ::_exit(126);
        }
        // After setuid, which clears it: a command dies with a test that crashes while it runs.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }

    bool fail(const std::string &reason)
    {
        m_error = reason;
        return false;
    }

    static std::string tail(const std::string &text, std::size_t bytes)
    {
        return text.size() <= bytes ? text : text.substr(text.size() - bytes);
    }

    std::unique_ptr<TempDir> m_ownDir;
    std::filesystem::path m_folder;
    std::string m_pgCtl;
    std::string m_createdb;
    Account m_account;
    int m_port = -1;
    bool m_initialized = false;
    bool m_running = false;
    bool m_databaseCreated = false;
    std::string m_error;
};

} // namespace swarmtrain::test
