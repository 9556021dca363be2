#include "WaylandIdleSource.h"

#include "ext-idle-notify-v1-client-protocol.h"

#include <wayland-client.h>

#include <poll.h>

#include <cstring>
#include <optional>

namespace swarmtrain {

namespace {

using Clock = std::chrono::steady_clock;

} // namespace

struct WaylandIdleSource::Impl {
    wl_display *display = nullptr;
    wl_registry *registry = nullptr;
    wl_seat *seat = nullptr;
    ext_idle_notifier_v1 *notifier = nullptr;
    ext_idle_notification_v1 *notification = nullptr;
    std::optional<Clock::time_point> idledAt;
    bool broken = false;

    ~Impl()
    {
        if (notification)
            ext_idle_notification_v1_destroy(notification);
        if (notifier)
            ext_idle_notifier_v1_destroy(notifier);
        if (seat)
            wl_seat_destroy(seat);
        if (registry)
            wl_registry_destroy(registry);
        if (display)
            wl_display_disconnect(display);
    }

    static void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t)
    {
        auto &d = *static_cast<Impl *>(data);
        if (!d.seat && std::strcmp(interface, wl_seat_interface.name) == 0)
            d.seat = static_cast<wl_seat *>(wl_registry_bind(registry, name, &wl_seat_interface, 1));
        else if (!d.notifier && std::strcmp(interface, ext_idle_notifier_v1_interface.name) == 0)
            d.notifier = static_cast<ext_idle_notifier_v1 *>(
                wl_registry_bind(registry, name, &ext_idle_notifier_v1_interface, 1));
    }
    static void globalRemove(void *, wl_registry *, uint32_t) {}
    static void idled(void *data, ext_idle_notification_v1 *) { static_cast<Impl *>(data)->idledAt = Clock::now(); }
    static void resumed(void *data, ext_idle_notification_v1 *) { static_cast<Impl *>(data)->idledAt.reset(); }

    static constexpr wl_registry_listener registryListener{&global, &globalRemove};
    static constexpr ext_idle_notification_v1_listener notificationListener{&idled, &resumed};

    // Reads what the compositor sent since the last call, without waiting for more.
    void readEvents()
    {
        if (broken)
            return;
        while (wl_display_prepare_read(display) != 0) {
            if (wl_display_dispatch_pending(display) < 0) {
                broken = true;
                return;
            }
        }
        wl_display_flush(display);
        pollfd fd{wl_display_get_fd(display), POLLIN, 0};
        if (poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN) != 0) {
            if (wl_display_read_events(display) < 0)
                broken = true;
        } else {
            wl_display_cancel_read(display);
            broken = (fd.revents & (POLLERR | POLLHUP)) != 0;
        }
        if (!broken && wl_display_dispatch_pending(display) < 0)
            broken = true;
    }
};

WaylandIdleSource::WaylandIdleSource(const std::string &display) : m_impl(std::make_unique<Impl>())
{
    Impl &d = *m_impl;
    d.display = wl_display_connect(display.empty() ? nullptr : display.c_str());
    if (!d.display) {
        d.broken = true;
        return;
    }
    d.registry = wl_display_get_registry(d.display);
    wl_registry_add_listener(d.registry, &Impl::registryListener, &d);
    if (wl_display_roundtrip(d.display) < 0 || !d.seat || !d.notifier) {
        d.broken = true;
        return;
    }
    d.notification = ext_idle_notifier_v1_get_idle_notification(d.notifier, uint32_t(kNotifyAfter.count()), d.seat);
    ext_idle_notification_v1_add_listener(d.notification, &Impl::notificationListener, &d);
    // Surfaces a compositor's refusal now rather than at the first poll.
    d.broken = wl_display_roundtrip(d.display) < 0;
}

WaylandIdleSource::~WaylandIdleSource() = default;

bool WaylandIdleSource::available() const
{
    m_impl->readEvents();
    return !m_impl->broken;
}

std::optional<double> WaylandIdleSource::idleSeconds() const
{
    Impl &d = *m_impl;
    d.readEvents();
    if (d.broken)
        return std::nullopt;
    if (!d.idledAt)
        return 0.0;
    const std::chrono::duration<double> since = Clock::now() - *d.idledAt;
    return std::chrono::duration<double>(kNotifyAfter).count() + since.count();
}

} // namespace swarmtrain
