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
    // `release`: also give the device's memory back (a game wants all of it); the replica is
    // saved and loaded again on resume, and the round's unfinished inner steps are lost.
    void pause(const QString &reason, bool release = false);
    void resume();
    void stop();
    // Runs on stop() (from the stopping thread), e.g. to cancel a transfer in flight.
    void setStopHook(std::function<void()> hook);
    // Stops, and gives up what stopping still waits for on the network (telling the coordinator
    // that this peer leaves), so a program that quits ends at once. The replica is still saved.
    void abandon();
    void setAbandonHook(std::function<void()> hook);
    bool abandoned() const { return m_abandon.load(); }

    bool interrupted() const { return m_paused.load() || m_stop.load(); }
    bool paused() const { return m_paused.load(); }
    bool releaseRequested() const { return m_paused.load() && m_release.load(); }
    // Share of the time the device may compute (0.05..1): the worker rests between steps.
    void setDuty(double duty);
    double duty() const { return m_duty.load(); }
    bool stopRequested() const { return m_stop.load(); }
    QString pauseReason() const;

    // Sleeps up to `ms`; returns early when a pause, resume or stop arrives.
    void sleepFor(int ms);

private:
    void changed();

    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_abandon{false};
    std::atomic<bool> m_release{false};
    std::atomic<double> m_duty{1.0};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    QString m_reason;      // guarded by m_mutex
    std::function<void()> m_stopHook; // guarded by m_mutex
    std::function<void()> m_abandonHook; // guarded by m_mutex
    quint64 m_changes = 0; // guarded by m_mutex
};

} // namespace swarmtrain
