// The headless client's run: the worker, a line per round on stdout, Ctrl-C to leave.
#include "Headless.h"

#include "Invite.h"
#include "SignalQuit.h"
#include "WorkController.h"

#include <QCoreApplication>

#include <cstdlib>
#include <iostream>

namespace swarmtrain {

namespace {

QString megabytes(qint64 bytes) { return QString::number(double(bytes) / 1e6, 'f', 2) + QStringLiteral(" MB"); }

// One line per round, for people and for scripts.
QString roundLine(const RoundReport &r)
{
    if (r.pipelineStages > 0) {
        QString line = QStringLiteral("step %1 done at stage %2 of %3: %4 microbatches, group of %5, params %6, up %7, down %8")
                           .arg(r.round)
                           .arg(r.pipelineStage + 1)
                           .arg(r.pipelineStages)
                           .arg(r.microbatches)
                           .arg(r.members)
                           .arg(r.paramsHash, megabytes(r.bytesUp), megabytes(r.bytesDown));
        if (r.tokens > 0)
            line += QStringLiteral(", loss %1, %2 tokens").arg(r.loss, 0, 'f', 4).arg(r.tokens);
        return line;
    }
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
    line += QStringLiteral(", %1 steps").arg(r.steps);
    if (r.budgetSeconds > 0)
        line += QStringLiteral(" in a budget of %1 s").arg(r.budgetSeconds, 0, 'f', 1);
    line += QStringLiteral(", utilisation %1%").arg(100.0 * r.utilisation, 0, 'f', 0);
    if (r.skippedRanges > 0)
        line += QStringLiteral(", %1 ranges skipped").arg(r.skippedRanges);
    if (r.uploadedState)
        line += QStringLiteral(", uploaded the new state");
    return line;
}

int failHeadless(const QString &message)
{
    std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
    return 2;
}

} // namespace

int runHeadless(QCoreApplication &app, const ClientCommandLine &command)
{
    if (command.swarm.isEmpty())
        return failHeadless(QStringLiteral("--swarm URL is needed"));
    WorkerOptions options = command.worker;
    const Result<Invite> invite = parseInvite(command.swarm);
    if (!invite)
        return failHeadless(QString::fromStdString(invite.error().message));
    options.swarmUrl = invite->swarmUrl;
    if (options.pinnedPublicKey.isEmpty())
        options.pinnedPublicKey = invite->pin;
    options.inviteToken = invite->token;
    options.gpuProbeCommand = {QCoreApplication::applicationFilePath().toStdString(), "--gpu-probe-child"};

    WorkController controller(options);
    controller.setDuty(command.duty);
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
        return failHeadless(QString::fromStdString(watched.error().message));
    std::cout << "state directory " << options.stateDir.string() << std::endl;
    controller.start();
    return app.exec();
}

} // namespace swarmtrain
