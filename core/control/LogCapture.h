#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QString>
#include <QtGlobal>

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
// terminal and journald still see them. The process makes one and hands it to whoever shows
// the log; Qt has a single message handler, so only one capture is installed at a time.
class LogCapture : public QObject {
    Q_OBJECT

public:
    static constexpr int kCapacity = 2000;

    explicit LogCapture(QObject *parent = nullptr);
    // Uninstalls it, putting back the handler it replaced; a message another thread is logging
    // meanwhile is finished first.
    ~LogCapture() override;

    // Makes this the process's message handler (once; later calls do nothing). Call it on the
    // GUI thread. False when another capture is installed.
    bool install();
    QList<LogEntry> entries() const;

Q_SIGNALS:
    // Always queued to the thread this object lives in (the GUI's), whichever thread logged.
    void messageLogged(const swarmtrain::LogEntry &entry);

private:
    static void handleMessage(QtMsgType type, const QMessageLogContext &context, const QString &message);
    void record(LogEntry entry);

    mutable QMutex m_mutex;
    std::deque<LogEntry> m_entries;
    quint64 m_sequence = 0;
    QtMessageHandler m_previous = nullptr; // while installed; guarded by the handler's lock (LogCapture.cpp)
};

} // namespace swarmtrain

Q_DECLARE_METATYPE(swarmtrain::LogEntry)
