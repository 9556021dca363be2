#include "DesktopIdleSource.h"

namespace swarmtrain {

DesktopIdleSource::DesktopIdleSource(std::vector<Backend> backends) : m_backends(std::move(backends)) {}

std::optional<double> DesktopIdleSource::idleSeconds() const
{
    for (const auto &[backend, source] : m_backends) {
        if (const std::optional<double> seconds = source->idleSeconds()) {
            m_lastAnswered = backend;
            return seconds;
        }
    }
    m_lastAnswered.reset();
    return std::nullopt;
}

std::vector<IdleBackend> DesktopIdleSource::backends() const
{
    std::vector<IdleBackend> names;
    for (const auto &backend : m_backends)
        names.push_back(backend.first);
    return names;
}

} // namespace swarmtrain
