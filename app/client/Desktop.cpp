#include "Desktop.h"

#include "Autostart.h"
#include "ClientOptions.h"
#include "ClientSession.h"
#include "CoordinatorConfig.h"
#include "GpuSampler.h"
#include "LocalControlServer.h"
#include "LogCapture.h"
#include "MainWindow.h"
#include "SessionControl.h"
#include "SignalQuit.h"
#include "Translations.h"
#include "TrayIcon.h"

#include <QApplication>
#include <QDir>
#include <QIcon>
#include <QSettings>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <system_error>

namespace swarmtrain {

namespace {

// The demo swarm, hosted by this PC: a small Llama-family model over a SentencePiece vocabulary of
// 1,024 pieces learned from `data` (installer/run-demo.sh hosts the same one).
Result<CoordinatorConfig> demoSwarm(const QString &data, const std::filesystem::path &dir)
{
    return parseCoordinatorArguments(
        {"--listen", "127.0.0.1:0", "--state-dir", (dir / "demo-swarm").string(), "--data", data.toStdString(),
         "--tokenizer", "sentencepiece", "--vocab-size", "1024", "--family", "llama", "--n-layer", "4", "--n-head", "4",
         "--n-kv-head", "2", "--n-embd", "128", "--block-size", "64", "--batch-size", "12",
         "--inner-steps", "50", "--warmup-iters", "50", "--eval-iters", "10", "--heartbeat-interval", "2",
         "--gather-timeout", "20", "--tls-self-signed"});
}

} // namespace

int runDesktop(int argc, char **argv)
{
    // No display: say what to do instead of Qt's abort.
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        std::cerr << "swarmtrain: no display here; run `swarmtrain --headless --swarm URL` instead" << std::endl;
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QApplication::setOrganizationName(QStringLiteral("SwarmTrain"));
    QApplication::setApplicationDisplayName(QStringLiteral("SwarmTrain"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/swarmtrain-256.png")));
    // Made before the session and the window, so it outlives them and the threads they run.
    LogCapture log;
    log.install();

    Result<ClientCommandLine> command = parseClientCommandLine(app.arguments());
    if (!command) {
        std::cerr << "swarmtrain: error: " << command.error().message << std::endl;
        return 2;
    }
    const std::filesystem::path stateDir = command->worker.stateDir;
    std::error_code stateDirError;
    std::filesystem::create_directories(stateDir, stateDirError);
    if (stateDirError) {
        std::cerr << "swarmtrain: error: cannot create the state directory " << stateDir.string() << ": "
                  << stateDirError.message() << std::endl;
        return 2;
    }
    // A demo keeps its settings with its state, so trying it changes nothing of a real setup;
    // it computes whether or not the person is at the PC (they are: they just started it).
    std::unique_ptr<QSettings> settings =
        command->demo ? std::make_unique<QSettings>(QString::fromStdString((stateDir / "settings.ini").string()),
                                                    QSettings::IniFormat)
                      : std::make_unique<QSettings>();
    if (command->demo) {
        const bool firstRun = settings->allKeys().isEmpty();
        Preferences demo = loadPreferences(*settings);
        if (firstRun)
            demo.idleMinutes = 0;
        demo.swarmUrl.clear(); // the demo swarm gets a new port each time
        demo.swarmPin.clear();
        savePreferences(*settings, demo);
    }

    ClientSession::Options options;
    options.stateDir = stateDir;
    options.settings = settings.get();
    options.sources = makePlatformThrottleSources();
    GpuSampler::Options gpuOptions;
    gpuOptions.probeCommand = {QCoreApplication::applicationFilePath().toStdString(), "--gpu-probe-child"};
    gpuOptions.trainsOnGpu = command->worker.device != "cpu";
    const auto gpu = std::make_shared<GpuSampler>(gpuOptions);
    options.sources.gpu = [gpu] { return gpu->latest(); };
    options.gpuProbeCommand = gpuOptions.probeCommand;
    options.worker = command->worker;
    options.devices = command->devices;
    options.worker.gpuProbeCommand = gpuOptions.probeCommand;
    if (!command->demo)
        options.autostart = makeAutostart();
    ClientSession session(std::move(options));
    // swarmtrain-cli's socket; a second client on the same state folder stops here.
    SessionControl control(session);
    LocalControlServer controlServer({stateDir, &control, &log});
    if (Result<void> listening = controlServer.listen(); !listening) {
        std::cerr << "swarmtrain: error: " << listening.error().message << std::endl;
        return 2;
    }

    QString language = session.preferences().language;
    applyLanguage(language);
    QObject::connect(&session, &ClientSession::preferencesChanged, &app, [&language](const Preferences &preferences) {
        if (preferences.language != language) {
            language = preferences.language;
            applyLanguage(language);
        }
    });

    MainWindow window(session, log);
    std::unique_ptr<TrayIcon> tray;
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        tray = std::make_unique<TrayIcon>(session);
        QObject::connect(tray.get(), &TrayIcon::openDashboardRequested, &window, [&window] {
            window.showPage(MainWindow::Page::Dashboard);
            window.showNormal();
            window.raise();
            window.activateWindow();
        });
        QObject::connect(tray.get(), &TrayIcon::quitRequested, &session, [&session] { session.quit(); });
        tray->show();
        window.setTray(tray.get());
        QApplication::setQuitOnLastWindowClosed(false);
    }
    QObject::connect(&session, &ClientSession::readyToQuit, &app, [] { QApplication::quit(); });
    int signals = 0;
    if (Result<void> watched = onTerminationSignals(app, [&] {
            if (++signals > 1)
                std::_Exit(130);
            session.quit();
        });
        !watched) {
        std::cerr << "swarmtrain: error: " << watched.error().message << std::endl;
        return 2;
    }

    session.start();
    if (!command->swarm.isEmpty()) {
        if (Result<void> joined = session.join(command->swarm); !joined) {
            std::cerr << "swarmtrain: error: " << joined.error().message << std::endl;
            return 2;
        }
    }
    if (command->demo) {
        Result<CoordinatorConfig> demo = demoSwarm(command->demoData, stateDir);
        if (!demo) {
            std::cerr << "swarmtrain: error: " << demo.error().message << std::endl;
            return 2;
        }
        session.hostSwarm(*demo);
    }
    if (!command->minimized || !tray)
        window.show();
    return app.exec();
}

} // namespace swarmtrain
