// The one place that picks a Linux desktop's idle backends; SWARMTRAIN_HAVE_WAYLAND is set by
// CMake where wayland-client and the protocol's XML were found.
#include "DesktopIdleSourceFactory.h"

#include "DbusIdleSource.h"
#include "DesktopIdleSource.h"
#include "X11IdleSource.h"

#if defined(SWARMTRAIN_HAVE_WAYLAND)
#include "WaylandIdleSource.h"
#endif

#include <QDBusConnection>

namespace swarmtrain {

namespace {

std::unique_ptr<IdleSource> makeBackend(IdleBackend backend, const DesktopSession &session, const QDBusConnection &bus)
{
    switch (backend) {
    case IdleBackend::WaylandIdleNotify: {
#if defined(SWARMTRAIN_HAVE_WAYLAND)
        auto wayland = std::make_unique<WaylandIdleSource>(session.waylandDisplay);
        if (wayland->available())
            return wayland;
#endif
        return nullptr;
    }
    case IdleBackend::GnomeMutter:
        return std::make_unique<DbusIdleSource>(bus, DbusIdleMethod::gnomeMutter());
    case IdleBackend::FreedesktopScreenSaver:
        return std::make_unique<DbusIdleSource>(bus, DbusIdleMethod::freedesktopScreenSaver());
    case IdleBackend::X11ScreenSaver:
        return std::make_unique<X11IdleSource>(session.x11Display.c_str());
    }
    return nullptr;
}

} // namespace

std::unique_ptr<DesktopIdleSource> makeDesktopIdleSource(const DesktopSession &session, const QDBusConnection &bus)
{
    std::vector<DesktopIdleSource::Backend> backends;
    for (const IdleBackend backend : idleBackendsFor(session)) {
        if (auto source = makeBackend(backend, session, bus))
            backends.emplace_back(backend, std::move(source));
    }
    return std::make_unique<DesktopIdleSource>(std::move(backends));
}

std::unique_ptr<IdleSource> makeDesktopIdleSource()
{
    const DesktopSession session = DesktopSession::fromEnvironment();
    // Only Wayland sessions ask the bus: elsewhere, connecting could autolaunch a bus for nothing.
    const QDBusConnection bus = session.isWayland() ? QDBusConnection::sessionBus() : QDBusConnection(QString());
    return makeDesktopIdleSource(session, bus);
}

} // namespace swarmtrain
