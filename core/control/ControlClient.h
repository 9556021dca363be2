#pragma once

#include "Result.h"

#include <QJsonObject>

#include <filesystem>
#include <memory>

class QLocalSocket;

namespace swarmtrain {

// swarmtrain-cli's end of a running client's control socket (LocalControlServer): blocking
// calls, for a command-line tool without an event loop.
class ControlClient {
public:
    static constexpr qint64 kMaxAnswerBytes = 16 << 20;

    // The client running with `stateDir`; an error that says so when none is.
    static Result<std::unique_ptr<ControlClient>> connect(const std::filesystem::path &stateDir, int timeoutMs);
    ~ControlClient();

    // Sends one request and waits for its answer; an answer {"ok":false} becomes the error.
    Result<QJsonObject> request(const QJsonObject &request, int timeoutMs);
    // The next line the client sends (log --follow); timeoutMs -1 waits for ever.
    Result<QJsonObject> next(int timeoutMs);

private:
    explicit ControlClient(std::unique_ptr<QLocalSocket> socket);

    std::unique_ptr<QLocalSocket> m_socket;
};

} // namespace swarmtrain
