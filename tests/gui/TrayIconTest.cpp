// The tray's menu against a real swarm: Pause, Pause for 1 hour and Resume change what the
// worker does, and the icon's tooltip says so.
#include "GuiTest.h"
#include "Icons.h"
#include "Translations.h"
#include "TrayIcon.h"

#include <QAction>
#include <QLocale>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

using namespace swarmtrain;
using namespace std::chrono_literals;

namespace {

QImage image(const QIcon &icon) { return icon.pixmap(16, 16).toImage(); }

bool working(WorkState state)
{
    return state == WorkState::Training || state == WorkState::Waiting || state == WorkState::Averaging;
}

std::string describe(const SessionState &state)
{
    return "state " + std::to_string(int(state.work.state)) + ", headline \"" + state.headline.toStdString() +
           "\", detail \"" + state.detail.toStdString() + "\"";
}

class TrayIconTest : public test::GuiTest {};

} // namespace

TEST_F(TrayIconTest, MenuHasEveryActionAndFollowsTheState)
{
    TrayIcon tray(session());
    ASSERT_NE(tray.menu(), nullptr);
    for (const char *name : {"pauseAction", "pauseHourAction", "resumeAction", "openAction", "quitAction"})
        EXPECT_NE(tray.menu()->findChild<QAction *>(QString::fromLatin1(name)), nullptr) << name;
    EXPECT_EQ(tray.toolTip(), QStringLiteral("SwarmTrain — ") + session().state().headline);
    EXPECT_FALSE(tray.icon().isNull());
    EXPECT_TRUE(tray.pauseAction()->isEnabled());
    EXPECT_FALSE(tray.resumeAction()->isEnabled()) << "nothing to resume";

    QSignalSpy open(&tray, &TrayIcon::openDashboardRequested);
    QSignalSpy quit(&tray, &TrayIcon::quitRequested);
    tray.openAction()->trigger();
    tray.quitAction()->trigger();
    EXPECT_EQ(open.count(), 1);
    EXPECT_EQ(quit.count(), 1);
}

TEST_F(TrayIconTest, PauseResumeAndPauseForAnHourChangeTheWorkersState)
{
    test::TestSwarm swarm(dir().path());
    ASSERT_TRUE(swarm.start()) << swarm.errors();
    ClientSession &s = session();
    TrayIcon tray(s);
    ASSERT_TRUE(s.join(swarm.url()).ok());
    ASSERT_TRUE(QTest::qWaitFor([&] { return working(s.state().work.state); }, 45'000)) << describe(s.state());
    EXPECT_EQ(image(tray.icon()), image(stateIcon(SessionIcon::Active))) << describe(s.state());

    // Pause: the worker stops within a step, for the reason the person gave.
    tray.pauseAction()->trigger();
    ASSERT_TRUE(QTest::qWaitFor([&] { return s.state().work.state == WorkState::Paused; }, 15'000))
        << describe(s.state());
    EXPECT_EQ(s.state().decision.reason, PauseReason::Manual);
    EXPECT_EQ(s.state().headline, ThrottleMonitor::describe(s.state().decision)) << describe(s.state());
    EXPECT_EQ(tray.toolTip(), QStringLiteral("SwarmTrain — ") + s.state().headline);
    EXPECT_FALSE(tray.pauseAction()->isEnabled());
    EXPECT_FALSE(tray.pauseHourAction()->isEnabled());
    EXPECT_TRUE(tray.resumeAction()->isEnabled());
    EXPECT_EQ(image(tray.icon()), image(stateIcon(SessionIcon::Paused)));

    // Resume: it works again.
    tray.resumeAction()->trigger();
    ASSERT_TRUE(QTest::qWaitFor([&] { return working(s.state().work.state); }, 15'000)) << describe(s.state());
    EXPECT_TRUE(s.state().decision.running());
    EXPECT_FALSE(tray.toolTip().contains(ThrottleMonitor::describe(ThrottleDecision{ThrottleAction::Pause,
                                                                                   PauseReason::Manual, 1.0})))
        << tray.toolTip().toStdString();
    EXPECT_TRUE(tray.pauseAction()->isEnabled());
    EXPECT_FALSE(tray.resumeAction()->isEnabled());

    // Pause for 1 hour: paused, and the headline says until when (the fake PC's clock + 1 h).
    tray.pauseHourAction()->trigger();
    ASSERT_TRUE(QTest::qWaitFor([&] { return s.state().work.state == WorkState::Paused; }, 15'000))
        << describe(s.state());
    const QString until = QLocale().toString(pc().now.addSecs(3600).time(), QLocale::ShortFormat);
    EXPECT_TRUE(s.state().headline.contains(QStringLiteral("until ") + until)) << describe(s.state());
    EXPECT_EQ(tray.toolTip(), QStringLiteral("SwarmTrain — ") + s.state().headline);
    EXPECT_TRUE(tray.resumeAction()->isEnabled());
}

TEST_F(TrayIconTest, ItsMenuFollowsALanguageSwitch)
{
    TrayIcon tray(session());
    const QString english = tray.pauseAction()->text();
    ASSERT_TRUE(applyLanguage(QStringLiteral("de"))) << "no German translation compiled in";
    QCoreApplication::processEvents(); // LanguageChange is posted to the menu
    const QString german = tray.pauseAction()->text();
    EXPECT_TRUE(applyLanguage(QStringLiteral("en")));
    QCoreApplication::processEvents();
    EXPECT_NE(german, english);
    EXPECT_EQ(tray.pauseAction()->text(), english);
}
