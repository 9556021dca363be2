#pragma once

#include "IdleSource.h"
#include "PowerSource.h"
#include "ProcessList.h"
#include "ThrottlePolicy.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace swarmtrain {

// The GPU's figures that matter to throttling (NVML), read every few seconds.
struct GpuSample {
    std::optional<double> otherUtilization; // percent, by processes other than ours
    std::optional<double> temperature;      // degrees Celsius
};

// Where ThrottleMonitor reads the PC's state. makePlatformThrottleSources() gives the real
// ones; tests pass fakes with the same interfaces. Any source may be null (unknown).
struct ThrottleSources {
    std::unique_ptr<IdleSource> idle;
    std::unique_ptr<PowerSource> power;
    std::unique_ptr<ProcessList> processes;
    std::function<GpuSample()> gpu;
    std::function<QDateTime()> now = [] { return QDateTime::currentDateTime(); };
};

ThrottleSources makePlatformThrottleSources();

// Polls the platform sources and runs ThrottlePolicy::decide(): idle time often (a pause must
// follow the person's input within a second), the rest every few seconds. Emits
// decisionChanged() only when the decision changes. Lives on the GUI thread (or --headless's
// main thread); every source is cheap or read at a slow pace.
class ThrottleMonitor : public QObject {
    Q_OBJECT

public:
    struct Intervals {
        std::chrono::milliseconds idle{200};
        std::chrono::milliseconds slow{3000}; // power, processes, GPU
    };

    ThrottleMonitor(ThrottleSources sources, ThrottlePrefs prefs, QObject *parent = nullptr);
    ThrottleMonitor(ThrottleSources sources, ThrottlePrefs prefs, Intervals intervals, QObject *parent = nullptr);
    ~ThrottleMonitor() override;

    void setPrefs(const ThrottlePrefs &prefs); // reads the slow sources and decides again at once
    const ThrottlePrefs &prefs() const { return m_prefs; }

    // Reads every source and decides now, then keeps polling.
    void start();
    void stop();

    // The tray's Pause (nullopt: until Resume) and "Pause for 1 hour".
    void pauseManually(std::optional<std::chrono::seconds> duration = std::nullopt);
    void resumeManually();
    // Training pauses while the model writes what the person asked for (the Model page).
    void setGenerating(bool generating);
    // The client measures its folder after each round; over the limit pauses until it is not.
    void setOverDiskLimit(bool over);
    bool manuallyPaused() const { return m_manualPause; }
    QDateTime manualPauseUntil() const { return m_manualUntil; } // invalid: until resumed

    const ThrottleDecision &decision() const { return m_decision; }
    const ThrottleSignals &lastSignals() const { return m_signals; }

    // "Paused: on battery" and the like, translated; "Contributing" when running.
    static QString describe(const ThrottleDecision &decision);

Q_SIGNALS:
    void decisionChanged(const swarmtrain::ThrottleDecision &decision);

private:
    void pollIdle();
    void pollSlow();
    void decide();

    ThrottleSources m_sources;
    ThrottlePrefs m_prefs;
    Intervals m_intervals;
    QTimer m_idleTimer;
    QTimer m_slowTimer;
    ThrottleSignals m_signals;
    ThrottleDecision m_decision;
    bool m_manualPause = false;
    QDateTime m_manualUntil;
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::ThrottleDecision)
