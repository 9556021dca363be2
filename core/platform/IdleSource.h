#pragma once

#include <memory>
#include <optional>

namespace swarmtrain {

// How long the person has not touched the keyboard or mouse. One implementation per OS (X11's
// XScreenSaver extension on Linux, GetLastInputInfo on Windows, the HID system's idle time on
// macOS), each in a header of its own; makeIdleSource() picks it. On a Linux desktop the client
// uses makeDesktopIdleSource() (DesktopIdleSourceFactory.h) instead, which tells Wayland sessions
// (ext-idle-notify-v1, GNOME's and freedesktop's D-Bus services) from X11 ones.
class IdleSource {
public:
    virtual ~IdleSource() = default;
    // nullopt: unknown (no X server, a Wayland session without an idle protocol). Cheap enough
    // to ask several times a second.
    virtual std::optional<double> idleSeconds() const = 0;
};

std::unique_ptr<IdleSource> makeIdleSource();

} // namespace swarmtrain
