#pragma once

#include "Result.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <chrono>
#include <filesystem>
#include <optional>

class QLocalServer;
class QLocalSocket;

namespace swarmtrain {

class LogCapture;

// A client's state as `swarmtrain-cli status` shows it: the facts of the window's dashboard.
struct ControlStatus {
    QString headline;     // "Contributing", "Paused by you", "Not in a swarm" (translated)
    QString detail;       // what the worker does, "Training round 12" (translated)
    QString state;        // the worker: starting, joining, downloading, training, waiting, averaging,
                          // paused, stopping, stopped, failed; "idle" when not in a swarm
    qint64 round = 0;
    qint64 stepsDone = 0; // of this round's inner steps
    qint64 steps = 0;
    double tokensPerSecond = 0.0;
    QString swarm;        // the coordinator's URL; "" when not in a swarm
    QString mode;         // "Full model", "Pipeline stage 2 of 4" (translated)
    bool paused = false;
    QString pauseReason;  // "" or manual, user_active, on_battery, exclusive_app, gpu_busy, gpu_hot,
                          // schedule, disk_full
    QDateTime pausedUntil; // a pause for a while; invalid: until resumed
    bool released = false; // paused with the GPU's memory given back

    QJsonObject toJson() const;
};

// What a running client does when swarmtrain-cli asks: the desktop's ClientSession and the
// headless client each implement it. Called on the thread the server lives in (the GUI's, or
// --headless's main thread); each call returns at once, slow work goes on in the background.
class ControlHandler {
public:
    virtual ~ControlHandler() = default;
    virtual ControlStatus status() const = 0;
    // nullopt: until resume().
    virtual Result<void> pause(std::optional<std::chrono::seconds> duration) = 0;
    virtual Result<void> resume() = 0;
    // Pauses and gives the GPU's memory back, until resume().
    virtual Result<void> release() = 0;
    virtual Result<void> join(const QString &urlOrInvite) = 0;
    virtual Result<void> leave() = 0;
};

// A running client's local control socket (BOINC's GUI RPC, fahctl): JSON requests, one per
// line, each answered by one line. Only this user can open it: the socket lives in a 0700
// folder (ControlSocket.h) and a connection from another user id is closed unanswered. Requests
// are bounded (kMaxRequestBytes, kMaxConnections) like any input, though only this user sends them.
//
//   {"command":"status"}                      -> {"ok":true,"status":{...}}
//   {"command":"pause","seconds":N?}          -> {"ok":true,"status":{...}}   (also resume, release)
//   {"command":"join","swarm":"URL|INVITE"}   -> {"ok":true,"status":{...}}   (also leave)
//   {"command":"stats","days":N}              -> {"ok":true,"totals":{...},"days":[...]}
//   {"command":"log","lines":N,"follow":B}    -> {"ok":true,"entries":[...]}, then with follow
//                                                one {"entry":{...}} line per new message
//   anything else                             -> {"ok":false,"error":"..."}
class LocalControlServer : public QObject {
    Q_OBJECT

public:
    static constexpr qint64 kMaxRequestBytes = 16 * 1024;
    static constexpr int kMaxConnections = 16;
    static constexpr qint64 kMaxPendingBytes = 4 << 20; // a follower that stops reading is dropped
    static constexpr int kMaxPauseDays = 30;
    static constexpr int kMaxStatsDays = 366;

    struct Options {
        std::filesystem::path stateDir; // names the socket, holds stats.db
        ControlHandler *handler = nullptr; // not owned
        LogCapture *log = nullptr;         // not owned; null: `log` answers no entries
    };

    explicit LocalControlServer(Options options, QObject *parent = nullptr);
    ~LocalControlServer() override;

    // Fails when another client already serves this state folder, or the folder is unsafe.
    Result<void> listen();
    QString socketPath() const { return m_path; }

private:
    void accept();
    void readRequests(QLocalSocket *socket);
    void answer(QLocalSocket *socket, const QJsonObject &request);
    void answerStats(QLocalSocket *socket, int days);
    void answerLog(QLocalSocket *socket, int lines, bool follow);
    static void send(QLocalSocket *socket, const QJsonObject &message);

    Options m_options;
    QLocalServer *m_server = nullptr;
    QString m_path;
    QThreadPool m_pool; // reads stats.db off this thread
};

} // namespace swarmtrain
