#include "ClientSession.h"

#include "Autostart.h"
#include "ControlMessages.h"
#include "CoordinatorClient.h"
#include "DeviceBench.h"
#include "EmbeddedCoordinator.h"
#include "GpuChoice.h"
#include "ModelConfig.h"
#include "Identity.h"
#include "StatsStore.h"
#include "Trainer.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocale>
#include <QLoggingCategory>
#include <QNetworkInterface>
#include <QPointer>
#include <QSettings>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <map>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcSession, "swarmtrain.session")

namespace {

QString formatRate(double bytesPerSecond)
{
    return QCoreApplication::translate("swarmtrain::ClientSession", "%1 GB/s").arg(bytesPerSecond / 1e9, 0, 'f', 1);
}

QString formatFlops(double flops)
{
    if (flops >= 1e12)
        return QCoreApplication::translate("swarmtrain::ClientSession", "%1 TFLOP/s").arg(flops / 1e12, 0, 'f', 1);
    return QCoreApplication::translate("swarmtrain::ClientSession", "%1 GFLOP/s").arg(flops / 1e9, 0, 'f', 1);
}

// "GPT, 4 layers × 128, 0.8 million parameters" from the model of /v1/status.
QString describeModel(const ModelConfig &config)
{
    const double parameters = double(config.parameterCount());
    const QString count = parameters >= 1e6
                              ? QCoreApplication::translate("swarmtrain::ClientSession", "%1 million").arg(parameters / 1e6, 0, 'f', 1)
                              : QLocale().toString(qint64(parameters));
    const char *text = config.isLlama() ? QT_TRANSLATE_N_NOOP("swarmtrain::ClientSession", "Llama, %n layer(s) × %1, %2 parameters")
                                        : QT_TRANSLATE_N_NOOP("swarmtrain::ClientSession", "GPT, %n layer(s) × %1, %2 parameters");
    return QCoreApplication::translate("swarmtrain::ClientSession", text, nullptr, config.nLayer).arg(config.nEmbd).arg(count);
}

// The address friends on the LAN reach this PC at: the first private IPv4 of an interface
// that is up, else loopback.
QString lanAddress()
{
    for (const QNetworkInterface &interface : QNetworkInterface::allInterfaces()) {
        if (!(interface.flags() & QNetworkInterface::IsUp) || (interface.flags() & QNetworkInterface::IsLoopBack))
            continue;
        for (const QNetworkAddressEntry &entry : interface.addressEntries()) {
            const QHostAddress ip = entry.ip();
            if (ip.protocol() == QAbstractSocket::IPv4Protocol && !ip.isLoopback())
                return ip.toString();
        }
    }
    return QStringLiteral("127.0.0.1");
}

// The newest model the coordinator publishes (GET /v1/model), into `snapshot`; nothing when it
// publishes none (or is older than the endpoint).
void readPublishedModel(CoordinatorClient &client, QString baseUrl, SwarmSnapshot &snapshot)
{
    Result<QJsonObject> answer = client.getJson(QStringLiteral("/v1/model"));
    const QJsonArray exports = answer ? answer->value(QLatin1StringView("exports")).toArray() : QJsonArray();
    if (exports.isEmpty())
        return;
    while (baseUrl.endsWith(QLatin1Char('/')))
        baseUrl.chop(1);
    const QJsonObject latest = exports.first().toObject();
    snapshot.publishedRound = latest.value(QLatin1StringView("round")).toInteger(-1);
    snapshot.publishedTokens = latest.value(QLatin1StringView("tokens_trained")).toInteger(-1);
    for (const QJsonValue value : latest.value(QLatin1StringView("files")).toArray()) {
        const QJsonObject file = value.toObject();
        const QString path = file.value(QLatin1StringView("url")).toString();
        if (!path.startsWith(QLatin1StringView("/v1/model/files/")))
            continue; // only the coordinator's own paths
        snapshot.downloads.append({file.value(QLatin1StringView("name")).toString(), baseUrl + path,
                                   file.value(QLatin1StringView("bytes")).toInteger()});
    }
}

} // namespace

