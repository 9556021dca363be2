#include "LocalControlServer.h"

#include "ControlSocket.h"
#include "LogCapture.h"
#include "StatsStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QPointer>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcControl, "swarmtrain.control")

namespace {

QJsonObject failure(const QString &message) { return {{QStringLiteral("ok"), false}, {QStringLiteral("error"), message}}; }

QJsonObject entryJson(const LogEntry &entry)
{
    static const char *const levels[] = {"debug", "warning", "critical", "fatal", "info"};
    const int type = int(entry.type);
    return {{QStringLiteral("at"), entry.at.toString(Qt::ISODateWithMs)},
            {QStringLiteral("level"), QLatin1StringView(type >= 0 && type <= 4 ? levels[type] : "info")},
            {QStringLiteral("category"), entry.category},
            {QStringLiteral("text"), entry.text}};
}

// An integer field within [min, max], or `fallback` when absent.
std::optional<int> boundedInt(const QJsonObject &request, const QString &key, int min, int max, int fallback)
{
    const QJsonValue value = request.value(key);
    if (value.isUndefined())
        return fallback;
    const double number = value.toDouble(-1.0);
    if (!value.isDouble() || number != double(qint64(number)) || number < min || number > max)
        return std::nullopt;
    return int(number);
}

} // namespace

QJsonObject ControlStatus::toJson() const
{
    QJsonObject json{{QStringLiteral("headline"), headline},
                     {QStringLiteral("detail"), detail},
                     {QStringLiteral("state"), state},
                     {QStringLiteral("round"), round},
                     {QStringLiteral("steps_done"), stepsDone},
                     {QStringLiteral("steps"), steps},
                     {QStringLiteral("tokens_per_s"), tokensPerSecond},
                     {QStringLiteral("swarm"), swarm},
                     {QStringLiteral("joined"), !swarm.isEmpty()},
                     {QStringLiteral("mode"), mode},
                     {QStringLiteral("paused"), paused},
                     {QStringLiteral("pause_reason"), pauseReason},
                     {QStringLiteral("released"), released}};
    if (pausedUntil.isValid())
        json.insert(QStringLiteral("paused_until"), pausedUntil.toUTC().toString(Qt::ISODate));
    return json;
}

LocalControlServer::LocalControlServer(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
    m_pool.setMaxThreadCount(1);
}

LocalControlServer::~LocalControlServer()
{
    if (m_server)
        m_server->close(); // removes the socket file
    m_pool.waitForDone();
}

Result<void> LocalControlServer::listen()
{
    Result<QString> path = controlSocketPath(m_options.stateDir);
    if (!path)
        return path.error();
    m_path = *path;
    // A socket that answers belongs to a client still running with this state folder: two
    // workers on one replica would spoil it. One that does not is left over from a crash.
    QLocalSocket probe;
    probe.connectToServer(m_path);
    if (probe.waitForConnected(1000))
        return makeError("another SwarmTrain client is running with the state folder " + m_options.stateDir.string() +
                         " (its control socket " + m_path.toStdString() + " answers)");
    QLocalServer::removeServer(m_path);
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    m_server->setMaxPendingConnections(kMaxConnections);
    if (!m_server->listen(m_path))
        return makeError("cannot open the control socket " + m_path.toStdString() + ": " +
                         m_server->errorString().toStdString());
    connect(m_server, &QLocalServer::newConnection, this, &LocalControlServer::accept);
    return {};
}

void LocalControlServer::accept()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        const std::optional<quint32> uid = peerUserId(socket->socketDescriptor());
#ifdef _WIN32
        const bool sameUser = true; // the pipe's ACL (UserAccessOption) admits only this user
#else
        const bool sameUser = uid && *uid == currentUserId();
#endif
        const int open = int(findChildren<QLocalSocket *>(Qt::FindDirectChildrenOnly).size());
        if (!sameUser || open >= kMaxConnections) {
            qCWarning(lcControl) << "refused a control connection from user" << (uid ? qint64(*uid) : -1);
            socket->abort();
            socket->deleteLater();
            continue;
        }
        socket->setParent(this);
        socket->setReadBufferSize(kMaxRequestBytes + 1);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { readRequests(socket); });
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
    }
}

void LocalControlServer::readRequests(QLocalSocket *socket)
{
    while (socket->canReadLine()) {
        const QByteArray line = socket->readLine(kMaxRequestBytes + 1);
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(line.trimmed(), &error);
        if (!line.endsWith('\n') || error.error != QJsonParseError::NoError || !document.isObject()) {
            send(socket, failure(tr("a request is one JSON object on one line, at most %1 bytes").arg(kMaxRequestBytes)));
            socket->disconnectFromServer();
            return;
        }
        answer(socket, document.object());
    }
    if (socket->bytesAvailable() > kMaxRequestBytes) {
        send(socket, failure(tr("a request is one JSON object on one line, at most %1 bytes").arg(kMaxRequestBytes)));
        socket->disconnectFromServer();
    }
}

