#include "StateValidation.h"

#include "CoordinatorLog.h"
#include "CoordinatorSetup.h"
#include "SwarmState.h"

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
        if (Result<bool> published = publishModel(m_setup, m_exports, checkpoint, known, tokensPerStep); !published)
            qCWarning(lcCoordinator) << "state" << round << "was not exported:" << published.error().message.c_str();
        else if (*published)
            qCInfo(lcCoordinator) << "state" << round << "exported to" << exportsDir(m_setup).c_str();
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
