#include "WorkGate.h"

#include <algorithm>
#include <chrono>

namespace swarmtrain {

void WorkGate::pause(const QString &reason, bool release)
{
    {
        std::lock_guard lock(m_mutex);
        m_reason = reason;
    }
    m_release = release;
    m_paused = true;
    changed();
}

void WorkGate::resume()
{
    m_paused = false;
    changed();
}

void WorkGate::setDuty(double duty)
{
    m_duty = std::clamp(duty, 0.05, 1.0);
    changed();
}

void WorkGate::stop()
{
    m_stop = true;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopHook)
            m_stopHook();
    }
    changed();
}

void WorkGate::setStopHook(std::function<void()> hook)
{
    std::lock_guard lock(m_mutex);
    m_stopHook = std::move(hook);
}

void WorkGate::abandon()
{
    stop();
    m_abandon = true;
    std::lock_guard lock(m_mutex);
    if (m_abandonHook)
        m_abandonHook();
}

void WorkGate::setAbandonHook(std::function<void()> hook)
{
    std::lock_guard lock(m_mutex);
    m_abandonHook = std::move(hook);
}

QString WorkGate::pauseReason() const
{
    std::lock_guard lock(m_mutex);
    return m_reason;
}

void WorkGate::changed()
{
    std::lock_guard lock(m_mutex);
    ++m_changes;
    m_wake.notify_all();
}

void WorkGate::sleepFor(int ms)
{
    std::unique_lock lock(m_mutex);
    const quint64 seen = m_changes;
    m_wake.wait_for(lock, std::chrono::milliseconds(ms), [&] { return m_changes != seen; });
}

} // namespace swarmtrain
