#include "ClientOptions.h"

#include "DisplayName.h"

#include <QCommandLineParser>
#include <QDir>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>

namespace swarmtrain {

namespace {

struct Parser {
    QCommandLineParser parser;
    QCommandLineOption help{{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help.")};
    QCommandLineOption headless{QStringLiteral("headless"), QStringLiteral("Run without a window.")};
    QCommandLineOption minimized{QStringLiteral("minimized"), QStringLiteral("Start in the system tray.")};
    QCommandLineOption demo{QStringLiteral("demo"),
                            QStringLiteral("Host a local demo swarm on this PC (a small model) and join it.")};
    QCommandLineOption demoData{QStringLiteral("demo-data"),
                                QStringLiteral("The text the demo swarm trains on, a file or a folder"
                                               " (default /usr/share/games/fortunes)."),
                                QStringLiteral("PATH"), QStringLiteral("/usr/share/games/fortunes")};
    QCommandLineOption swarm{QStringLiteral("swarm"), QStringLiteral("The swarm's coordinator URL or an invite link."),
                             QStringLiteral("URL")};
    QCommandLineOption stateDir{QStringLiteral("state-dir"),
                                QStringLiteral("Where the identity, replica, data and statistics live."),
                                QStringLiteral("DIR")};
    QCommandLineOption device{QStringLiteral("device"), QStringLiteral("auto, cpu, cuda[:N], or several GPUs as cuda:0,cuda:1 (a model copy on each; default auto)."),
                              QStringLiteral("DEVICE"), QStringLiteral("auto")};
    QCommandLineOption pin{QStringLiteral("pin"),
                           QStringLiteral("The coordinator certificate's public key, sha256//BASE64."),
                           QStringLiteral("PIN")};
    QCommandLineOption allowPlainHttp{QStringLiteral("allow-plain-http"),
                                      QStringLiteral("Talk plain http:// to a coordinator on another machine, whose"
                                                     " answers anyone on the way could forge (loopback needs no"
                                                     " permission).")};
    QCommandLineOption listen{QStringLiteral("listen"),
                              QStringLiteral("The data plane's HOST:PORT, or \"none\" for outbound only"
                                             " (default 0.0.0.0:0)."),
                              QStringLiteral("ADDRESS"), QStringLiteral("0.0.0.0:0")};
    QCommandLineOption announce{QStringLiteral("announce"),
                                QStringLiteral("The HOST or HOST:PORT other peers reach this one at (default:"
                                               " the address the coordinator sees, the listening port)."),
                                QStringLiteral("HOST[:PORT]")};
    QCommandLineOption displayName{QStringLiteral("display-name"),
                                   QStringLiteral("The name this PC shows on the swarm's leaderboard (at most 32"
                                                  " characters; default none)."),
                                   QStringLiteral("NAME")};
    QCommandLineOption threads{QStringLiteral("threads"), QStringLiteral("CPU threads (default: every core)."),
                               QStringLiteral("N"), QStringLiteral("0")};
    QCommandLineOption maxUtilization{QStringLiteral("max-utilization"),
                                      QStringLiteral("With --headless: the share of time the device computes, resting"
                                                     " between steps (5 to 100, default 100)."),
                                      QStringLiteral("PERCENT"), QStringLiteral("100")};

    Parser()
    {
        parser.setApplicationDescription(QStringLiteral("Trains open language models with a public swarm."));
        parser.addOptions(
            {help, headless, minimized, demo, demoData, swarm, stateDir, device, pin, allowPlainHttp, listen, announce,
             displayName, threads, maxUtilization});
    }
};

} // namespace

QString clientUsage()
{
    Parser p;
    return p.parser.helpText();
}

Result<std::vector<std::string>> parseDeviceList(const QString &value)
{
    const QStringList items = value.split(QLatin1Char(','));
    if (items.size() == 1)
        return std::vector<std::string>{value.trimmed().toStdString()};
    static const QRegularExpression cudaIndex(QStringLiteral("^cuda:\\d{1,3}$"));
    std::vector<std::string> devices;
    for (const QString &item : items) {
        const std::string device = item.trimmed().toStdString();
        if (!cudaIndex.match(item.trimmed()).hasMatch())
            return makeError("--device: several devices are GPUs named cuda:N, not '" + device + "'");
        if (std::find(devices.begin(), devices.end(), device) != devices.end())
            return makeError("--device names " + device + " twice");
        devices.push_back(device);
    }
    return devices;
}

Result<ClientCommandLine> parseClientCommandLine(const QStringList &arguments)
{
    Parser p;
    if (!p.parser.parse(arguments))
        return makeError(p.parser.errorText().toStdString());
    if (!p.parser.positionalArguments().isEmpty())
        return makeError("unexpected argument '" + p.parser.positionalArguments().first().toStdString() + "'");
    ClientCommandLine c;
    c.help = p.parser.isSet(p.help);
    c.headless = p.parser.isSet(p.headless);
    c.minimized = p.parser.isSet(p.minimized);
    c.demo = p.parser.isSet(p.demo);
    c.demoData = p.parser.value(p.demoData);
    c.swarm = p.parser.value(p.swarm);
    WorkerOptions &o = c.worker;
    o.pinnedPublicKey = p.parser.value(p.pin);
    o.allowPlainHttp = p.parser.isSet(p.allowPlainHttp);
    Result<std::vector<std::string>> devices = parseDeviceList(p.parser.value(p.device));
    if (!devices)
        return devices.error();
    c.devices = *devices;
    o.device = c.devices.front();
    const DisplayNameCheck name = validateDisplayName(p.parser.value(p.displayName));
    if (!name.ok())
        return makeError("--display-name " + displayNameFaultText(*name.fault).toStdString());
    o.displayName = name.name;
    const QString dir = p.parser.isSet(p.stateDir) ? p.parser.value(p.stateDir)
                                                   : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    o.stateDir = QDir(dir).absolutePath().toStdString();
    bool threadsOk = false;
    o.threads = p.parser.value(p.threads).toInt(&threadsOk);
    if (!threadsOk || o.threads < 0)
        return makeError("--threads needs a number");
    bool percentOk = false;
    const double percent = p.parser.value(p.maxUtilization).toDouble(&percentOk);
    if (!percentOk || !(percent >= 5.0 && percent <= 100.0))
        return makeError("--max-utilization needs a percentage from 5 to 100");
    c.duty = percent / 100.0;
    const QString listenValue = p.parser.value(p.listen);
    if (listenValue == QLatin1StringView("none")) {
        o.listenAddress.clear();
    } else {
        const qsizetype colon = listenValue.lastIndexOf(QLatin1Char(':'));
        bool portOk = false;
        const uint port = colon > 0 ? listenValue.mid(colon + 1).toUInt(&portOk) : 0;
        if (!portOk || port > 65535)
            return makeError("--listen needs HOST:PORT or none");
        o.listenAddress = listenValue.left(colon).remove(QLatin1Char('[')).remove(QLatin1Char(']'));
        o.listenPort = quint16(port);
    }
    const QString announced = p.parser.value(p.announce);
    const qsizetype portColon = announced.lastIndexOf(QLatin1Char(':'));
    // "host:port" or "[v6]:port" name a port; "host", "[v6]" and a bare IPv6 address do not.
    const bool withPort = portColon > 0 && (announced.startsWith(QLatin1Char('['))
                                                ? announced.at(portColon - 1) == QLatin1Char(']')
                                                : announced.count(QLatin1Char(':')) == 1);
    o.announcedHost = withPort ? announced.left(portColon) : announced;
    if (withPort) {
        bool portOk = false;
        const uint port = announced.mid(portColon + 1).toUInt(&portOk);
        if (!portOk || port == 0 || port > 65535)
            return makeError("--announce needs HOST or HOST:PORT");
        o.announcedPort = quint16(port);
    }
    return c;
}

} // namespace swarmtrain
