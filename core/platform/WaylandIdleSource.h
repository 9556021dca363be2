#pragma once

#include "IdleSource.h"

#include <chrono>
#include <memory>
#include <string>

namespace swarmtrain {

// A Wayland compositor's ext-idle-notify-v1 protocol (wlroots 0.16 and later, KWin, Mutter 45 and
// later). The protocol only tells "idle for at least T" (idled) and "input again" (resumed), so
// this source asks for one notification with a short T and counts on a monotonic clock from the
// idled event: idle time is T plus the time since idled, and 0 until idled comes. It errs
// towards "in use": by up to T when the person stops, by up to one poll when the event waits in
// the socket, and from its own creation (the protocol starts T there, not at the last input).
// Events are read without blocking whenever the idle time is asked, so it needs no thread.
class WaylandIdleSource : public IdleSource {
public:
    static constexpr std::chrono::milliseconds kNotifyAfter{1000};

    // `display`: a Wayland socket name ("" for $WAYLAND_DISPLAY).
    explicit WaylandIdleSource(const std::string &display = {});
    ~WaylandIdleSource() override;

    // The compositor offers ext_idle_notifier_v1 and a seat, and the connection still works.
    bool available() const;
    std::optional<double> idleSeconds() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace swarmtrain
