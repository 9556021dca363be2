#include "LogCapture.h"

#include <QMetaObject>
#include <QMutexLocker>

#include <cstdio>

namespace swarmtrain {

namespace {

// A message logged while handling one (Qt warning about the queued call, say) must not
// recurse into the handler.
thread_local bool t_handling = false;

} // namespace

LogCapture &LogCapture::instance()
{
    // Never destroyed: threads may still log while static objects are torn down at exit.
    static LogCapture *capture = new LogCapture;
    return *capture;
}

void LogCapture::install()
{
    QMutexLocker lock(&m_mutex);
    if (m_installed)
        return;
    m_installed = true;
    qRegisterMetaType<LogEntry>();
    m_previous = qInstallMessageHandler(&LogCapture::handleMessage);
}

QList<LogEntry> LogCapture::entries() const
{
    QMutexLocker lock(&m_mutex);
    return QList<LogEntry>(m_entries.begin(), m_entries.end());
}

void LogCapture::handleMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    LogCapture &self = instance();
    if (!t_handling) {
        t_handling = true;
        self.record({QDateTime::currentDateTime(), type,
                     QString::fromUtf8(context.category ? context.category : "default"), message});
        t_handling = false;
    }
    if (const QtMessageHandler previous = self.m_previous.load())
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
