// swarmtrain: the SwarmTrain client. Without --headless it opens the desktop window
// (Desktop.cpp); --headless runs it without one (servers, CI), printing a line per round.
#include "ClientOptions.h"
#include "Desktop.h"
#include "GpuProbe.h"
#include "SignalQuit.h"
#include "WorkController.h"

#include <QCoreApplication>

#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace swarmtrain;

namespace {

QString megabytes(qint64 bytes) { return QString::number(double(bytes) / 1e6, 'f', 2) + QStringLiteral(" MB"); }

// One line per round, for people and for scripts.
QString roundLine(const RoundReport &r)
{
    const QString verdict = !r.verdictKnown ? QStringLiteral("verdict pending")
                            : r.accepted    ? QStringLiteral("accepted, credit %1").arg(r.credit, 0, 'f', 1)
                                            : QStringLiteral("not accepted");
    QString line = QStringLiteral("round %1 done: %2 members, loss %3, %4 tokens in %5 s, averaged in %6 s, up %7, down %8, "
                                  "params %9, %10")
                       .arg(r.round)
                       .arg(r.members)
                       .arg(r.loss, 0, 'f', 4)
                       .arg(r.tokens)
                       .arg(r.computeSeconds, 0, 'f', 1)
                       .arg(r.averagingSeconds, 0, 'f', 2)
                       .arg(megabytes(r.bytesUp), megabytes(r.bytesDown), r.paramsHash, verdict);
    if (r.skippedRanges > 0)
        line += QStringLiteral(", %1 ranges skipped").arg(r.skippedRanges);
    if (r.uploadedState)
        line += QStringLiteral(", uploaded the new state");
    return line;
}

int fail(const QString &message)
{
    std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
    return 2;
}

int runHeadless(QCoreApplication &app, const ClientCommandLine &command)
{
    if (command.swarm.isEmpty())
        return fail(QStringLiteral("--swarm URL is needed"));
    WorkerOptions options = command.worker;
    options.swarmUrl = command.swarm;
    options.gpuProbeCommand = {QCoreApplication::applicationFilePath().toStdString(), "--gpu-probe-child"};

    WorkController controller(options);
    int exitCode = 0;
    QString lastStatus;
    QObject::connect(&controller, &WorkController::statusChanged, &app, [&](const WorkStatus &status) {
        if (status.detail == lastStatus)
            return;
        lastStatus = status.detail;
        std::cout << "status: " << status.detail.toStdString() << std::endl;
    });
    QObject::connect(&controller, &WorkController::roundFinished, &app,
                     [](const RoundReport &report) { std::cout << roundLine(report).toStdString() << std::endl; });
    QObject::connect(&controller, &WorkController::finished, &app, [&](bool ok, const QString &message) {
        if (!ok) {
            std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
            exitCode = 1;
        }
        QCoreApplication::exit(exitCode);
    });
    int signals = 0;
    Result<void> watched = onTerminationSignals(app, [&] {
        // The first Ctrl-C leaves cleanly; a second one does not wait.
        if (++signals > 1)
            std::_Exit(130);
        std::cout << "status: leaving the swarm (Ctrl-C again to quit at once)" << std::endl;
        controller.stop();
    });
    if (!watched)
        return fail(QString::fromStdString(watched.error().message));
    std::cout << "state directory " << options.stateDir.string() << std::endl;
    controller.start();
    return app.exec();
}

bool hasFlag(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], flag) == 0)
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    // The GPU probe's child (GpuProbe.h): vendor libraries are loaded in a process that may crash.
    if (argc >= 2 && std::strcmp(argv[1], "--gpu-probe-child") == 0)
        return runGpuProbeChild(argc - 1, argv + 1);

    const bool headless = hasFlag(argc, argv, "--headless") || hasFlag(argc, argv, "--help") || hasFlag(argc, argv, "-h");
    if (!headless)
        return runDesktop(argc, argv);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QCoreApplication::setOrganizationName(QStringLiteral("SwarmTrain"));
    Result<ClientCommandLine> command = parseClientCommandLine(app.arguments());
    if (!command)
        return fail(QString::fromStdString(command.error().message));
    if (command->help) {
        std::cout << clientUsage().toStdString();
        return 0;
    }
    return runHeadless(app, *command);
}