ClientSession::ClientSession(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
    qRegisterMetaType<SessionState>();
    qRegisterMetaType<SwarmSnapshot>();
    qRegisterMetaType<ContributionSummary>();
    qRegisterMetaType<GpuReport>();
    qRegisterMetaType<RoundReport>();
    qRegisterMetaType<Preferences>();
    m_pool.setMaxThreadCount(3);
    if (m_options.devices.empty())
        m_options.devices = {m_options.worker.device};
    if (m_options.settings)
        m_preferences = loadPreferences(*m_options.settings);
    m_throttle = std::make_unique<ThrottleMonitor>(std::move(m_options.sources), throttlePrefs(m_preferences));
    connect(m_throttle.get(), &ThrottleMonitor::decisionChanged, this,
            [this](const ThrottleDecision &decision) { applyDecision(decision); });
    m_swarmTimer = new QTimer(this);
    m_swarmTimer->setInterval(m_options.swarmPollInterval);
    connect(m_swarmTimer, &QTimer::timeout, this, &ClientSession::pollSwarm);
    m_state.mode = describeMode(WorkStatus{});
}

ClientSession::~ClientSession()
{
    m_swarmTimer->stop();
    m_pool.waitForDone();
    // Without quit() first: stop at once, the replica saved, the goodbye given up.
    for (WorkerGroup *worker : {m_worker.get(), m_retiring.get()}) {
        if (worker) {
            disconnect(worker, nullptr, this, nullptr);
            worker->abandon();
        }
    }
    m_worker.reset(); // waits for its thread
    m_retiring.reset();
    m_hosted.reset();
    m_pool.waitForDone();
}

void ClientSession::start()
{
    m_throttle->start();
    if (!m_preferences.swarmUrl.isEmpty())
        startWorker();
    updateState();
}

Result<void> ClientSession::join(const QString &urlOrInvite)
{
    Result<Invite> invite = parseInvite(urlOrInvite);
    if (!invite)
        return invite.error();
    if (!plainHttpAllowed() && isPlainHttpOffThisMachine(invite->swarmUrl))
        return makeError(tr("%1 is plain http:// to another computer: anyone on the way could forge the swarm's "
                            "answers. Ask for its https:// invite link, or allow plain HTTP.")
                             .arg(invite->swarmUrl)
                             .toStdString());
    Preferences preferences = m_preferences;
    preferences.swarmUrl = invite->swarmUrl;
    preferences.swarmPin = invite->pin;
    preferences.swarmInviteToken = invite->token;
    setPreferences(preferences);
    retireWorker();
    m_lastError.clear();
    if (m_retiring)
        m_startAfterRetiring = true;
    else
        startWorker();
    updateState();
    return {};
}

void ClientSession::leave()
{
    Preferences preferences = m_preferences;
    preferences.swarmUrl.clear();
    preferences.swarmPin.clear();
    preferences.swarmInviteToken.clear();
    setPreferences(preferences);
    m_startAfterRetiring = false;
    retireWorker();
    updateState();
}

bool ClientSession::plainHttpAllowed() const
{
    return m_options.worker.allowPlainHttp || m_preferences.allowPlainHttp;
}

bool ClientSession::joined() const { return !m_preferences.swarmUrl.isEmpty(); }

Invite ClientSession::swarm() const
{
    return {m_preferences.swarmUrl, m_preferences.swarmPin, m_preferences.swarmInviteToken};
}

