#pragma once

#include "WorkStatus.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <filesystem>
#include <memory>

class QThread;

namespace swarmtrain {

class SwarmWorker;
class WorkGate;

struct WorkerOptions {
    QString swarmUrl;        // the coordinator, http(s)://host:port
    QString pinnedPublicKey; // "" or "sha256//BASE64" (an invite's fingerprint)
    std::filesystem::path stateDir; // identity, replica, shards, stats.db
    std::string device = "auto";    // auto | cpu | cuda[:N]
    // The data plane: where other peers reach this one. An empty listen address means
    // outbound only (behind NAT); the coordinator then gives this peer no range to own.
    QString listenAddress = QStringLiteral("0.0.0.0");
    quint16 listenPort = 0;
    QString announcedHost; // the host told to the coordinator; empty: the address it sees
    int threads = 0;       // CPU threads for the engine; 0: every core
    std::int64_t deviceMemoryBudget = 0; // bytes the replica may use on the device; 0: automatic
};

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
    bool isPaused() const;
    bool isRunning() const;

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
