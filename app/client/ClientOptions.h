#pragma once

#include "Result.h"
#include "WorkController.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace swarmtrain {

// swarmtrain's command line, for the window and --headless alike.
struct ClientCommandLine {
    bool help = false;
    bool headless = false;
    bool minimized = false; // start in the tray (autostart)
    bool demo = false;      // host a local demo swarm on this PC and join it
    QString demoData;       // the text the demo swarm trains on (a file or a folder)
    QString swarm;          // a URL or an invite link
    WorkerOptions worker;   // state dir, device (the first of `devices`), listen address, threads, pin
    std::vector<std::string> devices; // --device: one, or several GPUs ("cuda:0,cuda:1"), a worker each
    double duty = 1.0;      // --headless: the share of time the device computes
};

Result<ClientCommandLine> parseClientCommandLine(const QStringList &arguments);
// --device's value: one device as given, or several GPUs "cuda:0,cuda:1" (each once).
Result<std::vector<std::string>> parseDeviceList(const QString &value);
QString clientUsage();

} // namespace swarmtrain
