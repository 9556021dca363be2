#pragma once

#include <string>
#include <vector>

namespace swarmtrain {

// Where a Linux desktop's idle time can come from.
enum class IdleBackend {
    WaylandIdleNotify,      // the ext-idle-notify-v1 Wayland protocol
    GnomeMutter,            // org.gnome.Mutter.IdleMonitor on the session bus
    FreedesktopScreenSaver, // org.freedesktop.ScreenSaver.GetSessionIdleTime (KDE and others)
    X11ScreenSaver,         // the X server's XScreenSaver extension
};

const char *idleBackendName(IdleBackend backend);

// What the login session says about itself, from its environment.
struct DesktopSession {
    std::string sessionType;    // XDG_SESSION_TYPE: "wayland", "x11", "tty", ...
    std::string waylandDisplay; // WAYLAND_DISPLAY
    std::string x11Display;     // DISPLAY (in a Wayland session: XWayland)

    static DesktopSession fromEnvironment();
    bool isWayland() const;
};

// The backends worth asking in this session, best first; empty when none is (a text console).
// A Wayland session never gets X11ScreenSaver: XWayland sees only input to X11 windows, so it
// would call the PC idle while the person types in native Wayland apps.
std::vector<IdleBackend> idleBackendsFor(const DesktopSession &session);

} // namespace swarmtrain
