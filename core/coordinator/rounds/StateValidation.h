#pragma once

#include "CoordinatorRecords.h"
#include "ModelExports.h"

#include <QObject>
#include <QThreadPool>

#include <cstdint>

namespace swarmtrain {

struct CoordinatorSetup;

// The validation loss of each new global state, computed on a thread of its own (it runs the
// model) and recorded in the store and in the current checkpoint when it is still current; then,
// on the same thread, the state's export when one is due (ModelExports.h).
class StateValidation : public QObject {
    Q_OBJECT

public:
    StateValidation(CoordinatorSetup &setup, int batchSize, int evalIters, std::uint64_t seed,
                    ModelExportSettings exports = {}, QObject *parent = nullptr);
    ~StateValidation() override; // waits for the computation in flight

    void validate(const CheckpointRecord &checkpoint);
    // Blocks until the computations in flight are done (tests, shutdown).
    void waitForDone() { m_workers.waitForDone(); }

Q_SIGNALS:
    void recorded(qint64 round, double loss);

private:
    void record(qint64 round, double loss);

    CoordinatorSetup &m_setup;
    int m_batchSize;
    int m_evalIters;
    std::uint64_t m_seed;
    ModelExportSettings m_exports;
    QThreadPool m_workers;
};

} // namespace swarmtrain
