// How fast the desktop client gets out of the way, under a real X server (Xvfb) with a local
// swarm training: the time from simulated input (xdotool) to the worker having stopped
// computing, and the GUI event loop's latency while it trains. Run it with
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
#include <iostream>
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
    parser.addHelpOption();
    parser.addOptions({trialsOption, dataOption, secondsOption});
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
    session.quit();
    return 0;
}
