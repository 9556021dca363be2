#pragma once

#include "IdleBackend.h"
#include "IdleSource.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QDBusConnection;

namespace swarmtrain {

// A Linux desktop's idle time: asks its backends in order and takes the first known answer, so
// a service that goes away (GNOME Shell restarting) hands over to the next until it is back.
class DesktopIdleSource : public IdleSource {
public:
    using Backend = std::pair<IdleBackend, std::unique_ptr<IdleSource>>;

    explicit DesktopIdleSource(std::vector<Backend> backends);
    std::optional<double> idleSeconds() const override;

    std::vector<IdleBackend> backends() const;
    std::optional<IdleBackend> lastAnswered() const { return m_lastAnswered; } // nullopt: unknown

private:
    std::vector<Backend> m_backends;
    mutable std::optional<IdleBackend> m_lastAnswered;
};

// The backends idleBackendsFor(session) names, each made for `bus`; a Wayland one only where the
// compositor offers the protocol (and where the build has wayland-client).
std::unique_ptr<DesktopIdleSource> makeDesktopIdleSource(const DesktopSession &session, const QDBusConnection &bus);

} // namespace swarmtrain
