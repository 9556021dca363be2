#include "ThrottlePolicy.h"

#include <gtest/gtest.h>

using namespace swarmtrain;

namespace {

class ThrottlePolicyTest : public ::testing::Test {
protected:
    // An idle PC on mains power at noon, a cool and otherwise unused GPU: training runs.
    ThrottleSignals idle()
    {
        ThrottleSignals s;
        s.idleSeconds = 600;
        s.onBattery = false;
        s.runningProcesses = {"bash", "steam"};
        s.otherGpuUtilization = 0;
        s.gpuTemperature = 60;
        s.minuteOfDay = 12 * 60;
        return s;
    }

    ThrottleDecision decide(const ThrottleSignals &s, const ThrottleDecision &previous = {})
    {
        return ThrottlePolicy::decide(s, prefs, previous);
    }

    static ThrottleDecision paused(PauseReason reason) { return {ThrottleAction::Pause, reason, 0.0}; }
    static ThrottleDecision released(PauseReason reason) { return {ThrottleAction::Release, reason, 0.0}; }

    ThrottlePrefs prefs;
};

} // namespace

TEST_F(ThrottlePolicyTest, RunsWhenNothingStandsInTheWay)
{
    const ThrottleDecision d = decide(idle());
    EXPECT_TRUE(d.running());
    EXPECT_EQ(d.reason, PauseReason::None);
    EXPECT_EQ(d.duty, 1.0);
}

TEST_F(ThrottlePolicyTest, EachSignalAlonePausesWithItsReason)
{
    ThrottleSignals s = idle();
    s.manualPause = true;
    EXPECT_EQ(decide(s), paused(PauseReason::Manual));

    s = idle();
    s.idleSeconds = 5;
    EXPECT_EQ(decide(s), paused(PauseReason::UserActive));

    s = idle();
    s.onBattery = true;
    EXPECT_EQ(decide(s), paused(PauseReason::OnBattery));

    s = idle();
    prefs.exclusiveApps = {"Cyberpunk2077.exe"};
    s.runningProcesses.push_back("cyberpunk2077.EXE"); // names compare case-insensitively
    EXPECT_EQ(decide(s), released(PauseReason::ExclusiveApp)) << "a game gets the GPU memory back";
    prefs.exclusiveApps.clear();

    s = idle();
    s.otherGpuUtilization = 50;
    EXPECT_EQ(decide(s), released(PauseReason::GpuBusy));

    s = idle();
    s.gpuTemperature = 90;
    EXPECT_EQ(decide(s), paused(PauseReason::GpuHot));

    s = idle();
    prefs.scheduleStartMinute = 22 * 60;
    prefs.scheduleEndMinute = 6 * 60;
    EXPECT_EQ(decide(s), paused(PauseReason::Schedule));
    prefs.scheduleStartMinute.reset();
    prefs.scheduleEndMinute.reset();

    s = idle();
    s.overDiskLimit = true;
    EXPECT_EQ(decide(s), paused(PauseReason::DiskFull));

    // The text the person asked the model for comes before everything but their own pause.
    s = idle();
    s.generating = true;
    s.idleSeconds = 0; // typing the prompt
    EXPECT_EQ(decide(s), paused(PauseReason::Generating));
    s.manualPause = true;
    EXPECT_EQ(decide(s), paused(PauseReason::Manual));
}

TEST_F(ThrottlePolicyTest, PreferencesTurnSignalsOff)
{
    ThrottleSignals s = idle();
    s.onBattery = true;
    prefs.pauseOnBattery = false;
    EXPECT_TRUE(decide(s).running());

    s = idle();
    s.idleSeconds = 30;
    prefs.idleMinutes = 0;
    EXPECT_TRUE(decide(s).running()) << "no idle requirement";
}

