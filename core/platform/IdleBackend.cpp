#include "IdleBackend.h"

#include <cstdlib>

namespace swarmtrain {

namespace {

std::string environment(const char *name)
{
    const char *value = std::getenv(name);
    return value ? value : "";
}

} // namespace

const char *idleBackendName(IdleBackend backend)
{
    switch (backend) {
    case IdleBackend::WaylandIdleNotify:
        return "ext-idle-notify-v1";
    case IdleBackend::GnomeMutter:
        return "org.gnome.Mutter.IdleMonitor";
    case IdleBackend::FreedesktopScreenSaver:
        return "org.freedesktop.ScreenSaver";
    case IdleBackend::X11ScreenSaver:
        return "XScreenSaver";
    }
    return "";
}

DesktopSession DesktopSession::fromEnvironment()
{
    return {environment("XDG_SESSION_TYPE"), environment("WAYLAND_DISPLAY"), environment("DISPLAY")};
}

bool DesktopSession::isWayland() const
{
    // Either sign is enough: taking a Wayland session for X11 would read XWayland, the one wrong
    // answer; taking an X11 session for Wayland at worst leaves the idle time unknown.
    return sessionType == "wayland" || !waylandDisplay.empty();
}

std::vector<IdleBackend> idleBackendsFor(const DesktopSession &session)
{
    if (session.isWayland())
        return {IdleBackend::WaylandIdleNotify, IdleBackend::GnomeMutter, IdleBackend::FreedesktopScreenSaver};
    if (!session.x11Display.empty())
        return {IdleBackend::X11ScreenSaver};
    return {};
}

} // namespace swarmtrain
