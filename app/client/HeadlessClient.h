#pragma once

#include "Invite.h"
#include "LocalControlServer.h"
#include "WorkerGroup.h"
#include "WorkerOptions.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QObject>
#include <QSettings>
#include <QTimer>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace swarmtrain {

// The headless client's worker in a swarm, and what swarmtrain-cli asks of it: pause, resume,
// release, join and leave. It remembers the swarm joined last (headless.ini in the state
// folder), so a service that restarts goes back to it. Prints a line per status and per round.
class HeadlessClient : public QObject, public ControlHandler {
    Q_DECLARE_TR_FUNCTIONS(swarmtrain::HeadlessClient)

public:
    // `devices`: a worker each (WorkerGroup); `base.device` is ignored.
    HeadlessClient(WorkerOptions base, std::vector<std::string> devices, double duty);
    ~HeadlessClient() override;

    // The swarm from the command line, else the one joined last; none: wait for `swarm join`.
    Result<void> start(const QString &swarm);
    // Ctrl-C: leave, then end the program with `code`.
    void quit(int code);

    ControlStatus status() const override;
    Result<void> pause(std::optional<std::chrono::seconds> duration) override;
    Result<void> release() override;
    Result<void> resume() override;
    Result<void> join(const QString &urlOrInvite) override;
    Result<void> leave() override;

private:
    Result<void> pauseWorker(std::optional<std::chrono::seconds> duration, bool release);
    // A pause for a while ends by itself; the timer wakes at most hourly (QTimer counts in int ms).
    void resumeWhenDue();
    void startWorker();
    void workerFinished(bool ok, const QString &message);

    WorkerOptions m_base;
    std::vector<std::string> m_devices;
    double m_duty = 1.0;
    QSettings m_settings;
    std::unique_ptr<WorkerGroup> m_worker;
    std::optional<Invite> m_nextSwarm; // to join once the worker in hand has left
    QString m_swarm;
    WorkStatus m_status;
    bool m_paused = false;
    bool m_released = false;
    QDateTime m_pausedUntil;
    QTimer m_resumeTimer;
    bool m_quitting = false;
    int m_exitCode = 0;
};

} // namespace swarmtrain
