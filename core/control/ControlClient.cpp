#include "ControlClient.h"

#include "ControlSocket.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QLocalSocket>

namespace swarmtrain {

Result<std::unique_ptr<ControlClient>> ControlClient::connect(const std::filesystem::path &stateDir, int timeoutMs)
{
    Result<QString> path = controlSocketPath(stateDir);
    if (!path)
        return path.error();
    auto socket = std::make_unique<QLocalSocket>();
    socket->connectToServer(*path);
    if (!socket->waitForConnected(timeoutMs)) {
        const std::string why = socket->error() == QLocalSocket::ServerNotFoundError
                                    ? "no SwarmTrain client is running with the state folder " + stateDir.string()
                                    : "cannot reach the SwarmTrain client of " + stateDir.string() + ": " +
                                          socket->errorString().toStdString();
        return makeError(why);
    }
    return std::unique_ptr<ControlClient>(new ControlClient(std::move(socket)));
}

ControlClient::ControlClient(std::unique_ptr<QLocalSocket> socket) : m_socket(std::move(socket)) {}

ControlClient::~ControlClient() = default;

Result<QJsonObject> ControlClient::request(const QJsonObject &request, int timeoutMs)
{
    m_socket->write(QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n');
    if (!m_socket->waitForBytesWritten(timeoutMs) && m_socket->bytesToWrite() > 0)
        return makeError("the client did not take the request: " + m_socket->errorString().toStdString());
    Result<QJsonObject> answer = next(timeoutMs);
    if (answer && !answer->value(QStringLiteral("ok")).toBool())
        return makeError(answer->value(QStringLiteral("error")).toString().toStdString());
    return answer;
}

Result<QJsonObject> ControlClient::next(int timeoutMs)
{
    const QDeadlineTimer deadline = timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs);
    while (!m_socket->canReadLine()) {
        if (m_socket->bytesAvailable() > kMaxAnswerBytes)
            return makeError("the client's answer is too long");
        if (m_socket->state() != QLocalSocket::ConnectedState && m_socket->bytesAvailable() == 0)
            return makeError("the client closed the connection");
        if (deadline.hasExpired())
            return makeError("the client did not answer in time");
        const qint64 left = deadline.isForever() ? 1000 : std::max<qint64>(1, deadline.remainingTime());
        m_socket->waitForReadyRead(int(std::min<qint64>(left, 1000)));
        if (m_socket->state() != QLocalSocket::ConnectedState && !m_socket->canReadLine() &&
            m_socket->bytesAvailable() == 0)
            return makeError("the client closed the connection");
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(m_socket->readLine(kMaxAnswerBytes), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return makeError("the client's answer is not a JSON object");
    return document.object();
}

} // namespace swarmtrain
