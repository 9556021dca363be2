#include "LogCapture.h"

#include <QMetaObject>
#include <QMutexLocker>
#include <QReadWriteLock>

#include <cstdio>

namespace swarmtrain {

namespace {

// Qt's message handler is a plain function: it finds the installed capture here. Messages take
// the lock for reading (recursively: see t_handling), installing and uninstalling for writing,
// so a capture is never destroyed under a message being handled on another thread.
LogCapture *g_installed = nullptr;

QReadWriteLock &handlerLock()
{
    // Never destroyed: threads may still log while static objects are torn down at exit.
    static auto *lock = new QReadWriteLock(QReadWriteLock::Recursive);
    return *lock;
}

// A message logged while handling one (Qt warning about the queued call, say) must not
// recurse into the capture.
thread_local bool t_handling = false;

} // namespace

LogCapture::LogCapture(QObject *parent) : QObject(parent) { qRegisterMetaType<LogEntry>(); }

LogCapture::~LogCapture()
{
    QWriteLocker lock(&handlerLock());
    if (g_installed != this)
        return;
    g_installed = nullptr;
    // A handler installed over this one stays; it finds no capture when it passes messages on.
    if (const QtMessageHandler current = qInstallMessageHandler(m_previous); current != &LogCapture::handleMessage)
        qInstallMessageHandler(current);
}

bool LogCapture::install()
{
    QWriteLocker lock(&handlerLock());
    if (g_installed)
        return g_installed == this;
    g_installed = this;
    m_previous = qInstallMessageHandler(&LogCapture::handleMessage);
    return true;
}

QList<LogEntry> LogCapture::entries() const
{
    QMutexLocker lock(&m_mutex);
    return QList<LogEntry>(m_entries.begin(), m_entries.end());
}

void LogCapture::handleMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    QReadLocker lock(&handlerLock());
    LogCapture *self = g_installed;
    if (self && !t_handling) {
        t_handling = true;
        self->record({QDateTime::currentDateTime(), type,
                      QString::fromUtf8(context.category ? context.category : "default"), message});
        t_handling = false;
    }
    if (const QtMessageHandler previous = self ? self->m_previous : nullptr)
        previous(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

void LogCapture::record(LogEntry entry)
{
    {
        QMutexLocker lock(&m_mutex);
        entry.sequence = ++m_sequence;
        m_entries.push_back(entry);
        while (m_entries.size() > std::size_t(kCapacity))
            m_entries.pop_front();
    }
    // Queued even on the GUI thread: a message logged while a view paints or a model resets
    // must not change the Log page's model in the middle of that.
    QMetaObject::invokeMethod(
        this, [this, entry = std::move(entry)] { Q_EMIT messageLogged(entry); }, Qt::QueuedConnection);
}

} // namespace swarmtrain