void ClientSession::startWorker()
{
    if (m_preferences.gpuUse == GpuUse::Chosen && !m_gpuReport) {
        if (!std::exchange(m_startAfterProbe, true))
            probeGpus();
        return;
    }
    Result<std::vector<std::string>> devices =
        devicesForGpuChoice(m_preferences.gpuUse, m_preferences.gpuUuids, m_gpuReport ? m_gpuReport->gpus : std::vector<GpuInfo>{},
                            m_options.devices, m_options.cudaDeviceSpec);
    if (!devices) {
        m_lastError = QString::fromStdString(devices.error().message);
        m_state.work = {};
        m_state.work.state = WorkState::Failed;
        updateState();
        return;
    }
    WorkerOptions options = m_options.worker;
    options.swarmUrl = m_preferences.swarmUrl;
    options.pinnedPublicKey = m_preferences.swarmPin;
    options.inviteToken = m_preferences.swarmInviteToken;
    if (!m_preferences.displayName.isEmpty()) // else --display-name's, if any
        options.displayName = m_preferences.displayName;
    options.allowPlainHttp = plainHttpAllowed();
    options.stateDir = m_options.stateDir;
    options.deviceMemoryBudget = std::int64_t(m_preferences.maxGpuMemoryMiB) << 20;
    m_worker = std::make_unique<WorkerGroup>(options, *devices);
    WorkerGroup *worker = m_worker.get();
    connect(worker, &WorkerGroup::statusChanged, this, [this](const WorkStatus &status) {
        m_state.work = status;
        m_state.mode = describeMode(status);
        updateState();
    });
    connect(worker, &WorkerGroup::roundFinished, this, [this](const RoundReport &report) {
        Q_EMIT roundFinished(report);
        refreshContributions();
        checkDiskUse();
    });
    connect(worker, &WorkerGroup::finished, this,
            [this, worker](bool ok, const QString &message) { workerGone(worker, ok, message); });
    m_worker->start();
    applyDecision(m_throttle->decision());
    checkDiskUse();
    m_swarmTimer->start();
    pollSwarm();
}

void ClientSession::retireWorker()
{
    if (!m_worker)
        return;
    // Only one leaves at a time: the next worker starts after it, so a second retirement finds
    // the first gone or finds no worker.
    Q_ASSERT(!m_retiring);
    WorkerGroup *worker = m_worker.get();
    disconnect(worker, &WorkerGroup::statusChanged, this, nullptr);
    disconnect(worker, &WorkerGroup::roundFinished, this, nullptr);
    worker->stop();
    m_retiring = std::move(m_worker);
    m_state.work = {};
    m_state.work.state = WorkState::Stopping;
    m_state.work.detail = tr("Saving this PC's copy of the model and telling the coordinator");
}

void ClientSession::workerGone(WorkerGroup *worker, bool ok, const QString &message)
{
    const bool retired = m_retiring.get() == worker;
    if (retired)
        m_movingDevices = false;
    if (!ok && !retired) {
        m_lastError = message;
        qCWarning(lcSession).noquote() << "the worker stopped:" << message;
    }
    // Not destroyed inside its own signal: later, when it has returned.
    (retired ? m_retiring : m_worker).release()->deleteLater();
    if (!retired || !m_worker) {
        m_state.work = {};
        m_state.work.state = ok || retired ? WorkState::Stopped : WorkState::Failed;
    }
    if (retired && std::exchange(m_startAfterRetiring, false) && joined() && !m_quitting)
        startWorker();
    updateState();
    if (m_quitting && !m_worker && !m_retiring)
        Q_EMIT readyToQuit();
}

void ClientSession::applyDecision(const ThrottleDecision &decision)
{
    m_state.decision = decision;
    if (m_worker) {
        switch (decision.action) {
        case ThrottleAction::Run:
            m_worker->setDuty(decision.duty);
            m_worker->resume();
            break;
        case ThrottleAction::Pause:
            m_worker->pause(ThrottleMonitor::describe(decision),
                            /*release=*/m_manualRelease && decision.reason == PauseReason::Manual);
            break;
        case ThrottleAction::Release:
            m_worker->pause(ThrottleMonitor::describe(decision), /*release=*/true);
            break;
        }
    }
    updateState();
}

