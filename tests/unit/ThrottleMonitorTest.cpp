// ThrottleMonitor: the platform's sources (fakes here) through ThrottlePolicy, on a timer.
#include "FakePc.h"
#include "TestApplication.h"
#include "ThrottleMonitor.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

class ThrottleMonitorTest : public ::testing::Test {
protected:
    void SetUp() override { test::application(); }

    std::unique_ptr<ThrottleMonitor> makeMonitor(ThrottlePrefs prefs = {})
    {
        return std::make_unique<ThrottleMonitor>(test::fakeSources(pc), prefs, ThrottleMonitor::Intervals{20ms, 50ms});
    }

    std::shared_ptr<test::FakePc> pc = std::make_shared<test::FakePc>();
};

TEST_F(ThrottleMonitorTest, RunsOnAnIdlePcAndPausesOnInputWithinAPoll)
{
    auto monitor = makeMonitor();
    monitor->start();
    EXPECT_TRUE(monitor->decision().running());
    QSignalSpy changed(monitor.get(), &ThrottleMonitor::decisionChanged);
    pc->change([](test::FakePc &p) { p.idleSeconds = 0.0; });
    ASSERT_TRUE(changed.wait(2000)); // how fast, under a real X server: bench/desktop-latency.sh
    EXPECT_EQ(monitor->decision().reason, PauseReason::UserActive);
    EXPECT_EQ(ThrottleMonitor::describe(monitor->decision()), QStringLiteral("Paused: you are using the computer"));

    // Untouched for the idle time again: it runs.
    pc->change([](test::FakePc &p) { p.idleSeconds = 3 * 60.0; });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_TRUE(monitor->decision().running());
}

TEST_F(ThrottleMonitorTest, EmitsOnlyWhenTheDecisionChanges)
{
    auto monitor = makeMonitor();
    QSignalSpy changed(monitor.get(), &ThrottleMonitor::decisionChanged);
    monitor->start();
    QTest::qWait(200); // about ten idle polls and four slow ones
    EXPECT_EQ(changed.count(), 0);
}

TEST_F(ThrottleMonitorTest, BatteryGamesHeatAndScheduleComeFromTheSlowPoll)
{
    ThrottlePrefs prefs;
    prefs.exclusiveApps = {"eldenring.exe"};
    auto monitor = makeMonitor(prefs);
    monitor->start();
    QSignalSpy changed(monitor.get(), &ThrottleMonitor::decisionChanged);

    pc->change([](test::FakePc &p) { p.onBattery = true; });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_EQ(monitor->decision().reason, PauseReason::OnBattery);
    EXPECT_EQ(monitor->decision().action, ThrottleAction::Pause);

    pc->change([](test::FakePc &p) {
        p.onBattery = false;
        p.processes = {"systemd", "EldenRing.exe"};
    });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_EQ(monitor->decision().reason, PauseReason::ExclusiveApp);
    EXPECT_EQ(monitor->decision().action, ThrottleAction::Release) << "a game gets the GPU's memory back";

    pc->change([](test::FakePc &p) {
        p.processes.clear();
        p.gpu.temperature = 90.0;
    });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_EQ(monitor->decision().reason, PauseReason::GpuHot);

    pc->change([](test::FakePc &p) { p.gpu.temperature = 60.0; });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_TRUE(monitor->decision().running());

    prefs.scheduleStartMinute = 22 * 60; // 22:00 to 08:00, and the fake clock says 14:00
    prefs.scheduleEndMinute = 8 * 60;
    monitor->setPrefs(prefs);
    EXPECT_EQ(monitor->decision().reason, PauseReason::Schedule) << "new preferences apply at once";
}

TEST_F(ThrottleMonitorTest, ManualPauseForAnHourEndsByItself)
{
    auto monitor = makeMonitor();
    monitor->start();
    monitor->pauseManually(1h);
    EXPECT_EQ(monitor->decision().reason, PauseReason::Manual);
    EXPECT_EQ(monitor->manualPauseUntil(), pc->now.addSecs(3600));

    QSignalSpy changed(monitor.get(), &ThrottleMonitor::decisionChanged);
    pc->change([](test::FakePc &p) { p.now = p.now.addSecs(3599); });
    QTest::qWait(100);
    EXPECT_EQ(changed.count(), 0);
    pc->change([](test::FakePc &p) { p.now = p.now.addSecs(2); });
    ASSERT_TRUE(changed.wait(2000));
    EXPECT_TRUE(monitor->decision().running());
    EXPECT_FALSE(monitor->manuallyPaused());
}

TEST_F(ThrottleMonitorTest, ManualPauseUntilResumedAndDutyCycle)
{
    ThrottlePrefs prefs;
    prefs.maxDuty = 0.5;
    auto monitor = makeMonitor(prefs);
    monitor->start();
    EXPECT_DOUBLE_EQ(monitor->decision().duty, 0.5);
    EXPECT_EQ(ThrottleMonitor::describe(monitor->decision()), QStringLiteral("Contributing at 50% of the GPU's time"));
    monitor->pauseManually();
    EXPECT_FALSE(monitor->manualPauseUntil().isValid());
    pc->change([](test::FakePc &p) { p.now = p.now.addDays(2); });
    QTest::qWait(100);
    EXPECT_EQ(monitor->decision().reason, PauseReason::Manual);
    monitor->resumeManually();
    EXPECT_TRUE(monitor->decision().running());
}

TEST_F(ThrottleMonitorTest, UnknownSourcesNeverPause)
{
    ThrottleMonitor monitor(ThrottleSources{}, ThrottlePrefs{}, ThrottleMonitor::Intervals{20ms, 50ms});
    monitor.start();
    EXPECT_TRUE(monitor.decision().running());
    ThrottlePrefs strict;
    strict.runWhenIdleUnknown = false;
    monitor.setPrefs(strict);
    EXPECT_EQ(monitor.decision().reason, PauseReason::UserActive) << "the person chose not to run when idle is unknown";
}

} // namespace
