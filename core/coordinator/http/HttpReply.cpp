#include "HttpReply.h"

#include <QJsonDocument>

namespace swarmtrain {

HttpReply HttpReply::json(const QJsonObject &object, int status)
{
    HttpReply reply;
    reply.status = status;
    reply.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return reply;
}

HttpReply HttpReply::error(int status, const QString &message)
{
    return json(QJsonObject{{QStringLiteral("error"), message}}, status);
}

} // namespace swarmtrain
