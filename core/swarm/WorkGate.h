#pragma once

#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace swarmtrain {

// Pause and stop requests from any thread (the GUI's, a signal handler's) to the swarm worker.
// interrupted() is cheap enough to ask between two stages of a training step.
class WorkGate {
public:
    void pause(const QString &reason);
    void resume();
    void stop();
    // Runs on stop() (from the stopping thread), e.g. to cancel a transfer in flight.
    void setStopHook(std::function<void()> hook);

    bool interrupted() const { return m_paused.load() || m_stop.load(); }
    bool paused() const { return m_paused.load(); }
    bool stopRequested() const { return m_stop.load(); }
    QString pauseReason() const;

    // Sleeps up to `ms`; returns early when a pause, resume or stop arrives.
    void sleepFor(int ms);

private:
    void changed();

    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    QString m_reason;      // guarded by m_mutex
    std::function<void()> m_stopHook; // guarded by m_mutex
    quint64 m_changes = 0; // guarded by m_mutex
};

} // namespace swarmtrain
