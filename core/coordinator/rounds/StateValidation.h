#pragma once

#include "CoordinatorRecords.h"
#include "ModelExports.h"

#include <QObject>
#include <QThreadPool>

#include <cstdint>
#include <filesystem>
#include <optional>

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
    // A pipeline swarm's step whose stages' agreed states are all in `dir` (stageStateFile):
    // the model put together from them, validated and published (ModelExports.h); `dir` is
    // removed then. `tokensPerStep`: a step's microbatches x their sequences x the context.
    void publishStages(qint64 step, const std::filesystem::path &dir, int stages, std::int64_t tokensPerStep);
    static std::filesystem::path stageStateFile(const std::filesystem::path &dir, int stage);
    // Blocks until the computations in flight are done (tests, shutdown).
    void waitForDone() { m_workers.waitForDone(); }

Q_SIGNALS:
    void recorded(qint64 round, double loss);

private:
    void record(qint64 round, double loss);
    void publish(const PublishedState &state, std::optional<double> loss, std::int64_t tokensPerStep);
    Result<PublishedState> stagesState(qint64 step, const std::filesystem::path &dir, int stages) const;

    CoordinatorSetup &m_setup;
    int m_batchSize;
    int m_evalIters;
    std::uint64_t m_seed;
    ModelExportSettings m_exports;
    QThreadPool m_workers;
};

} // namespace swarmtrain
