#include "WorkController.h"

#include "SwarmWorker.h"
#include "WorkGate.h"

#include <QThread>

namespace swarmtrain {

WorkController::WorkController(WorkerOptions options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_gate(std::make_shared<WorkGate>())
{
    qRegisterMetaType<swarmtrain::WorkStatus>();
    qRegisterMetaType<swarmtrain::RoundReport>();
}

WorkController::~WorkController()
{
    if (!m_thread)
        return;
    m_gate->stop();
    m_thread->quit();
    m_thread->wait();
}

void WorkController::start()
{
    if (m_thread)
        return;
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(QStringLiteral("swarmtrain worker"));
    m_worker = new SwarmWorker(m_options, m_gate);
    m_worker->moveToThread(m_thread.get());
    connect(m_thread.get(), &QThread::started, m_worker, &SwarmWorker::run);
    connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &SwarmWorker::statusChanged, this, &WorkController::statusChanged);
    connect(m_worker, &SwarmWorker::roundFinished, this, &WorkController::roundFinished);
    connect(m_worker, &SwarmWorker::finished, this, [this](bool ok, const QString &message) {
        m_thread->quit();
        m_thread->wait();
        m_thread.reset();
        m_worker = nullptr;
        Q_EMIT finished(ok, message);
    });
    m_thread->start();
}

void WorkController::pause(const QString &reason, bool release) { m_gate->pause(reason, release); }

void WorkController::setDuty(double duty) { m_gate->setDuty(duty); }

void WorkController::resume() { m_gate->resume(); }

void WorkController::stop() { m_gate->stop(); }

void WorkController::abandon() { m_gate->abandon(); }

bool WorkController::isPaused() const { return m_gate->paused(); }

bool WorkController::isRunning() const { return m_thread != nullptr; }

} // namespace swarmtrain
