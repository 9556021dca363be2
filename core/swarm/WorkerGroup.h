#pragma once

#include "WorkController.h"

#include <QObject>
#include <QString>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace swarmtrain {

// The swarm workers of one client, one per device it trains on (Settings: several GPUs, or
// --device cuda:0,cuda:1), controlled as one. Each device trains a model copy of its own, as
// F@H runs a slot and BOINC a task per GPU: the first worker keeps the state folder, worker i
// (from 1) is a peer of its own in STATE/gpu-<i+1> (identity, replica, shards, stats.db) and
// listens on the next port. pause(), setDuty(), resume(), stop() and abandon() reach every
// worker; finished() comes once all have finished.
class WorkerGroup : public QObject {
    Q_OBJECT

public:
    // `devices`: one entry per worker (WorkerOptions::device), at least one.
    WorkerGroup(WorkerOptions options, const std::vector<std::string> &devices, QObject *parent = nullptr);
    ~WorkerGroup() override; // stops the workers and waits for them

    void start();
    void pause(const QString &reason, bool release = false);
    void setDuty(double duty);
    void resume();
    void stop();
    void abandon();
    int size() const { return int(m_workers.size()); }

    // Worker `index`'s options: its device, state folder and ports.
    static WorkerOptions workerOptions(const WorkerOptions &base, const std::string &device, int index);
    // The state folders whose stats.db hold this client's contributions: STATE and each
    // STATE/gpu-N a worker has used, now or before.
    static std::vector<std::filesystem::path> statsFolders(const std::filesystem::path &stateDir);

Q_SIGNALS:
    // The first running worker's status, with the tokens/s of every worker and the count of those
    // running (WorkStatus::workers).
    void statusChanged(const swarmtrain::WorkStatus &status);
    void roundFinished(const swarmtrain::RoundReport &report);
    // Every worker has finished: ok if all stopped cleanly, else the first failure's message.
    void finished(bool ok, const QString &message);

private:
    struct Member {
        std::unique_ptr<WorkController> worker;
        WorkStatus status;
        bool running = false;
    };
    void memberStatus(std::size_t index, const WorkStatus &status);
    void memberFinished(std::size_t index, bool ok, const QString &message);
    void emitStatus();

    std::vector<Member> m_workers;
    bool m_failed = false;
    QString m_failure;
};

} // namespace swarmtrain
