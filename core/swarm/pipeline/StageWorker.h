#pragma once

#include "PipelineStage.h"

#include <QObject>
#include <QPointer>
#include <QThread>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

namespace swarmtrain {

// A PipelineStage on a thread of its own, so the thread that owns the worker (the network
// thread) never computes. Work runs in the order it was posted; its result comes back to the
// owner's thread. Destroying the worker waits for the work running now and drops the rest.
class StageWorker : public QObject {
    Q_OBJECT

public:
    explicit StageWorker(std::unique_ptr<PipelineStage> stage, QObject *parent = nullptr)
        : QObject(parent)
        , m_stage(std::move(stage))
    {
        m_context = new QObject;
        m_context->moveToThread(&m_thread);
        m_thread.setObjectName(QStringLiteral("swarmtrain-stage"));
        m_thread.start();
    }

    ~StageWorker() override
    {
        m_thread.quit();
        m_thread.wait();
        delete m_context;
    }

    // Runs `work(stage)` on the stage's thread, then `done(result)` on this object's thread,
    // unless `receiver` (whose state `done` touches) is gone by then.
    template <typename Work, typename Done>
    void post(QObject *receiver, Work work, Done done)
    {
        ++m_queued;
        const QPointer<QObject> guard(receiver);
        QMetaObject::invokeMethod(m_context, [this, guard, work, done] {
            const auto start = std::chrono::steady_clock::now();
            auto result = work(*m_stage);
            m_busyNs += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
            QMetaObject::invokeMethod(this, [this, guard, result, done] {
                --m_queued;
                if (guard)
                    done(result);
            }, Qt::QueuedConnection);
        }, Qt::QueuedConnection);
    }

    // Fixed at creation, so safe to read from any thread.
    const ModelConfig &config() const { return m_stage->config(); }
    const StageSpan &span() const { return m_stage->span(); }

    // Work posted and not answered yet.
    int queued() const { return m_queued; }
    // Time the stage's thread has spent on work since the start: what a peer's utilisation
    // (compute over wall time) is measured by.
    double busySeconds() const { return double(m_busyNs.load()) / 1e9; }

private:
    std::unique_ptr<PipelineStage> m_stage;
    QThread m_thread;
    QObject *m_context = nullptr;
    int m_queued = 0;
    std::atomic<std::int64_t> m_busyNs{0};
};

} // namespace swarmtrain
