#include "HeadlessClient.h"

#include <QLocale>

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

} // namespace

HeadlessClient::HeadlessClient(WorkerOptions base, std::vector<std::string> devices, double duty)
    : m_base(std::move(base)), m_devices(std::move(devices)), m_duty(duty),
      m_settings(QString::fromStdString((m_base.stateDir / "headless.ini").string()), QSettings::IniFormat)
{
    m_resumeTimer.setSingleShot(true);
    QObject::connect(&m_resumeTimer, &QTimer::timeout, this, [this] { resumeWhenDue(); });
}

Result<void> HeadlessClient::start(const QString &swarm)
{
    const QString chosen = !swarm.isEmpty() ? swarm : m_settings.value(QStringLiteral("swarm")).toString();
    if (chosen.isEmpty()) {
        std::cout << "status: not in a swarm; join one with swarmtrain-cli swarm join URL" << std::endl;
        return {};
    }
    return join(chosen);
}

void HeadlessClient::quit(int code)
{
    m_quitting = true;
    m_exitCode = code;
    m_nextSwarm.reset();
    if (m_worker)
        m_worker->stop();
    else
        QCoreApplication::exit(m_exitCode);
}

ControlStatus HeadlessClient::status() const
{
    ControlStatus s;
    s.swarm = m_worker ? m_swarm : QString();
    s.state = m_worker ? QString::fromLatin1(workStateKey(m_status.state)) : QStringLiteral("idle");
    s.detail = m_worker ? m_status.detail : QString();
    s.round = m_status.round;
    s.stepsDone = m_status.innerStepsDone;
    s.steps = m_status.innerSteps;
    s.tokensPerSecond = m_status.tokensPerSecond;
    s.mode = describeMode(m_status);
    s.paused = m_paused;
    s.pauseReason = m_paused ? QStringLiteral("manual") : QString();
    s.pausedUntil = m_pausedUntil;
    s.released = m_paused && m_released;
    if (!m_worker)
        s.headline = tr("Not in a swarm");
    else if (m_paused && m_pausedUntil.isValid())
        s.headline = tr("Paused by you until %1").arg(QLocale().toString(m_pausedUntil.time(), QLocale::ShortFormat));
    else if (m_paused)
        s.headline = tr("Paused by you");
    else if (m_status.state == WorkState::Failed)
        s.headline = tr("Stopped by an error");
    else if (m_status.state == WorkState::Training || m_status.state == WorkState::Averaging)
        s.headline = tr("Contributing");
    else if (m_status.state == WorkState::Waiting)
        s.headline = tr("Waiting for the next round");
    else
        s.headline = tr("Getting ready");
    return s;
}

Result<void> HeadlessClient::pause(std::optional<std::chrono::seconds> duration) { return pauseWorker(duration, false); }

Result<void> HeadlessClient::release() { return pauseWorker(std::nullopt, true); }

Result<void> HeadlessClient::resume()
{
    m_paused = m_released = false;
    m_pausedUntil = {};
    m_resumeTimer.stop();
    if (m_worker)
        m_worker->resume();
    std::cout << "status: resumed" << std::endl;
    return {};
}

Result<void> HeadlessClient::join(const QString &urlOrInvite)
{
    Result<Invite> invite = parseInvite(urlOrInvite);
    if (!invite)
        return invite.error();
    m_settings.setValue(QStringLiteral("swarm"), urlOrInvite);
    m_settings.sync();
    m_nextSwarm = *invite;
    if (m_worker)
        m_worker->stop(); // the next one starts when this one has left
    else
        startWorker();
    return {};
}

Result<void> HeadlessClient::leave()
{
    m_settings.remove(QStringLiteral("swarm"));
    m_settings.sync();
    m_nextSwarm.reset();
    if (m_worker)
        m_worker->stop();
    return {};
}

Result<void> HeadlessClient::pauseWorker(std::optional<std::chrono::seconds> duration, bool release)
{
    m_paused = true;
    m_released = release;
    m_pausedUntil = duration ? QDateTime::currentDateTime().addSecs(duration->count()) : QDateTime();
    if (m_worker)
        m_worker->pause(tr("Paused by you"), release);
    resumeWhenDue();
    std::cout << "status: paused by you" << (release ? ", GPU memory released" : "") << std::endl;
    return {};
}

void HeadlessClient::resumeWhenDue()
{
    if (!m_paused || !m_pausedUntil.isValid())
        return;
    const qint64 left = QDateTime::currentDateTime().msecsTo(m_pausedUntil);
    if (left <= 0) {
        (void)resume();
        return;
    }
    m_resumeTimer.start(int(std::min<qint64>(left, 3'600'000)));
}

void HeadlessClient::startWorker()
{
    const Invite invite = *std::exchange(m_nextSwarm, std::nullopt);
    WorkerOptions options = m_base;
    options.swarmUrl = invite.swarmUrl;
    options.pinnedPublicKey = invite.pin.isEmpty() ? m_base.pinnedPublicKey : invite.pin; // else --pin
    options.inviteToken = invite.token;
    m_swarm = invite.swarmUrl;
    m_status = {};
    m_worker = std::make_unique<WorkerGroup>(options, m_devices);
    WorkerGroup *worker = m_worker.get();
    worker->setDuty(m_duty);
    if (m_paused)
        worker->pause(tr("Paused by you"), m_released);
    QObject::connect(worker, &WorkerGroup::statusChanged, this, [this](const WorkStatus &status) {
        if (status.detail != m_status.detail)
            std::cout << "status: " << status.detail.toStdString() << std::endl;
        m_status = status;
    });
    QObject::connect(worker, &WorkerGroup::roundFinished, this,
                     [](const RoundReport &report) { std::cout << roundLine(report).toStdString() << std::endl; });
    QObject::connect(worker, &WorkerGroup::finished, this,
                     [this](bool ok, const QString &message) { workerFinished(ok, message); });
    worker->start();
}

void HeadlessClient::workerFinished(bool ok, const QString &message)
{
    m_worker.release()->deleteLater(); // not inside its own signal
    if (!ok) {
        std::cerr << "swarmtrain: error: " << message.toStdString() << std::endl;
        m_exitCode = 1;
    }
    if (m_quitting || (!ok && !m_nextSwarm))
        return QCoreApplication::exit(m_exitCode);
    if (m_nextSwarm)
        return startWorker();
    m_exitCode = 0;
    std::cout << "status: left the swarm; join one with swarmtrain-cli swarm join URL" << std::endl;
}

HeadlessClient::~HeadlessClient() = default;

} // namespace swarmtrain
