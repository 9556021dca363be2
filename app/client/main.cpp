// swarmtrain: the SwarmTrain client. --headless runs it without a window (servers, CI).
#include "SignalQuit.h"
#include "WorkController.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <cstdio>
#include <cstdlib>
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
    QString line = QStringLiteral("round %1 done: %2 members, loss %3, %4 tokens in %5 s, up %6, down %7, params %8, %9")
                       .arg(r.round)
                       .arg(r.members)
                       .arg(r.loss, 0, 'f', 4)
                       .arg(r.tokens)
                       .arg(r.computeSeconds, 0, 'f', 1)
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

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("SwarmTrain"));
    QCoreApplication::setOrganizationName(QStringLiteral("SwarmTrain"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Trains open language models with a public swarm."));
    parser.addHelpOption();
    const QCommandLineOption headless(QStringLiteral("headless"), QStringLiteral("Run without a window."));
    const QCommandLineOption swarm(QStringLiteral("swarm"), QStringLiteral("The swarm's coordinator URL."),
                                   QStringLiteral("URL"));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"),
                                      QStringLiteral("Where the identity, replica, data and statistics live."),
                                      QStringLiteral("DIR"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("auto, cpu or cuda[:N] (default auto)."),
                                    QStringLiteral("DEVICE"), QStringLiteral("auto"));
    const QCommandLineOption pin(QStringLiteral("pin"),
                                 QStringLiteral("The coordinator certificate's public key, sha256//BASE64."),
                                 QStringLiteral("PIN"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QStringLiteral("The data plane's HOST:PORT, or \"none\" for outbound only"
                                                   " (default 0.0.0.0:0)."),
                                    QStringLiteral("ADDRESS"), QStringLiteral("0.0.0.0:0"));
    const QCommandLineOption announce(QStringLiteral("announce"),
                                      QStringLiteral("The host other peers reach this one at (default: the address"
                                                     " the coordinator sees)."),
                                      QStringLiteral("HOST"));
    const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("CPU threads (default: every core)."),
                                     QStringLiteral("N"), QStringLiteral("0"));
    parser.addOptions({headless, swarm, stateDir, device, pin, listen, announce, threads});
    parser.process(app);

    if (!parser.isSet(headless))
        return fail(QStringLiteral("this build has no desktop window yet; run with --headless"));
    if (!parser.isSet(swarm))
        return fail(QStringLiteral("--swarm URL is needed"));

    WorkerOptions options;
    options.swarmUrl = parser.value(swarm);
    options.pinnedPublicKey = parser.value(pin);
    options.device = parser.value(device).toStdString();
    const QString dir = parser.isSet(stateDir) ? parser.value(stateDir)
                                               : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    options.stateDir = QDir(dir).absolutePath().toStdString();
    bool threadsOk = false;
    options.threads = parser.value(threads).toInt(&threadsOk);
    if (!threadsOk || options.threads < 0)
        return fail(QStringLiteral("--threads needs a number"));
    const QString listenValue = parser.value(listen);
    if (listenValue == QLatin1StringView("none")) {
        options.listenAddress.clear();
    } else {
        const qsizetype colon = listenValue.lastIndexOf(QLatin1Char(':'));
        bool portOk = false;
        const uint port = colon > 0 ? listenValue.mid(colon + 1).toUInt(&portOk) : 0;
        if (!portOk || port > 65535)
            return fail(QStringLiteral("--listen needs HOST:PORT or none"));
        options.listenAddress = listenValue.left(colon).remove(QLatin1Char('[')).remove(QLatin1Char(']'));
        options.listenPort = quint16(port);
    }
    options.announcedHost = parser.value(announce);

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
