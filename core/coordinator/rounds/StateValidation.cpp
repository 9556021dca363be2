#include "StateValidation.h"

#include "CoordinatorLog.h"
#include "CoordinatorSetup.h"
#include "FileIo.h"
#include "Sha256.h"
#include "SwarmState.h"

#include <limits>

namespace swarmtrain {

StateValidation::StateValidation(CoordinatorSetup &setup, int batchSize, int evalIters, std::uint64_t seed,
                                 ModelExportSettings exports, QObject *parent)
    : QObject(parent), m_setup(setup), m_batchSize(batchSize), m_evalIters(evalIters), m_seed(seed)
    , m_exports(std::move(exports))
{
    m_workers.setMaxThreadCount(1);
}

StateValidation::~StateValidation() { m_workers.waitForDone(); }

void StateValidation::validate(const CheckpointRecord &checkpoint)
{
    const std::filesystem::path file = m_setup.checkpointsDir() / checkpoint.fileName.toStdString();
    const qint64 round = checkpoint.round;
    m_workers.start([this, file, round, checkpoint]() {
        // The destructor waits for this task, so `this` outlives it.
        Result<double> loss = swarmStateLoss(file, m_setup.validationTokens, m_batchSize, m_evalIters, m_seed);
        const std::optional<double> known = loss ? std::optional(*loss) : std::nullopt;
        const std::int64_t tokensPerStep = std::int64_t(m_batchSize) * m_setup.model.blockSize;
        if (m_exports.every > 0 && round % m_exports.every == 0) {
            const PublishedState state{round, file, checkpoint.sha256, false};
            publish(state, known, tokensPerStep);
        }
        QMetaObject::invokeMethod(
            this,
            [this, round, loss]() {
                if (!loss) {
                    qCWarning(lcCoordinator) << "no validation loss for state" << round << ":"
                                             << loss.error().message.c_str();
                    return;
                }
                record(round, *loss);
            },
            Qt::QueuedConnection);
    });
}

void StateValidation::publish(const PublishedState &state, std::optional<double> loss, std::int64_t tokensPerStep)
{
    if (Result<bool> published = publishModel(m_setup, m_exports, state, loss, tokensPerStep); !published)
        qCWarning(lcCoordinator) << "state" << state.round << "was not exported:" << published.error().message.c_str();
    else if (*published)
        qCInfo(lcCoordinator) << "state" << state.round << "exported to" << exportsDir(m_setup).c_str();
}

void StateValidation::publishStages(qint64 step, const std::filesystem::path &dir, int stages, std::int64_t tokensPerStep)
{
    m_workers.start([this, step, dir, stages, tokensPerStep] {
        const Result<PublishedState> state = stagesState(step, dir, stages);
        if (!state) {
            qCWarning(lcCoordinator) << "the model of pipeline step" << step << "was not put together:"
                                     << state.error().message.c_str();
        } else {
            Result<double> loss = swarmStateLoss(state->file, m_setup.validationTokens, m_batchSize, m_evalIters, m_seed);
            if (loss)
                qCInfo(lcCoordinator) << "pipeline step" << step << "validation loss" << *loss;
            publish(*state, loss ? std::optional(*loss) : std::nullopt, tokensPerStep);
        }
        std::error_code error;
        std::filesystem::remove_all(dir, error);
    });
}

Result<PublishedState> StateValidation::stagesState(qint64 step, const std::filesystem::path &dir, int stages) const
{
    // Checked against each stage's agreed hash when it came (PipelineEndpoint); the files are the coordinator's own.
    const auto stateOf = [&](int stage) { return readFileBytes(stageStateFile(dir, stage), std::numeric_limits<std::uint64_t>::max()); };
    const std::filesystem::path file = dir / "state.safetensors";
    if (Result<void> written = writeSwarmStateFromStages(file, m_setup.model, *m_setup.tokenizer, stages, stateOf, step); !written)
        return written.error();
    Result<std::string> sha256 = Sha256::hexOfFile(file);
    if (!sha256)
        return sha256.error();
    return PublishedState{step, file, QString::fromStdString(*sha256), true};
}

std::filesystem::path StateValidation::stageStateFile(const std::filesystem::path &dir, int stage)
{
    return dir / ("stage-" + std::to_string(stage) + ".bin");
}

void StateValidation::record(qint64 round, double loss)
{
    if (Result<void> saved = m_setup.store->setValidationLoss(round, loss); !saved) {
        qCWarning(lcCoordinator) << saved.error().message.c_str();
        return;
    }
    if (m_setup.checkpoint.round == round)
        m_setup.checkpoint.validationLoss = loss;
    qCInfo(lcCoordinator) << "state" << round << "validation loss" << loss;
    Q_EMIT recorded(round, loss);
}

} // namespace swarmtrain
