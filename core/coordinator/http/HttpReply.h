#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

#include <memory>
#include <optional>

class QFile;

namespace swarmtrain {

// One HTTP answer of the coordinator: JSON unless a download says otherwise. A download's body
// is a part of an open file, streamed in chunks as the socket drains, never read whole.
struct HttpReply {
    struct FilePart {
        std::shared_ptr<QFile> file; // open for reading
        qint64 offset = 0;
        qint64 length = 0;
    };

    int status = 200;
    QByteArray body;
    QByteArray contentType = "application/json";
    QList<QPair<QByteArray, QByteArray>> headers;
    std::optional<FilePart> file; // instead of `body`
    bool closeConnection = false; // the connection is closed once the answer is out

    static HttpReply json(const QJsonObject &object, int status = 200);
    // {"error": message}: every failure is answered this way.
    static HttpReply error(int status, const QString &message);
};

} // namespace swarmtrain
