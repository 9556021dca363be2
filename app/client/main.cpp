// swarmtrain: the SwarmTrain client. Without --headless it opens the desktop window
// (Desktop.cpp); --headless runs it without one (servers, CI), printing a line per round.
#include "ClientOptions.h"
#include "CryptoLifetime.h"
#include "Desktop.h"
#include "GpuProbe.h"
#include "Headless.h"

#include <QCoreApplication>

#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace swarmtrain;

namespace {

int fail(const QString &message)
{
    std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
    return 2;
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
    keepCryptoUntilExit();
    // CUDA numbers the GPUs in the order NVML (the probe, the Settings page) lists them, so a GPU
    // chosen by its UUID trains as the right cuda:N (GpuChoice.h). Before CUDA starts.
    if (!qEnvironmentVariableIsSet("CUDA_DEVICE_ORDER"))
        qputenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
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
