#include "ThrottlePolicy.h"

#include <algorithm>
#include <cctype>

namespace swarmtrain {

namespace {

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool exclusiveAppRunning(const ThrottleSignals &signals, const ThrottlePrefs &prefs)
{
    for (const std::string &app : prefs.exclusiveApps) {
        const std::string wanted = lower(app);
        for (const std::string &process : signals.runningProcesses) {
            if (lower(process) == wanted)
                return true;
        }
    }
    return false;
}

bool outsideSchedule(const ThrottleSignals &signals, const ThrottlePrefs &prefs)
{
    if (!prefs.scheduleStartMinute || !prefs.scheduleEndMinute)
        return false;
    const int start = *prefs.scheduleStartMinute, end = *prefs.scheduleEndMinute, now = signals.minuteOfDay;
    const bool inside = start <= end ? (now >= start && now < end) : (now >= start || now < end);
    return !inside;
}

ThrottleDecision stop(ThrottleAction action, PauseReason reason) { return {action, reason, 0.0}; }

} // namespace

ThrottleDecision ThrottlePolicy::decide(const ThrottleSignals &signals, const ThrottlePrefs &prefs,
                                        const ThrottleDecision &previous)
{
    // In order of what the person would want named first: their own pause (and the text they
    // asked for), then what frees
    // the GPU for them (a game), then the rest.
    if (signals.manualPause)
        return stop(ThrottleAction::Pause, PauseReason::Manual);
    if (signals.generating)
        return stop(ThrottleAction::Pause, PauseReason::Generating);
    if (exclusiveAppRunning(signals, prefs))
        return stop(ThrottleAction::Release, PauseReason::ExclusiveApp);
    if (prefs.pauseOnBattery && signals.onBattery.value_or(false))
        return stop(ThrottleAction::Pause, PauseReason::OnBattery);
    if (outsideSchedule(signals, prefs))
        return stop(ThrottleAction::Pause, PauseReason::Schedule);
    if (signals.overDiskLimit)
        return stop(ThrottleAction::Pause, PauseReason::DiskFull);

    if (signals.gpuTemperature) {
        const bool wasHot = previous.reason == PauseReason::GpuHot;
        const double limit = prefs.gpuTemperatureLimit - (wasHot ? kTemperatureHysteresis : 0.0);
        if (*signals.gpuTemperature >= limit)
            return stop(ThrottleAction::Pause, PauseReason::GpuHot);
    }
    if (signals.otherGpuUtilization) {
        const bool wasBusy = previous.reason == PauseReason::GpuBusy;
        const double limit = prefs.otherGpuBusyPercent - (wasBusy ? kGpuBusyHysteresis : 0.0);
        if (*signals.otherGpuUtilization >= limit)
            return stop(ThrottleAction::Release, PauseReason::GpuBusy);
    }

    const bool idleKnown = signals.idleSeconds.has_value();
    const bool idleLongEnough = idleKnown ? *signals.idleSeconds >= prefs.idleMinutes * 60.0 : prefs.runWhenIdleUnknown;
    if (!idleLongEnough)
        return stop(ThrottleAction::Pause, PauseReason::UserActive);

    return {ThrottleAction::Run, PauseReason::None, std::clamp(prefs.maxDuty, 0.05, 1.0)};
}

} // namespace swarmtrain