TEST_F(ThrottlePolicyTest, ScheduleMayWrapMidnight)
{
    prefs.scheduleStartMinute = 22 * 60;
    prefs.scheduleEndMinute = 6 * 60;
    ThrottleSignals s = idle();
    s.minuteOfDay = 23 * 60;
    EXPECT_TRUE(decide(s).running());
    s.minuteOfDay = 5 * 60 + 59;
    EXPECT_TRUE(decide(s).running());
    s.minuteOfDay = 6 * 60;
    EXPECT_EQ(decide(s).reason, PauseReason::Schedule);

    prefs.scheduleStartMinute = 9 * 60;
    prefs.scheduleEndMinute = 17 * 60;
    s.minuteOfDay = 9 * 60;
    EXPECT_TRUE(decide(s).running());
    s.minuteOfDay = 17 * 60;
    EXPECT_EQ(decide(s).reason, PauseReason::Schedule);
}

TEST_F(ThrottlePolicyTest, UnknownIdleTimeFollowsThePreference)
{
    ThrottleSignals s = idle();
    s.idleSeconds.reset();
    EXPECT_TRUE(decide(s).running());
    prefs.runWhenIdleUnknown = false;
    EXPECT_EQ(decide(s), paused(PauseReason::UserActive));
}

TEST_F(ThrottlePolicyTest, UnknownBatteryTemperatureAndGpuUseDoNotPause)
{
    ThrottleSignals s = idle();
    s.onBattery.reset();
    s.gpuTemperature.reset();
    s.otherGpuUtilization.reset();
    EXPECT_TRUE(decide(s).running());
}

TEST_F(ThrottlePolicyTest, CombinedSignalsNameTheMostImportantReason)
{
    ThrottleSignals s = idle();
    s.idleSeconds = 1;
    s.onBattery = true;
    s.gpuTemperature = 95;
    EXPECT_EQ(decide(s).reason, PauseReason::OnBattery);
    prefs.exclusiveApps = {"game"};
    s.runningProcesses = {"game"};
    EXPECT_EQ(decide(s), released(PauseReason::ExclusiveApp));
    s.manualPause = true;
    EXPECT_EQ(decide(s), paused(PauseReason::Manual)) << "the person's own pause comes first";
}

TEST_F(ThrottlePolicyTest, TemperatureHasHysteresis)
{
    ThrottleSignals s = idle();
    s.gpuTemperature = prefs.gpuTemperatureLimit;
    ThrottleDecision d = decide(s);
    ASSERT_EQ(d.reason, PauseReason::GpuHot);
    // Cooling a little below the limit is not enough once paused for heat...
    s.gpuTemperature = prefs.gpuTemperatureLimit - 2;
    d = decide(s, d);
    EXPECT_EQ(d.reason, PauseReason::GpuHot);
    // ...though it would be for a PC that was running.
    EXPECT_TRUE(decide(s, ThrottleDecision{}).running());
    s.gpuTemperature = prefs.gpuTemperatureLimit - ThrottlePolicy::kTemperatureHysteresis - 0.5;
    d = decide(s, d);
    EXPECT_TRUE(d.running());
}

TEST_F(ThrottlePolicyTest, OtherGpuUseHasHysteresis)
{
    ThrottleSignals s = idle();
    s.otherGpuUtilization = prefs.otherGpuBusyPercent + 1;
    ThrottleDecision d = decide(s);
    ASSERT_EQ(d.reason, PauseReason::GpuBusy);
    s.otherGpuUtilization = prefs.otherGpuBusyPercent - 5;
    d = decide(s, d);
    EXPECT_EQ(d.reason, PauseReason::GpuBusy);
    s.otherGpuUtilization = prefs.otherGpuBusyPercent - ThrottlePolicy::kGpuBusyHysteresis - 1;
    EXPECT_TRUE(decide(s, d).running());
}

TEST_F(ThrottlePolicyTest, DutyCycleFollowsThePreferenceWithinBounds)
{
    prefs.maxDuty = 0.5;
    EXPECT_EQ(decide(idle()).duty, 0.5);
    prefs.maxDuty = 0.0;
    EXPECT_EQ(decide(idle()).duty, 0.05) << "a duty of zero would be a pause without a reason";
    prefs.maxDuty = 3.0;
    EXPECT_EQ(decide(idle()).duty, 1.0);
}
