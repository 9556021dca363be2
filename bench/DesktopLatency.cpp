// How fast the desktop client gets out of the way, under a real X server (Xvfb) with a local
// swarm training: the time from simulated input (xdotool) to the worker having stopped
// computing, the GUI event loop's latency while it trains, and its longest stall while the
// client leaves a swarm whose coordinator stopped answering (a swarmtrain-coordinator process
// frozen with SIGSTOP), then how long quitting takes during such a leave. Run it with
// bench/desktop-latency.sh, which starts Xvfb. Prints JSON lines.
#include "ClientSession.h"
#include "CoordinatorConfig.h"
#include "LogCapture.h"
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <regex>
#include <vector>

using namespace swarmtrain;

namespace {

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, std::size_t(p * double(values.size() - 1) + 0.5))];
}

bool waitFor(const std::function<bool()> &condition, int ms) { return QTest::qWaitFor(condition, ms); }

int fail(const std::string &message)
{
    std::cerr << "swarmtrain_desktop_latency: " << message << std::endl;
    return 1;
}

// The longest the event loop went without running a 10 ms timer, while it lives.
class StallWatch {
public:
    StallWatch()
    {
        m_since.start();
        m_tick.setTimerType(Qt::PreciseTimer);
        m_tick.setInterval(10);
        QObject::connect(&m_tick, &QTimer::timeout, &m_tick, [this] { m_longestMs = std::max(m_longestMs, m_since.restart()); });
        m_tick.start();
    }
    qint64 longestMs() const { return std::max(m_longestMs, m_since.elapsed()); }

private:
    QElapsedTimer m_since;
    QTimer m_tick;
    qint64 m_longestMs = 0;
};

