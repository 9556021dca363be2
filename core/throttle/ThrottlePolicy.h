#pragma once

#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// Why training does not run now. The UI turns each into words ("Paused: on battery").
enum class PauseReason {
    None,
    Manual,       // the person paused it (tray, dashboard), maybe for a while
    Generating,   // the person asked the model for text (Model page): a few seconds
    UserActive,   // input within the idle threshold
    OnBattery,
    ExclusiveApp, // a game or another app the person listed is running
    GpuBusy,      // other processes use the GPU
    GpuHot,       // at or over the temperature limit
    Schedule,     // outside the hours the person allowed
    DiskFull,     // the state folder is over the person's disk limit
};

enum class ThrottleAction {
    Run,     // at `duty` (share of the time the GPU may work)
    Pause,   // stop within one stage, keep GPU memory
    Release, // stop and free the GPU memory, so a game gets all of it
};

// What the platform probes report at one moment (core/platform); anything unknown is nullopt.
struct ThrottleSignals {
    std::optional<double> idleSeconds;          // since the last keyboard or mouse input
    std::optional<bool> onBattery;
    std::vector<std::string> runningProcesses;  // executable names, as the OS reports them
    std::optional<double> otherGpuUtilization;  // percent used by processes other than ours
    std::optional<double> gpuTemperature;       // degrees Celsius
    int minuteOfDay = 0;                        // local time, 0..1439
    bool manualPause = false;
    bool generating = false;                    // the Model page is writing what the person asked for
    bool overDiskLimit = false;                 // the state folder, after removing what can be fetched again
};

// The person's settings (Settings page).
struct ThrottlePrefs {
    double idleMinutes = 3.0;      // compute only after this long without input
    bool runWhenIdleUnknown = true; // e.g. Wayland without an idle protocol
    bool pauseOnBattery = true;
    std::vector<std::string> exclusiveApps; // matched case-insensitively against process names
    double maxDuty = 1.0;           // maximum share of time the GPU works (duty cycle)
    double otherGpuBusyPercent = 30.0;
    double gpuTemperatureLimit = 85.0;
    std::optional<int> scheduleStartMinute; // both set: run only from start to end (may wrap midnight)
    std::optional<int> scheduleEndMinute;
};

struct ThrottleDecision {
    ThrottleAction action = ThrottleAction::Run;
    PauseReason reason = PauseReason::None;
    double duty = 1.0;

    bool running() const { return action == ThrottleAction::Run; }
    bool operator==(const ThrottleDecision &) const = default;
};

// BOINC's check_suspend_processing() as a pure function: signals and preferences in, a
// decision out. `previous` gives hysteresis, so the decision does not flap around a limit:
// once paused for heat it resumes only kTemperatureHysteresis degrees below the limit, and
// once paused for other GPU use only when that falls kGpuBusyHysteresis points below it.
class ThrottlePolicy {
public:
    static constexpr double kTemperatureHysteresis = 5.0;
    static constexpr double kGpuBusyHysteresis = 10.0;

    static ThrottleDecision decide(const ThrottleSignals &signals, const ThrottlePrefs &prefs,
                                   const ThrottleDecision &previous = {});
};

} // namespace swarmtrain
