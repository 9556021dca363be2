#pragma once

#include "WorkStatus.h"
#include "WorkerOptions.h"

#include <QObject>
#include <QString>

#include <memory>
#include <string>

class QThread;

namespace swarmtrain {

class SwarmWorker;
class WorkGate;

// The swarm client's background worker (DESIGN.md): joins the swarm, downloads the global
// state and its data shards, trains H inner steps, takes part in the round's all-reduce,
// applies the outer step, reports the contribution, and repeats, on a QThread of its own
// (the engine) plus a network thread (the data plane). Lives on the thread that made it (the
// GUI's, or --headless's main thread); every signal arrives queued.
//
// pause() and resume() take effect within one stage's compute: a step in flight is abandoned.
// stop() leaves the swarm, saves the replica, and ends with finished().
class WorkController : public QObject {
    Q_OBJECT

public:
    explicit WorkController(WorkerOptions options, QObject *parent = nullptr);
    ~WorkController() override; // stops the worker and waits for it

    void start();
    // `release`: also free the device's memory (ThrottleAction::Release).
    void pause(const QString &reason, bool release = false);
    // ThrottleDecision::duty: the share of time the device may compute.
    void setDuty(double duty);
    void resume();
    void stop();
    // stop(), without waiting for the coordinator to hear that this peer leaves (WorkGate::abandon).
    void abandon();
    bool isPaused() const;
    bool isRunning() const;
    const std::string &device() const { return m_options.device; }

Q_SIGNALS:
    void statusChanged(const swarmtrain::WorkStatus &status);
    void roundFinished(const swarmtrain::RoundReport &report);
    // The worker has left the swarm: stopped (ok) or failed with `message`.
    void finished(bool ok, const QString &message);

private:
    WorkerOptions m_options;
    std::shared_ptr<WorkGate> m_gate;
    std::unique_ptr<QThread> m_thread;
    SwarmWorker *m_worker = nullptr; // lives on m_thread
};

} // namespace swarmtrain