void LocalControlServer::answer(QLocalSocket *socket, const QJsonObject &request)
{
    ControlHandler &handler = *m_options.handler;
    const QString command = request.value(QStringLiteral("command")).toString();
    Result<void> done;
    if (command == QLatin1StringView("status")) {
    } else if (command == QLatin1StringView("pause")) {
        const std::optional<int> seconds = boundedInt(request, QStringLiteral("seconds"), 1, kMaxPauseDays * 86400, 0);
        if (!seconds)
            return send(socket, failure(tr("a pause lasts from 1 second to %1 days").arg(kMaxPauseDays)));
        done = handler.pause(*seconds > 0 ? std::optional(std::chrono::seconds(*seconds)) : std::nullopt);
    } else if (command == QLatin1StringView("resume")) {
        done = handler.resume();
    } else if (command == QLatin1StringView("release")) {
        done = handler.release();
    } else if (command == QLatin1StringView("join")) {
        const QString swarm = request.value(QStringLiteral("swarm")).toString();
        if (swarm.isEmpty() || swarm.size() > 4096)
            return send(socket, failure(tr("join needs the swarm's URL or invite link")));
        done = handler.join(swarm);
    } else if (command == QLatin1StringView("leave")) {
        done = handler.leave();
    } else if (command == QLatin1StringView("stats")) {
        const std::optional<int> days = boundedInt(request, QStringLiteral("days"), 1, kMaxStatsDays, 7);
        if (!days)
            return send(socket, failure(tr("stats covers from 1 to %1 days").arg(kMaxStatsDays)));
        return answerStats(socket, *days);
    } else if (command == QLatin1StringView("log")) {
        const std::optional<int> lines = boundedInt(request, QStringLiteral("lines"), 0, LogCapture::kCapacity, 50);
        if (!lines)
            return send(socket, failure(tr("log shows from 0 to %1 lines").arg(LogCapture::kCapacity)));
        return answerLog(socket, *lines, request.value(QStringLiteral("follow")).toBool());
    } else {
        return send(socket, failure(tr("unknown command \"%1\"").arg(command.left(64))));
    }
    if (!done)
        return send(socket, failure(QString::fromStdString(done.error().message)));
    send(socket, {{QStringLiteral("ok"), true}, {QStringLiteral("status"), handler.status().toJson()}});
}

void LocalControlServer::answerStats(QLocalSocket *socket, int days)
{
    const QPointer<QLocalSocket> target(socket);
    const std::filesystem::path file = m_options.stateDir / "stats.db";
    // The answer comes back to this thread; the socket may be gone by then.
    m_pool.start([this, target, file, days] {
        QJsonObject answer{{QStringLiteral("ok"), true}};
        QJsonObject totalsJson;
        QJsonArray daysJson;
        Result<std::unique_ptr<StatsStore>> store =
            std::filesystem::exists(file) ? StatsStore::open(file) : Result<std::unique_ptr<StatsStore>>(nullptr);
        if (!store) {
            answer = failure(QString::fromStdString(store.error().message));
        } else if (*store) {
            if (Result<StatsTotals> t = (*store)->totals()) {
                totalsJson = {{QStringLiteral("contributions"), qint64(t->contributions)},
                              {QStringLiteral("tokens"), qint64(t->tokens)},
                              {QStringLiteral("flops"), t->flops},
                              {QStringLiteral("compute_hours"), t->computeHours},
                              {QStringLiteral("accepted_rounds"), qint64(t->acceptedRounds)},
                              {QStringLiteral("rejected_rounds"), qint64(t->rejectedRounds)},
                              {QStringLiteral("credit"), t->credit},
                              {QStringLiteral("bytes_up"), qint64(t->bytesUp)},
                              {QStringLiteral("bytes_down"), qint64(t->bytesDown)}};
            }
            if (Result<std::vector<DailyStats>> d = (*store)->daily(days, QDateTime::currentDateTime())) {
                for (const DailyStats &day : *d)
                    daysJson.append(QJsonObject{{QStringLiteral("day"), day.day.toString(Qt::ISODate)},
                                                {QStringLiteral("compute_seconds"), day.computeSeconds},
                                                {QStringLiteral("tokens"), qint64(day.tokens)},
                                                {QStringLiteral("credit"), day.credit}});
            }
        }
        if (answer.value(QStringLiteral("ok")).toBool()) {
            answer.insert(QStringLiteral("totals"), totalsJson);
            answer.insert(QStringLiteral("days"), daysJson);
        }
        QMetaObject::invokeMethod(this, [target, answer] {
            if (target)
                send(target, answer);
        });
    });
}

void LocalControlServer::answerLog(QLocalSocket *socket, int lines, bool follow)
{
    QJsonArray entries;
    quint64 last = 0;
    if (m_options.log) {
        const QList<LogEntry> all = m_options.log->entries();
        for (qsizetype i = std::max<qsizetype>(0, all.size() - lines); i < all.size(); ++i)
            entries.append(entryJson(all[i]));
        if (!all.isEmpty())
            last = all.last().sequence;
    }
    send(socket, {{QStringLiteral("ok"), true}, {QStringLiteral("entries"), entries}});
    if (!follow || !m_options.log)
        return;
    connect(m_options.log, &LogCapture::messageLogged, socket, [socket, last](const LogEntry &entry) {
        if (entry.sequence <= last)
            return;
        if (socket->bytesToWrite() > kMaxPendingBytes) {
            socket->abort(); // it stopped reading
            return;
        }
        send(socket, {{QStringLiteral("entry"), entryJson(entry)}});
    });
}

void LocalControlServer::send(QLocalSocket *socket, const QJsonObject &message)
{
    if (socket->state() != QLocalSocket::ConnectedState)
        return;
    socket->write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

} // namespace swarmtrain
