#pragma once

#include "IdleSource.h"

#include <memory>

namespace swarmtrain {

// The client's idle source. On Linux it reads the session (Wayland protocol, GNOME or
// freedesktop D-Bus services, X11) instead of makeIdleSource()'s XScreenSaver, which in a Wayland
// session would read XWayland; elsewhere it is makeIdleSource(). Needs a QCoreApplication.
std::unique_ptr<IdleSource> makeDesktopIdleSource();

} // namespace swarmtrain
