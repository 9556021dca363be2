#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

namespace swarmtrain {

// One HTTP answer of the coordinator: JSON unless a download says otherwise.
struct HttpReply {
    int status = 200;
    QByteArray body;
    QByteArray contentType = "application/json";
    QList<QPair<QByteArray, QByteArray>> headers;

    static HttpReply json(const QJsonObject &object, int status = 200);
    // {"error": message}: every failure is answered this way.
    static HttpReply error(int status, const QString &message);
};

} // namespace swarmtrain