// swarmtrain-coordinator as a child process, so that it can be frozen (SIGSTOP) while the
// client leaves: the kernel still accepts connections, nothing answers.
class CoordinatorProcess {
public:
    ~CoordinatorProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(pid_t(m_process.processId()), SIGCONT);
            m_process.kill();
            m_process.waitForFinished(10'000);
        }
    }

    // Its URL once it listens; "" when it did not start.
    QString start(const QString &stateDir, const QString &data)
    {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(QStringLiteral(SWARMTRAIN_COORDINATOR),
                        {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--state-dir"), stateDir,
                         QStringLiteral("--data"), data, QStringLiteral("--plain-http"), QStringLiteral("--rounds"),
                         QStringLiteral("fixed"), QStringLiteral("--n-layer"), QStringLiteral("1"), QStringLiteral("--n-head"),
                         QStringLiteral("2"), QStringLiteral("--n-embd"), QStringLiteral("32"), QStringLiteral("--block-size"),
                         QStringLiteral("32"), QStringLiteral("--inner-steps"), QStringLiteral("100000"),
                         QStringLiteral("--heartbeat-interval"), QStringLiteral("1"), QStringLiteral("--eval-iters"),
                         QStringLiteral("2")});
        std::string output; // the match points into it
        const std::regex listening("listening on (http://127\\.0\\.0\\.1:\\d+)");
        std::smatch match;
        waitFor(
            [&] {
                output += m_process.readAll().toStdString();
                return std::regex_search(output, match, listening) || m_process.state() == QProcess::NotRunning;
            },
            60'000);
        return match.empty() ? QString() : QString::fromStdString(match[1].str());
    }
    void freeze() { ::kill(pid_t(m_process.processId()), SIGSTOP); }
    void thaw() { ::kill(pid_t(m_process.processId()), SIGCONT); }

private:
    QProcess m_process;
};

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption trialsOption(QStringLiteral("trials"), QStringLiteral("Input events to time."),
                                          QStringLiteral("N"), QStringLiteral("10"));
    const QCommandLineOption dataOption(QStringLiteral("data"), QStringLiteral("Text the local swarm trains on."),
                                        QStringLiteral("PATH"), QStringLiteral("/usr/share/games/fortunes"));
    const QCommandLineOption secondsOption(QStringLiteral("loop-seconds"),
                                           QStringLiteral("How long to sample the event loop while training."),
                                           QStringLiteral("S"), QStringLiteral("15"));
    const QCommandLineOption leavesOption(QStringLiteral("leave-trials"),
                                          QStringLiteral("Leaves of a frozen coordinator's swarm to time."),
                                          QStringLiteral("N"), QStringLiteral("3"));
    parser.addHelpOption();
    parser.addOptions({trialsOption, dataOption, secondsOption, leavesOption});
    parser.process(app);
    if (qEnvironmentVariableIsEmpty("DISPLAY"))
        return fail("needs an X display (run bench/desktop-latency.sh, which starts Xvfb)");
    const int trials = parser.value(trialsOption).toInt();
    const double loopSeconds = parser.value(secondsOption).toDouble();

    LogCapture log;
    log.install();
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    ClientSession::Options options;
    options.stateDir = dir.path().toStdString();
    options.settings = &settings;
    options.sources = makePlatformThrottleSources(); // the X server's real idle time
    options.worker.device = "cpu";
    options.worker.threads = 1;
    options.worker.listenAddress = QStringLiteral("127.0.0.1");
    ClientSession session(std::move(options));
    MainWindow window(session, log);
    window.resize(1000, 700);
    window.show();
    session.start();

    Result<CoordinatorConfig> swarm = parseCoordinatorArguments(
        {"--listen", "127.0.0.1:0", "--state-dir", dir.filePath(QStringLiteral("swarm")).toStdString(), "--data",
         parser.value(dataOption).toStdString(), "--n-layer", "4", "--n-head", "4", "--n-embd", "128", "--block-size",
         "64", "--batch-size", "12", "--inner-steps", "200", "--eval-iters", "2", "--heartbeat-interval", "2"});
    if (!swarm)
        return fail(swarm.error().message);
    session.hostSwarm(*swarm);
    if (!waitFor([&] { return session.joined(); }, 60'000))
        return fail("the local swarm did not start");
    // Compute after 2 s without input (joining saved the preferences, so set it after), so a
    // trial does not wait minutes to run again.
    ThrottlePrefs prefs = throttlePrefs(session.preferences());
    prefs.idleMinutes = 2.0 / 60.0;
    prefs.runWhenIdleUnknown = false;
    session.throttle().setPrefs(prefs);
    if (!session.throttle().lastSignals().idleSeconds)
        return fail("this X server reports no idle time (no MIT-SCREEN-SAVER extension)");
    const auto training = [&] { return session.state().work.state == WorkState::Training && session.state().decision.running(); };
    if (!waitFor(training, 120'000))
        return fail("the local swarm did not start training: " + session.state().headline.toStdString());

    // The event loop while training: a 10 ms timer's lateness.
    std::vector<double> lateness;
    {
        QElapsedTimer clock;
        clock.start();
        qint64 previous = clock.nsecsElapsed();
        QTimer tick;
        tick.setTimerType(Qt::PreciseTimer);
        tick.setInterval(10);
        QObject::connect(&tick, &QTimer::timeout, &app, [&] {
            const qint64 now = clock.nsecsElapsed();
            if (training())
                lateness.push_back(std::max(0.0, double(now - previous) / 1e6 - 10.0));
            previous = now;
        });
        tick.start();
        QTest::qWait(int(loopSeconds * 1000));
    }

    // Input to paused, `trials` times.
    std::vector<double> toDecision, toPaused;
    for (int trial = 0; trial < trials; ++trial) {
        if (!waitFor(training, 60'000))
            return fail("training did not resume after a trial");
        QTest::qWait(300); // well inside a step
        QElapsedTimer sinceInput;
        double decidedMs = -1;
        const QMetaObject::Connection decided = QObject::connect(
            &session.throttle(), &ThrottleMonitor::decisionChanged, &app, [&](const ThrottleDecision &decision) {
                if (!decision.running() && decidedMs < 0)
                    decidedMs = double(sinceInput.nsecsElapsed()) / 1e6;
            });
        sinceInput.start();
        QProcess::startDetached(QStringLiteral("xdotool"), {QStringLiteral("mousemove_relative"), QStringLiteral("--"),
                                                            QString::number(trial % 2 ? 7 : -7), QStringLiteral("5")});
        const bool paused = waitFor([&] { return session.state().work.state == WorkState::Paused; }, 10'000);
        const double pausedMs = double(sinceInput.nsecsElapsed()) / 1e6;
        QObject::disconnect(decided);
        if (!paused)
            return fail("simulated input did not pause training (is xdotool installed?)");
        toDecision.push_back(decidedMs);
        toPaused.push_back(pausedMs);
        std::cout << nlohmann::json{{"bench", "desktop_latency"}, {"trial", trial}, {"input_to_decision_ms", decidedMs},
                                    {"input_to_paused_ms", pausedMs}}
                         .dump()
                  << std::endl;
    }

    std::cout << nlohmann::json{{"bench", "desktop_latency"},
                                {"trials", trials},
                                {"input_to_paused_ms_p50", percentile(toPaused, 0.5)},
                                {"input_to_paused_ms_max", percentile(toPaused, 1.0)},
                                {"input_to_decision_ms_p50", percentile(toDecision, 0.5)},
                                {"event_loop_samples", lateness.size()},
                                {"event_loop_lateness_ms_p50", percentile(lateness, 0.5)},
                                {"event_loop_lateness_ms_p99", percentile(lateness, 0.99)},
                                {"event_loop_lateness_ms_max", percentile(lateness, 1.0)}}
                     .dump()
              << std::endl;

    // Leaving a swarm whose coordinator froze mid-round: the GUI thread's longest stall from
    // the leave until the worker has gone, then, on the last trial, quitting during the leave.
    session.stopHosting();
    CoordinatorProcess frozen;
    const QString url = frozen.start(dir.filePath(QStringLiteral("frozen")), parser.value(dataOption));
    if (url.isEmpty())
        return fail("swarmtrain-coordinator did not start");
    prefs.idleMinutes = 0; // set again after each join, which saves the preferences
    const int leaves = parser.value(leavesOption).toInt();
    std::vector<double> stalls;
    for (int trial = 0; trial < leaves; ++trial) {
        frozen.thaw();
        if (!session.join(url).ok())
            return fail("cannot join " + url.toStdString());
        session.throttle().setPrefs(prefs);
        if (!waitFor(training, 120'000))
            return fail("the frozen-coordinator swarm did not start training: " + session.state().headline.toStdString());
        frozen.freeze();
        QTest::qWait(1500); // a heartbeat or two now hang
        StallWatch watch;
        QElapsedTimer leaving;
        leaving.start();
        session.leave();
        const bool last = trial + 1 == leaves;
        double quitMs = -1;
        if (last) {
            QTest::qWait(1000); // the worker is saying goodbye to a coordinator that never answers
            QElapsedTimer quitting;
            quitting.start();
            bool ready = false;
            QObject::connect(&session, &ClientSession::readyToQuit, &app, [&] { ready = true; });
            session.quit();
            if (!waitFor([&] { return ready; }, 60'000))
                return fail("quitting during the leave never ended");
            quitMs = double(quitting.nsecsElapsed()) / 1e6;
        } else if (!waitFor([&] { return session.state().work.state != WorkState::Stopping; }, 60'000)) {
            return fail("the leave never ended");
        }
        stalls.push_back(double(watch.longestMs()));
        nlohmann::json line{{"bench", "desktop_leave"}, {"trial", trial}, {"leave_ms", double(leaving.nsecsElapsed()) / 1e6},
                            {"gui_longest_stall_ms", stalls.back()}};
        if (last)
            line["quit_during_leave_ms"] = quitMs;
        std::cout << line.dump() << std::endl;
    }
    std::cout << nlohmann::json{{"bench", "desktop_leave"}, {"trials", leaves},
                                {"gui_longest_stall_ms_max", percentile(stalls, 1.0)}}
                     .dump()
              << std::endl;
    return 0;
}
