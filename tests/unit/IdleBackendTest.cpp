// idleBackendsFor(): which idle sources a login session may use, from its environment.
#include "IdleBackend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

using namespace swarmtrain;

namespace {

// Sets a variable for one test and puts the old value back.
class ScopedEnvironment {
public:
    ScopedEnvironment(const char *name, const char *value) : m_name(name)
    {
        if (const char *old = std::getenv(name))
            m_old = old;
        setenv(name, value, 1);
    }
    ~ScopedEnvironment()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnvironment(const ScopedEnvironment &) = delete;
    ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
    const char *m_name;
    std::optional<std::string> m_old;
};

bool uses(const std::vector<IdleBackend> &backends, IdleBackend backend)
{
    return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

} // namespace

TEST(IdleBackendTest, WaylandSessionWithXWaylandNeverUsesXScreenSaver)
{
    const DesktopSession session{"wayland", "wayland-0", ":0"};
    const std::vector<IdleBackend> expected{IdleBackend::WaylandIdleNotify, IdleBackend::GnomeMutter,
                                            IdleBackend::FreedesktopScreenSaver};
    EXPECT_EQ(idleBackendsFor(session), expected) << "the Wayland protocol first, then GNOME, then freedesktop";
}

TEST(IdleBackendTest, EitherSignOfWaylandIsEnough)
{
    // XDG_SESSION_TYPE lost (a terminal started through sudo -E, an old display manager).
    EXPECT_FALSE(uses(idleBackendsFor({"", "wayland-1", ":1"}), IdleBackend::X11ScreenSaver));
    // WAYLAND_DISPLAY not exported to a service, but the session says what it is.
    EXPECT_FALSE(uses(idleBackendsFor({"wayland", "", ":0"}), IdleBackend::X11ScreenSaver));
    EXPECT_TRUE(DesktopSession({"wayland", "", ""}).isWayland());
}

TEST(IdleBackendTest, X11SessionUsesXScreenSaverOnly)
{
    EXPECT_EQ(idleBackendsFor({"x11", "", ":0"}), std::vector<IdleBackend>{IdleBackend::X11ScreenSaver});
    EXPECT_EQ(idleBackendsFor({"", "", ":0"}), std::vector<IdleBackend>{IdleBackend::X11ScreenSaver});
}

TEST(IdleBackendTest, NoDisplayAtAllIsUnknown)
{
    EXPECT_TRUE(idleBackendsFor({"tty", "", ""}).empty());
    EXPECT_TRUE(idleBackendsFor({}).empty());
}

TEST(IdleBackendTest, ReadsTheSessionFromTheEnvironment)
{
    const ScopedEnvironment type("XDG_SESSION_TYPE", "wayland");
    const ScopedEnvironment wayland("WAYLAND_DISPLAY", "wayland-7");
    const ScopedEnvironment x11("DISPLAY", ":7");
    const DesktopSession session = DesktopSession::fromEnvironment();
    EXPECT_EQ(session.sessionType, "wayland");
    EXPECT_EQ(session.waylandDisplay, "wayland-7");
    EXPECT_EQ(session.x11Display, ":7");
}
