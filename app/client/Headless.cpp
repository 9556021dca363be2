// The headless client's run: the worker, a line per round on stdout, Ctrl-C to leave, and the
// local control socket swarmtrain-cli talks to.
#include "Headless.h"

#include "HeadlessClient.h"
#include "LocalControlServer.h"
#include "LogCapture.h"
#include "SignalQuit.h"

#include <QCoreApplication>

#include <cstdlib>
#include <iostream>

namespace swarmtrain {

namespace {

int failHeadless(const QString &message)
{
    std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
    return 2;
}

} // namespace

int runHeadless(QCoreApplication &app, const ClientCommandLine &command)
{
    WorkerOptions options = command.worker;
    options.gpuProbeCommand = {QCoreApplication::applicationFilePath().toStdString(), "--gpu-probe-child"};
    std::error_code made;
    std::filesystem::create_directories(options.stateDir, made);
    if (made)
        return failHeadless(QStringLiteral("cannot create the state directory %1: %2")
                                .arg(QString::fromStdString(options.stateDir.string()), QString::fromStdString(made.message())));
    // Kept for swarmtrain-cli log; every message still reaches stderr.
    LogCapture log;
    log.install();
    HeadlessClient client(options, command.devices, command.duty);
    LocalControlServer control({options.stateDir, &client, &log});
    if (Result<void> listening = control.listen(); !listening)
        return failHeadless(QString::fromStdString(listening.error().message));
    int signals = 0;
    Result<void> watched = onTerminationSignals(app, [&] {
        // The first Ctrl-C leaves cleanly; a second one does not wait.
        if (++signals > 1)
            std::_Exit(130);
        std::cout << "status: leaving the swarm (Ctrl-C again to quit at once)" << std::endl;
        client.quit(0);
    });
    if (!watched)
        return failHeadless(QString::fromStdString(watched.error().message));
    std::cout << "state directory " << options.stateDir.string() << std::endl;
    std::cout << "control socket " << control.socketPath().toStdString() << std::endl;
    if (Result<void> joined = client.start(command.swarm); !joined)
        return failHeadless(QString::fromStdString(joined.error().message));
    return app.exec();
}

} // namespace swarmtrain