void ClientSession::updateState()
{
    SessionState &s = m_state;
    s.joined = joined();
    s.decision = m_throttle->decision();
    s.detail = s.work.detail;
    if (m_retiring && !m_worker) {
        // The worker leaves on its own thread; the window says so until it has.
        s.icon = SessionIcon::Paused;
        s.headline = !s.joined       ? tr("Leaving the swarm")
                     : m_movingDevices ? tr("Moving training to the devices chosen")
                                       : tr("Leaving the previous swarm");
    } else if (!s.joined) {
        s.icon = SessionIcon::Paused;
        s.headline = tr("Not in a swarm");
        s.detail = tr("Join a swarm on the Swarm page, or host one on this PC.");
    } else if (!m_worker && !m_lastError.isEmpty()) {
        s.icon = SessionIcon::Error;
        s.headline = tr("Stopped: %1").arg(m_lastError);
    } else if (!s.decision.running()) {
        s.icon = SessionIcon::Paused;
        s.headline = ThrottleMonitor::describe(s.decision);
        // A paused worker's status is the pause's reason, which the headline says already.
        if (s.work.state == WorkState::Paused)
            s.detail.clear();
        const QDateTime until = m_throttle->manualPauseUntil();
        if (s.decision.reason == PauseReason::Manual && until.isValid())
            s.headline = tr("Paused by you until %1").arg(QLocale().toString(until.time(), QLocale::ShortFormat));
    } else {
        s.icon = SessionIcon::Active;
        switch (s.work.state) {
        case WorkState::Training:
        case WorkState::Averaging:
            s.headline = ThrottleMonitor::describe(s.decision);
            break;
        case WorkState::Waiting:
            s.headline = tr("Waiting for the next round");
            break;
        case WorkState::Starting:
        case WorkState::Joining:
        case WorkState::Downloading:
            s.headline = tr("Getting ready");
            break;
        case WorkState::Paused:
            s.headline = tr("Resuming");
            s.detail.clear(); // the pause's reason, over now
            break;
        case WorkState::Stopping:
        case WorkState::Stopped:
            s.icon = SessionIcon::Paused;
            s.headline = tr("Stopped");
            break;
        case WorkState::Failed:
            s.icon = SessionIcon::Error;
            s.headline = tr("Stopped by an error");
            break;
        }
    }
    Q_EMIT stateChanged(s);
}

void ClientSession::pause(std::optional<std::chrono::seconds> duration)
{
    m_manualRelease = false;
    m_throttle->pauseManually(duration);
    applyDecision(m_throttle->decision());
}

void ClientSession::release()
{
    m_manualRelease = true;
    m_throttle->pauseManually();
    applyDecision(m_throttle->decision());
}

void ClientSession::resume()
{
    m_manualRelease = false;
    m_throttle->resumeManually();
}

void ClientSession::quit()
{
    m_quitting = true;
    m_swarmTimer->stop();
    m_startAfterRetiring = false;
    // A leave already under way when the person quits gets no more time.
    if (m_retiring)
        m_retiring->abandon();
    retireWorker();
    if (!m_retiring) {
        QMetaObject::invokeMethod(this, &ClientSession::readyToQuit, Qt::QueuedConnection);
        return;
    }
    updateState();
    // The goodbye has kQuitGrace; then the worker gives it up (the replica is saved either way).
    QTimer::singleShot(kQuitGrace, this, [this] {
        if (m_retiring)
            m_retiring->abandon();
    });
}

void ClientSession::setPreferences(const Preferences &preferences)
{
    const Preferences before = m_preferences;
    m_preferences = preferences;
    if (m_options.settings) {
        savePreferences(*m_options.settings, m_preferences);
        m_options.settings->sync();
    }
    m_throttle->setPrefs(throttlePrefs(m_preferences));
    const bool otherDevices = before.gpuUse != m_preferences.gpuUse ||
                              (m_preferences.gpuUse == GpuUse::Chosen && before.gpuUuids != m_preferences.gpuUuids);
    if (otherDevices && joined() && !m_quitting) {
        // Training moves to the devices now chosen: the workers leave (the replica saved) and
        // the new ones start once they have gone.
        if (m_worker) {
            retireWorker();
            m_startAfterRetiring = true;
            m_movingDevices = true;
        } else if (!m_retiring) {
            m_lastError.clear();
            startWorker();
        }
        updateState();
    }
    if (before.diskLimitGiB != m_preferences.diskLimitGiB)
        checkDiskUse();
    if (m_options.autostart && before.startAtLogin != m_preferences.startAtLogin) {
        Result<void> done = m_preferences.startAtLogin
                                ? m_options.autostart->enable(QCoreApplication::applicationFilePath().toStdString(), "")
                                : m_options.autostart->disable();
        if (!done)
            qCWarning(lcSession).noquote() << "start at login:" << QString::fromStdString(done.error().message);
    }
    Q_EMIT preferencesChanged(m_preferences);
}

