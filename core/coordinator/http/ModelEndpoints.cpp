#include "ModelEndpoints.h"

#include "FileDownload.h"
#include "ModelExports.h"

#include <QJsonArray>

namespace swarmtrain {

namespace {

constexpr qsizetype kMaxTailChars = 256;

} // namespace

void ModelEndpoints::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/model", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(list()); }));
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/model/files/", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(file(exchange.request, exchange.pathTail)); }));
}

HttpReply ModelEndpoints::list() const
{
    QJsonArray published;
    for (QJsonObject manifest : publishedModels(exportsDir(m_context.setup))) {
        const QString base = QStringLiteral("/v1/model/files/%1/").arg(manifest.value(QStringLiteral("round")).toInteger());
        QJsonArray files;
        for (const QJsonValue value : manifest.value(QStringLiteral("files")).toArray()) {
            QJsonObject file = value.toObject();
            file.insert(QStringLiteral("url"), base + file.value(QStringLiteral("name")).toString());
            files.append(file);
        }
        manifest.insert(QStringLiteral("files"), files);
        published.append(manifest);
    }
    const ModelExportSettings &settings = m_context.options.exports;
    return HttpReply::json({{QStringLiteral("export_every"), settings.every},
                            {QStringLiteral("exports"), published}});
}

HttpReply ModelEndpoints::file(const HttpRequest &request, const QString &tail) const
{
    // ROUND/NAME, NAME one that the round's manifest lists.
    const qsizetype slash = tail.indexOf(QLatin1Char('/'));
    if (tail.size() > kMaxTailChars || slash <= 0)
        return HttpReply::error(404, QStringLiteral("no such file: ask GET /v1/model for the list"));
    bool ok = false;
    const qint64 round = tail.left(slash).toLongLong(&ok);
    const QString name = tail.mid(slash + 1);
    if (!ok)
        return HttpReply::error(404, QStringLiteral("no such file: ask GET /v1/model for the list"));
    const std::filesystem::path exports = exportsDir(m_context.setup);
    const std::optional<QJsonObject> manifest = round >= 0 ? publishedModel(exports, round) : std::nullopt;
    for (const QJsonValue value : manifest ? manifest->value(QStringLiteral("files")).toArray() : QJsonArray()) {
        const QJsonObject file = value.toObject();
        if (file.value(QStringLiteral("name")).toString() != name)
            continue;
        return fileDownload(exports / ("round-" + std::to_string(round)) / name.toStdString(),
                            file.value(QStringLiteral("sha256")).toString(), request,
                            {{"X-Swarm-Round", QByteArray::number(round)}});
    }
    return HttpReply::error(404, QStringLiteral("no such file: ask GET /v1/model for the list"));
}

} // namespace swarmtrain
