#pragma once

#include "ControlMessages.h"
#include "CoordinatorRecords.h"
#include "ModelConfig.h"
#include "LinkMatrix.h"
#include "TrainingSettings.h"

#include <QObject>
#include <QThreadPool>

#include "Rescheduler.h"

#include <functional>
#include <mutex>
#include <optional>

namespace swarmtrain {

struct ScheduleOptions {
    int stages = 0;         // pipeline stages; 0: the scheduler chooses
    double seconds = 2.0;   // the search's budget
    qint64 everyMs = 30'000; // scheduled again this often while the peers stay the same
    int maxPeers = 256;      // the first this many online peers (by join) are scheduled
};

// The tasklet scheduler (core/scheduler, DT-FM) run on the swarm's online peers, from their
// measured devices and links, on a thread of its own: a search takes seconds. While the grid
// stays the same, peers coming and going repair the current assignment (moving as few peers as
// it must) instead of starting over. GET /v1/schedule shows the latest assignment; the
// pipeline-stage mode places peers with it.
class ScheduleService : public QObject {
    Q_OBJECT

public:
    ScheduleService(const ModelConfig &model, const TrainingSettings &training, ScheduleOptions options,
                    QObject *parent = nullptr);
    ~ScheduleService() override; // waits for a search in flight

    // Schedules again when the online peers changed or the last schedule is old. The matrix of
    // the scheduled peers' links is built only then: it grows with the square of their number.
    using MatrixOf = std::function<LinkMatrix(const std::vector<QString> &peers)>;
    void update(std::vector<PeerRecord> online, const MatrixOf &matrixOf, qint64 nowMs);
    ScheduleAnswer latest() const;
    void waitForDone() { m_workers.waitForDone(); }

Q_SIGNALS:
    void scheduled();

private:
    ModelConfig m_model;
    TrainingSettings m_training;
    ScheduleOptions m_options;
    QStringList m_scheduledPeers;
    int m_scheduledLinks = 0;
    qint64 m_scheduledMs = 0;
    bool m_running = false;
    mutable std::mutex m_mutex;
    ScheduleAnswer m_latest; // guarded by m_mutex
    std::optional<scheduler::CurrentAssignment> m_current; // guarded by m_mutex
    QThreadPool m_workers;
};

} // namespace swarmtrain