void ClientSession::hostSwarm(const CoordinatorConfig &config)
{
    stopHosting();
    m_hosted = std::make_unique<EmbeddedCoordinator>(config);
    connect(m_hosted.get(), &EmbeddedCoordinator::started, this, [this, config](const QString &url, const QString &pin) {
        const QString scheme = url.section(QLatin1Char(':'), 0, 0);
        const QString port = url.section(QLatin1Char(':'), -1);
        const QString host = config.listenHost == "0.0.0.0" ? lanAddress() : QString::fromStdString(config.listenHost);
        m_inviteLink = formatInvite({QStringLiteral("%1://%2:%3").arg(scheme, host, port), pin});
        qCInfo(lcSession).noquote() << "hosting a swarm at" << url << "invite" << m_inviteLink;
        Q_EMIT hostingChanged(true, m_inviteLink, {});
        (void)join(formatInvite({url, pin}));
    });
    connect(m_hosted.get(), &EmbeddedCoordinator::failed, this, [this](const QString &message) {
        m_inviteLink.clear();
        Q_EMIT hostingChanged(false, {}, message);
    });
    m_hosted->start();
}

void ClientSession::stopHosting()
{
    if (!m_hosted)
        return;
    const bool wasJoinedHere = m_hosted->isRunning() && !m_hosted->url().isEmpty() &&
                               m_preferences.swarmUrl == m_hosted->url();
    if (wasJoinedHere)
        leave();
    m_hosted.reset();
    m_inviteLink.clear();
    Q_EMIT hostingChanged(false, {}, {});
}

bool ClientSession::hosting() const { return m_hosted && m_hosted->isRunning(); }

QString ClientSession::inviteLink() const { return m_inviteLink; }

void ClientSession::pollSwarm()
{
    if (!joined()) {
        m_swarmTimer->stop();
        return;
    }
    if (m_swarmPollRunning)
        return;
    m_swarmPollRunning = true;
    const CoordinatorClientOptions options = swarmClientOptions(1, 1000);
    const std::shared_ptr<const Identity> identity = statusIdentity();
    if (!identity) {
        m_swarmPollRunning = false;
        return;
    }
    const QPointer<ClientSession> self(this);
    const std::filesystem::path keyFile = m_options.stateDir / "identity.pem";
    m_pool.start([self, options, identity, keyFile, ownPeerId = m_ownPeerId] {
        SwarmSnapshot snapshot;
        snapshot.ownPeerId = ownPeerId;
        // The worker makes the key when it first starts; only read here, never made (that would race it).
        std::error_code error;
        if (ownPeerId.isEmpty() && std::filesystem::exists(keyFile, error)) {
            if (Result<Identity> own = Identity::loadOrCreate(keyFile))
                snapshot.ownPeerId = own->keyId();
        }
        CoordinatorClient client(*identity, options);
        Result<QJsonObject> answer = client.getJson(QStringLiteral("/v1/status"));
        Result<StatusAnswer> status = answer ? StatusAnswer::fromJson(*answer) : Result<StatusAnswer>(answer.error());
        if (!status) {
            snapshot.error = QString::fromStdString(status.error().message);
        } else {
            snapshot.reachable = true;
            snapshot.round = status->round;
            snapshot.peers = int(status->peers);
            snapshot.model = describeModel(status->model);
            snapshot.leaderboard = status->leaderboard;
            snapshot.bitsPerByte = status->validationTokensPerByte > 0.0;
            const auto shown = [&](double loss) { return snapshot.bitsPerByte ? status->bitsPerByte(loss) : loss; };
            for (const StatusAnswer::LossPoint &point : status->validationLossHistory)
                snapshot.validationLoss.append(QPointF(double(point.round), shown(point.validationLoss)));
            if (status->pipeline) {
                snapshot.round = status->pipeline->step;
                for (const PipelineStatus::Stage &stage : status->pipeline->stages)
                    snapshot.stages.append({int(stage.peers.size()), stage.microbatchesPerSecond});
                snapshot.bottleneck = status->pipeline->bottleneck;
                for (const PipelineStatus::Step &step : status->pipeline->history) {
                    if (step.evalLoss >= 0)
                        snapshot.validationLoss.append(QPointF(double(step.step), shown(step.evalLoss)));
                }
            }
            readPublishedModel(client, options.baseUrl, snapshot);
        }
        QMetaObject::invokeMethod(self.get(), [self, snapshot] {
            if (!self)
                return;
            self->m_swarmPollRunning = false;
            self->m_ownPeerId = snapshot.ownPeerId;
            Q_EMIT self->swarmUpdated(snapshot);
        });
    });
}

