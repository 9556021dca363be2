#pragma once

#include <QMetaObject>
#include <QObject>
#include <QThread>

#include <exception>
#include <functional>
#include <memory>

namespace swarmtrain {

// A thread with an event loop for a data plane's objects (PeerTransport and what uses it), driven
// by blocking calls from another thread: the full-model DataPlane's and the PipelinePlane's.
class NetworkThread {
public:
    explicit NetworkThread(const QString &name)
        : m_thread(std::make_unique<QThread>())
        , m_context(std::make_unique<QObject>())
    {
        m_thread->setObjectName(name);
        m_context->moveToThread(m_thread.get());
        m_thread->start();
    }
    ~NetworkThread() { stop(); }
    NetworkThread(const NetworkThread &) = delete;
    NetworkThread &operator=(const NetworkThread &) = delete;

    // Runs `work` on the thread and waits for it. An exception must not unwind the thread's event
    // loop (std::terminate, SIGABRT): it is carried back to the calling thread, whose edge turns it
    // into an error.
    void run(const std::function<void()> &work) const
    {
        std::exception_ptr failure;
        QMetaObject::invokeMethod(
            m_context.get(),
            [&] {
                try {
                    work();
                } catch (...) {
                    failure = std::current_exception();
                }
            },
            Qt::BlockingQueuedConnection);
        if (failure)
            std::rethrow_exception(failure);
    }

    // Runs `work` on the thread later, without waiting for it.
    void post(std::function<void()> work) const { QMetaObject::invokeMethod(m_context.get(), std::move(work)); }

    // Ends the event loop and joins the thread; the objects on it must be gone by then.
    void stop()
    {
        if (!m_thread)
            return;
        m_thread->quit();
        m_thread->wait();
        m_context.reset();
        m_thread.reset();
    }

private:
    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_context; // on m_thread: where work runs
};

} // namespace swarmtrain
