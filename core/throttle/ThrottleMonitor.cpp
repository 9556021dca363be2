#include "ThrottleMonitor.h"

#include "DesktopIdleSourceFactory.h"
#include "IdleSource.h"
#include "PowerSource.h"
#include "ProcessList.h"

#include <QCoreApplication>
#include <QLocale>

namespace swarmtrain {

ThrottleSources makePlatformThrottleSources()
{
    ThrottleSources sources;
    sources.idle = makeDesktopIdleSource(); // on Linux it tells Wayland sessions from X11 ones
    sources.power = makePowerSource();
    sources.processes = makeProcessList();
    return sources;
}

ThrottleMonitor::ThrottleMonitor(ThrottleSources sources, ThrottlePrefs prefs, QObject *parent)
    : ThrottleMonitor(std::move(sources), std::move(prefs), Intervals{}, parent)
{
}

ThrottleMonitor::ThrottleMonitor(ThrottleSources sources, ThrottlePrefs prefs, Intervals intervals, QObject *parent)
    : QObject(parent), m_sources(std::move(sources)), m_prefs(std::move(prefs)), m_intervals(intervals)
{
    qRegisterMetaType<ThrottleDecision>();
    m_idleTimer.setInterval(m_intervals.idle);
    m_slowTimer.setInterval(m_intervals.slow);
    connect(&m_idleTimer, &QTimer::timeout, this, [this] {
        pollIdle();
        decide();
    });
    connect(&m_slowTimer, &QTimer::timeout, this, [this] {
        pollSlow();
        decide();
    });
}

ThrottleMonitor::~ThrottleMonitor() = default;

void ThrottleMonitor::setPrefs(const ThrottlePrefs &prefs)
{
    m_prefs = prefs;
    pollSlow(); // a list of exclusive apps set just now is checked at once
    decide();
}

void ThrottleMonitor::start()
{
    pollIdle();
    pollSlow();
    decide();
    m_idleTimer.start();
    m_slowTimer.start();
}

void ThrottleMonitor::stop()
{
    m_idleTimer.stop();
    m_slowTimer.stop();
}

void ThrottleMonitor::pauseManually(std::optional<std::chrono::seconds> duration)
{
    m_manualPause = true;
    m_manualUntil = duration ? m_sources.now().addSecs(duration->count()) : QDateTime();
    decide();
}

void ThrottleMonitor::resumeManually()
{
    m_manualPause = false;
    m_manualUntil = QDateTime();
    decide();
}

void ThrottleMonitor::setGenerating(bool generating)
{
    m_signals.generating = generating;
    decide();
}

void ThrottleMonitor::setOverDiskLimit(bool over)
{
    m_signals.overDiskLimit = over;
    decide();
}

void ThrottleMonitor::pollIdle()
{
    m_signals.idleSeconds = m_sources.idle ? m_sources.idle->idleSeconds() : std::nullopt;
}

void ThrottleMonitor::pollSlow()
{
    m_signals.onBattery = m_sources.power ? m_sources.power->onBattery() : std::nullopt;
    m_signals.runningProcesses = m_sources.processes && !m_prefs.exclusiveApps.empty()
                                     ? m_sources.processes->runningNames()
                                     : std::vector<std::string>{};
    const GpuSample gpu = m_sources.gpu ? m_sources.gpu() : GpuSample{};
    m_signals.otherGpuUtilization = gpu.otherUtilization;
    m_signals.gpuTemperature = gpu.temperature;
}

void ThrottleMonitor::decide()
{
    const QDateTime now = m_sources.now();
    if (m_manualPause && m_manualUntil.isValid() && now >= m_manualUntil) {
        m_manualPause = false;
        m_manualUntil = QDateTime();
    }
    m_signals.manualPause = m_manualPause;
    m_signals.minuteOfDay = now.time().hour() * 60 + now.time().minute();
    const ThrottleDecision next = ThrottlePolicy::decide(m_signals, m_prefs, m_decision);
    if (next == m_decision)
        return;
    m_decision = next;
    Q_EMIT decisionChanged(m_decision);
}

QString ThrottleMonitor::describe(const ThrottleDecision &decision)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("swarmtrain::ThrottleMonitor", text); };
    switch (decision.reason) {
    case PauseReason::None:
        return decision.duty < 1.0 ? tr("Contributing at %1% of the GPU's time").arg(qRound(decision.duty * 100))
                                   : tr("Contributing");
    case PauseReason::Manual:
        return tr("Paused by you");
    case PauseReason::Generating:
        return tr("Paused: the model is writing the text you asked for");
    case PauseReason::UserActive:
        return tr("Paused: you are using the computer");
    case PauseReason::OnBattery:
        return tr("Paused: on battery");
    case PauseReason::ExclusiveApp:
        return tr("Paused: a game is running");
    case PauseReason::GpuBusy:
        return tr("Paused: another program is using the GPU");
    case PauseReason::GpuHot:
        return tr("Paused: the GPU is too hot");
    case PauseReason::Schedule:
        return tr("Paused: outside the hours you chose");
    case PauseReason::DiskFull:
        return tr("Paused: SwarmTrain's files are over your disk limit");
    }
    return {};
}

} // namespace swarmtrain