void ClientSession::probeGpus()
{
    const QPointer<ClientSession> self(this);
    const std::vector<std::string> command = m_options.gpuProbeCommand;
    m_pool.start([self, command, cudaDevices = m_options.cudaDevices] {
        Result<GpuReport> report = swarmtrain::probeGpus(command, GpuProbeOptions{});
        GpuReport answer = report ? *report : GpuReport{};
        if (!report)
            answer.warnings.push_back(report.error().message);
        markGpusUsable(answer.gpus, cudaDevices >= 0 ? cudaDevices : torchCudaDeviceCount());
        const auto tr = [](const char *text) { return QCoreApplication::translate("swarmtrain::ClientSession", text); };
        for (GpuInfo &gpu : answer.gpus) {
            const QString name = QString::fromStdString(gpu.name);
            QString why;
            switch (gpu.unusable) {
            case GpuInfo::Unusable::NotNvidia:
                why = tr("%1 found, but this build of SwarmTrain trains on NVIDIA GPUs only").arg(name);
                break;
            case GpuInfo::Unusable::NoCuda:
                why = tr("%1 found, but this build of SwarmTrain has no CUDA support").arg(name);
                break;
            case GpuInfo::Unusable::NotVisible:
                why = tr("%1 found, but CUDA does not see it (is CUDA_VISIBLE_DEVICES set?)").arg(name);
                break;
            case GpuInfo::Unusable::Unknown:
            case GpuInfo::Unusable::No:
                break;
            }
            gpu.unusableReason = why.toStdString();
        }
        QMetaObject::invokeMethod(self.get(), [self, answer] {
            if (!self)
                return;
            self->m_gpuReport = answer;
            if (std::exchange(self->m_startAfterProbe, false) && self->joined() && !self->m_worker &&
                !self->m_retiring && !self->m_quitting)
                self->startWorker();
            Q_EMIT self->gpusProbed(answer);
        });
    });
}

