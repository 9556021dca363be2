#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QString>
#include <QtGlobal>

#include <atomic>
#include <deque>

namespace swarmtrain {

// One message from a logging category, as the Log page lists it.
struct LogEntry {
    QDateTime at;
    QtMsgType type = QtInfoMsg;
    QString category;
    QString text;
    quint64 sequence = 0; // counts from 1 in the order messages arrived, so readers can skip repeats
};

// The recent log (qBittorrent's Logger): a Qt message handler that keeps the last kCapacity
// messages for the Log page and passes every message on to the handler it replaced, so the
// terminal and journald still see them. It has to be one object per process because Qt's
// message handler is a plain function pointer.
class LogCapture : public QObject {
    Q_OBJECT

public:
    static constexpr int kCapacity = 2000;

    static LogCapture &instance();

    // Installs the handler (once; later calls do nothing). Call it on the GUI thread.
    void install();
    QList<LogEntry> entries() const;

Q_SIGNALS:
    // Always queued to the thread this object lives in (the GUI's), whichever thread logged.
    void messageLogged(const swarmtrain::LogEntry &entry);

private:
    LogCapture() = default;
    static void handleMessage(QtMsgType type, const QMessageLogContext &context, const QString &message);
    void record(LogEntry entry);

    mutable QMutex m_mutex;
    std::deque<LogEntry> m_entries;
    quint64 m_sequence = 0;
    std::atomic<QtMessageHandler> m_previous = nullptr;
    bool m_installed = false;
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::LogEntry)
