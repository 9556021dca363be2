#pragma once

#include "ChildProcess.h"
#include "ClientSession.h"
#include "FakePc.h"
#include "StatsStore.h"
#include "TempDir.h"

#include <QDateTime>
#include <QLocale>
#include <QSettings>
#include <QString>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <memory>
#include <regex>

namespace swarmtrain::test {

// A widget test's world: a ClientSession over a temp state folder, preferences in an INI file of
// its own (never the person's), a fake PC (idle, on mains, nothing running) and the GPU probe's
// test child. The session is made on first use, so a test can prepare the state folder (stats.db)
// or the preferences before.
class GuiTest : public ::testing::Test {
protected:
    GuiTest()
        : m_settings(QString::fromStdString((m_dir.path() / "settings.ini").string()), QSettings::IniFormat)
    {
    }

    // Made and started on first use: throttling polls the fake PC; a swarm the preferences
    // name is joined.
    ClientSession &session()
    {
        if (!m_session) {
            m_session = std::make_unique<ClientSession>(sessionOptions());
            m_session->start();
        }
        return *m_session;
    }
    bool hasSession() const { return m_session != nullptr; }
    void destroySession() { m_session.reset(); } // leaves the swarm and waits for the worker

    ClientSession::Options sessionOptions()
    {
        ClientSession::Options options;
        options.stateDir = stateDir();
        options.settings = &m_settings;
        options.sources = fakeSources(m_pc);
        options.gpuProbeCommand = {GPU_PROBE_CHILD};
        options.worker.device = "cpu";
        options.worker.listenAddress = QStringLiteral("127.0.0.1");
        options.worker.threads = 1;
        options.swarmPollInterval = std::chrono::milliseconds(500);
        return options;
    }

    // sessionOptions() with the GPU probe's test child reading `nvml` (the fake NVML library, or a
    // path that does not load). ClientSession appends the real library paths to the probe
    // command; a shell in between drops them ($1...).
    ClientSession::Options sessionOptionsProbing(const std::string &nvml)
    {
        ClientSession::Options options = sessionOptions();
        const std::string script = "exec '" + std::string(GPU_PROBE_CHILD) + "' --nvml '" + nvml
                                   + "' --drm /nonexistent/drm --rocm-smi /nonexistent/librocm_smi64.so.1";
        options.gpuProbeCommand = {"/bin/sh", "-c", script, "gpu-probe-child"};
        return options;
    }

    std::filesystem::path stateDir() const { return m_dir.path() / "state"; }
    const TempDir &dir() const { return m_dir; }
    QSettings &settings() { return m_settings; }
    FakePc &pc() { return *m_pc; }
    const std::shared_ptr<FakePc> &sharedPc() const { return m_pc; }

    void TearDown() override { m_session.reset(); }

private:
    TempDir m_dir;
    QSettings m_settings;
    std::shared_ptr<FakePc> m_pc = std::make_shared<FakePc>();
    std::unique_ptr<ClientSession> m_session;
};

// Figures as an English-speaking person sees them ("24.0 GiB") while it lives; the fake NVML's
// mode is forgotten when it goes.
class EnglishFigures {
public:
    EnglishFigures() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    ~EnglishFigures()
    {
        ::unsetenv("FAKE_NVML_MODE");
        QLocale::setDefault(m_before);
    }
    EnglishFigures(const EnglishFigures &) = delete;
    EnglishFigures &operator=(const EnglishFigures &) = delete;

private:
    QLocale m_before;
};

// `days` days of contributions in the session's stats.db, one accepted round a day ending
// `hoursAgo` before now, as a client that ran before this one left them.
inline StatsTotals recordContributions(const std::filesystem::path &stateDir, int days, int hoursAgo = 1)
{
    auto store = StatsStore::open(stateDir / "stats.db");
    EXPECT_TRUE(store.ok()) << store.error().message;
    if (!store.ok())
        return {};
    const QDateTime now = QDateTime::currentDateTime();
    for (int day = 0; day < days; ++day) {
        Contribution c;
        c.round = day;
        c.swarm = QStringLiteral("https://swarm.example.org");
        c.finishedAt = now.addDays(-day).addSecs(-3600 * hoursAgo);
        c.computeSeconds = 1800.0 + 600.0 * (day % 5); // half an hour to 1.2 hours
        c.startedAt = c.finishedAt.addSecs(-qint64(c.computeSeconds));
        c.tokens = 2'000'000 + 250'000 * (day % 7);
        c.flops = 1e15;
        c.bytesUp = 40'000'000;
        c.bytesDown = 90'000'000;
        EXPECT_TRUE((*store)->recordContribution(c).ok());
        EXPECT_TRUE((*store)->markAccepted(c.swarm, c.round, true, 10.0 + day % 3).ok());
    }
    Result<StatsTotals> totals = (*store)->totals();
    EXPECT_TRUE(totals.ok());
    return totals ? *totals : StatsTotals{};
}

#ifdef SWARMTRAIN_COORDINATOR
// A real swarm for the widgets to join: swarmtrain-coordinator on loopback with a tiny model and
// short rounds (as in SwarmProcessTest), so a lone client finishes a round in seconds.
class TestSwarm {
public:
    explicit TestSwarm(const std::filesystem::path &dir) : m_dir(dir / "swarm") {}

    // Starts it and waits until it listens; false with the reason in errors(). A round trains
    // `innerSteps` steps: the worker reports its tokens/s once a second while it trains, so a
    // test that needs the rate wants rounds that train for seconds (some hundred steps).
    bool start(int innerSteps = 20, const std::vector<std::string> &extra = {})
    {
        std::filesystem::create_directories(m_dir);
        std::ofstream(m_dir / "data.txt", std::ios::binary) << generatedText(120'000);
        const std::vector<std::string> args = {
            "--listen", "127.0.0.1:0", "--state-dir", (m_dir / "state").string(), "--data", (m_dir / "data.txt").string(),
            "--n-layer", "1", "--n-head", "2", "--n-embd", "32", "--block-size", "32", "--batch-size", "8",
            "--inner-steps", std::to_string(innerSteps), "--lr", "3e-3", "--warmup-iters", "20", "--eval-iters", "4", "--shard-tokens", "16384",
            "--heartbeat-interval", "1", "--gather-timeout", "5", "--round-deadline", "20", "--plain-http",
            "--rounds", "fixed"};
        std::vector<std::string> all = args;
        all.insert(all.end(), extra.begin(), extra.end());
        if (!m_process.start(SWARMTRAIN_COORDINATOR, all, m_dir / "coordinator.out", m_dir / "coordinator.err"))
            return false;
        const std::regex listening("listening on (http://127\\.0\\.0\\.1:\\d+)");
        std::smatch match;
        std::string out;
        const bool up = waitUntil(
            [&] {
                out = m_process.output();
                return std::regex_search(out, match, listening) || m_process.exited();
            },
            std::chrono::seconds(30));
        if (!up || match.empty())
            return false;
        m_url = QString::fromStdString(match[1].str());
        return true;
    }

    QString url() const { return m_url; }
    // Freezes the coordinator (SIGSTOP): the kernel still accepts connections, nothing answers,
    // as with a coordinator whose machine hangs. The process is killed at the end all the same.
    void stopAnswering() { ::kill(m_process.pid(), SIGSTOP); }
    std::string errors() const { return m_process.output() + m_process.errors(); }

private:
    std::filesystem::path m_dir;
    ChildProcess m_process;
    QString m_url;
};
#endif

} // namespace swarmtrain::test