void ClientSession::runBenchmark()
{
    if (m_benchmarkRunning)
        return;
    m_benchmarkRunning = true;
    BenchOptions options;
    options.device = m_options.worker.device;
    options.threads = m_options.worker.threads;
    options.iters = 5;
    const QPointer<ClientSession> self(this);
    options.progress = [self](int percent, const std::string &step) {
        static const QHash<QString, const char *> steps = {
            {QStringLiteral("matrix products"), QT_TRANSLATE_NOOP("swarmtrain::ClientSession", "Matrix products")},
            {QStringLiteral("copy bandwidth"), QT_TRANSLATE_NOOP("swarmtrain::ClientSession", "Copy bandwidth")},
            {QStringLiteral("training, resident"), QT_TRANSLATE_NOOP("swarmtrain::ClientSession", "Training, resident")},
            {QStringLiteral("training, swapped"), QT_TRANSLATE_NOOP("swarmtrain::ClientSession", "Training, swapped")},
            {QStringLiteral("done"), QT_TRANSLATE_NOOP("swarmtrain::ClientSession", "Done")}};
        const QString words = QCoreApplication::translate(
            "swarmtrain::ClientSession", steps.value(QString::fromStdString(step), "Measuring"));
        QMetaObject::invokeMethod(self.get(), [self, percent, words] {
            if (self)
                Q_EMIT self->benchmarkProgress(percent, words);
        });
    };
    m_pool.start([self, options] {
        Result<std::string> json = runDeviceBench(options);
        QList<QPair<QString, QString>> results;
        QString error;
        if (!json) {
            error = QString::fromStdString(json.error().message);
        } else {
            const auto tr = [](const char *text) { return QCoreApplication::translate("swarmtrain::ClientSession", text); };
            const nlohmann::json r = nlohmann::json::parse(*json);
            results.append({tr("Device"), QString::fromStdString(r.value("device", std::string()))});
            for (const auto &[dtype, flops] : r["matmul_flops_per_s"].items()) {
                if (dtype != "size")
                    results.append({tr("Matrix product, %1").arg(QString::fromStdString(dtype)), formatFlops(flops.get<double>())});
            }
            const nlohmann::json &bandwidth = r["bandwidth_bytes_per_s"];
            results.append({tr("Host to device"), formatRate(bandwidth.value("host_to_device", 0.0))});
            results.append({tr("Device to host"), formatRate(bandwidth.value("device_to_host", 0.0))});
            const nlohmann::json &training = r["training"];
            const QString model = tr("GPT %1 layers × %2").arg(training.value("n_layer", 0)).arg(training.value("n_embd", 0));
            results.append({tr("Training %1, resident").arg(model),
                            tr("%L1 tokens/s").arg(training["resident"].value("tokens_per_s", 0.0), 0, 'f', 0)});
            results.append({tr("Training %1, swapped").arg(model),
                            tr("%L1 tokens/s").arg(training["swapped"].value("tokens_per_s", 0.0), 0, 'f', 0)});
            results.append({tr("Swapped against resident"),
                            tr("%1%").arg(training.value("swapped_over_resident", 0.0) * 100.0, 0, 'f', 0)});
        }
        QMetaObject::invokeMethod(self.get(), [self, results, error] {
            if (!self)
                return;
            self->m_benchmarkRunning = false;
            Q_EMIT self->benchmarkFinished(error.isEmpty(), results, error);
        });
    });
}

void ClientSession::checkDiskUse()
{
    const QPointer<ClientSession> self(this);
    const std::filesystem::path dir = m_options.stateDir;
    const std::uintmax_t limit = std::uintmax_t(m_preferences.diskLimitGiB) << 30;
    m_pool.start([self, dir, limit] {
        std::uintmax_t used = 0;
        std::error_code ec;
        for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            std::error_code sizeError;
            if (it->is_regular_file(sizeError))
                used += it->file_size(sizeError);
        }
        QMetaObject::invokeMethod(self.get(), [self, used, limit] {
            if (!self)
                return;
            if (used > limit)
                qCWarning(lcSession) << "the state folder holds" << used << "bytes, over the limit of" << limit;
            self->m_throttle->setOverDiskLimit(used > limit);
        });
    });
}

void ClientSession::refreshContributions()
{
    const QPointer<ClientSession> self(this);
    m_pool.start([self, folders = WorkerGroup::statsFolders(m_options.stateDir)] {
        // Every device's worker keeps its own stats.db (WorkerGroup); the dashboard shows their sum.
        ContributionSummary summary;
        std::map<QDate, DailyStats> days;
        for (const std::filesystem::path &folder : folders) {
            const std::filesystem::path file = folder / "stats.db";
            if (!std::filesystem::exists(file))
                continue;
            // Its own connection, on this thread, closed before the task ends.
            Result<std::unique_ptr<StatsStore>> stats = StatsStore::open(file);
            if (!stats) {
                qCWarning(lcSession).noquote() << "cannot read" << QString::fromStdString(file.string()) << ":"
                                               << QString::fromStdString(stats.error().message);
                continue;
            }
            if (Result<StatsTotals> totals = (*stats)->totals())
                summary.totals += *totals;
            if (Result<std::vector<DailyStats>> daily = (*stats)->daily(30, QDateTime::currentDateTime())) {
                for (const DailyStats &day : *daily)
                    days.try_emplace(day.day, DailyStats{day.day}).first->second += day;
            }
        }
        for (const auto &[day, stats] : days)
            summary.days.push_back(stats);
        QMetaObject::invokeMethod(self.get(), [self, summary] {
            if (self)
                Q_EMIT self->contributionsUpdated(summary);
        });
    });
}

} // namespace swarmtrain
