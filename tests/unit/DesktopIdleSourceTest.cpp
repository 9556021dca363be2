// DesktopIdleSource: a Linux desktop's backends asked in order, and the factory that makes them
// for a session. The D-Bus services themselves are tested in DbusIdleSourceTest.cpp.
#include "DesktopIdleSource.h"

#include "TestApplication.h"

#include <QDBusConnection>

#include <gtest/gtest.h>

#include <algorithm>

using namespace swarmtrain;

namespace {

// A backend whose answer the test sets, counting how often it is asked.
class ScriptedIdleSource : public IdleSource {
public:
    explicit ScriptedIdleSource(std::optional<double> answer, int *asked) : m_answer(answer), m_asked(asked) {}
    std::optional<double> idleSeconds() const override
    {
        ++*m_asked;
        return m_answer;
    }

private:
    std::optional<double> m_answer;
    int *m_asked;
};

class DesktopIdleSourceTest : public ::testing::Test {
protected:
    void SetUp() override { test::application(); }

    DesktopIdleSource::Backend backend(IdleBackend name, std::optional<double> answer, int *asked)
    {
        return {name, std::make_unique<ScriptedIdleSource>(answer, asked)};
    }

    // A connection never opened, so the factory's D-Bus sources say unknown and the test uses
    // neither the machine's bus nor a private one.
    static QDBusConnection noBus() { return QDBusConnection(QStringLiteral("swarmtrain-no-bus")); }

    int mutterAsked = 0;
    int screenSaverAsked = 0;
};

} // namespace

TEST_F(DesktopIdleSourceTest, TakesTheFirstBackendThatKnows)
{
    std::vector<DesktopIdleSource::Backend> backends;
    backends.push_back(backend(IdleBackend::GnomeMutter, 42.0, &mutterAsked));
    backends.push_back(backend(IdleBackend::FreedesktopScreenSaver, 7.0, &screenSaverAsked));
    const DesktopIdleSource source(std::move(backends));
    EXPECT_EQ(source.idleSeconds(), 42.0);
    EXPECT_EQ(source.lastAnswered(), IdleBackend::GnomeMutter);
    EXPECT_EQ(screenSaverAsked, 0) << "a later backend is not asked while an earlier one knows";
}

TEST_F(DesktopIdleSourceTest, FallsThroughToTheNextBackendThatKnows)
{
    std::vector<DesktopIdleSource::Backend> backends;
    backends.push_back(backend(IdleBackend::GnomeMutter, std::nullopt, &mutterAsked));
    backends.push_back(backend(IdleBackend::FreedesktopScreenSaver, 7.0, &screenSaverAsked));
    const DesktopIdleSource source(std::move(backends));
    EXPECT_EQ(source.idleSeconds(), 7.0);
    EXPECT_EQ(source.lastAnswered(), IdleBackend::FreedesktopScreenSaver);
    EXPECT_EQ(mutterAsked, 1);
}

TEST_F(DesktopIdleSourceTest, UnknownWhenNoBackendKnows)
{
    std::vector<DesktopIdleSource::Backend> backends;
    backends.push_back(backend(IdleBackend::GnomeMutter, std::nullopt, &mutterAsked));
    backends.push_back(backend(IdleBackend::FreedesktopScreenSaver, std::nullopt, &screenSaverAsked));
    const DesktopIdleSource source(std::move(backends));
    EXPECT_EQ(source.idleSeconds(), std::nullopt);
    EXPECT_EQ(source.lastAnswered(), std::nullopt);
    EXPECT_EQ(DesktopIdleSource({}).idleSeconds(), std::nullopt);
}

TEST_F(DesktopIdleSourceTest, WaylandSessionWithXWaylandGetsNoX11Source)
{
    // XWayland's DISPLAY is there, and no compositor answers on this Wayland socket.
    const DesktopSession session{"wayland", "swarmtrain-test-no-such-compositor", ":0"};
    const auto source = makeDesktopIdleSource(session, noBus());
    const std::vector<IdleBackend> backends = source->backends();
    EXPECT_EQ(std::count(backends.begin(), backends.end(), IdleBackend::X11ScreenSaver), 0);
    const std::vector<IdleBackend> expected{IdleBackend::GnomeMutter, IdleBackend::FreedesktopScreenSaver};
    EXPECT_EQ(backends, expected) << "no Wayland source without a compositor that offers the protocol";
    EXPECT_EQ(source->idleSeconds(), std::nullopt) << "unknown, never XWayland's idle time";
}

TEST_F(DesktopIdleSourceTest, X11SessionGetsTheX11Source)
{
    const DesktopSession session{"x11", "", ":0"};
    const auto source = makeDesktopIdleSource(session, noBus());
    EXPECT_EQ(source->backends(), std::vector<IdleBackend>{IdleBackend::X11ScreenSaver});
}

TEST_F(DesktopIdleSourceTest, TextConsoleIsUnknown)
{
    const auto source = makeDesktopIdleSource(DesktopSession{"tty", "", ""}, noBus());
    EXPECT_TRUE(source->backends().empty());
    EXPECT_EQ(source->idleSeconds(), std::nullopt);
}
