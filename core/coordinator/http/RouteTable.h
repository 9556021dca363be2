#pragma once

#include "CoordinatorRecords.h"
#include "HttpReply.h"
#include "HttpRequest.h"
#include "Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace swarmtrain {

// One request on its way through the route table to its handler. The answer goes out through
// respond(), now or later (a join waits for its reachability probe); only the first one is sent.
class HttpExchange {
public:
    using Replier = std::function<void(const HttpReply &)>;

    HttpExchange(const HttpRequest &request, QByteArray target, Replier replier)
        : request(request), target(std::move(target)), m_replier(std::move(replier))
    {
    }

    const HttpRequest &request;
    const QByteArray target; // path and query, as signed
    QString pathTail;        // what follows a prefix route's path ("000003" of /v1/shards/000003)
    QJsonObject json;        // the body of a JSON route
    PeerRecord peer;         // who signed it (a joining peer: the record it will get)

    void respond(const HttpReply &reply) const { m_replier(reply); }
    // For an answer sent after the handler returned.
    Replier replier() const { return m_replier; }

private:
    Replier m_replier;
};

// Who may call a route: anyone, a registered peer, or a peer joining with the key in its body.
enum class RouteAccess { Public, Peer, Joining };
// What the body holds: nothing of interest, a JSON object, or raw bytes (a state upload).
enum class RouteBody { None, Json, Bytes };

struct Route {
    QHttpServerRequest::Method method;
    QString path;        // exact, or a prefix when it ends with '/' ("/" itself is exact)
    RouteAccess access;
    RouteBody body;
    // The largest body accepted; asked per request, since a state's size is the swarm's.
    std::function<qint64()> maxBodyBytes;
    // A Joining route's key, from its decoded JSON body.
    std::function<Result<QByteArray>(const QJsonObject &)> joiningKey;
    std::function<void(HttpExchange &)> handler;
};

// The coordinator's endpoints as data: the server applies limits, JSON parsing and signatures
// from each route before its handler runs (STYLE.md, "Protocol as data").
class RouteTable {
public:
    struct Match {
        const Route *route = nullptr; // null: no route
        int status = 0;               // 404 or 405 when there is no route
        QString pathTail;
    };

    void add(Route route);
    Match match(QHttpServerRequest::Method method, const QString &path) const;

private:
    std::vector<Route> m_routes;
};

// A JSON route's handler that decodes the body as a `Message` first; a body that breaks the
// message's bounds is answered 400 with the field and the bound.
template <typename Message, typename Handler>
std::function<void(HttpExchange &)> decoding(Handler handler)
{
    return [handler](HttpExchange &exchange) {
        Result<Message> message = Message::fromJson(exchange.json);
        if (!message)
            return exchange.respond(HttpReply::error(400, QString::fromStdString(message.error().message)));
        handler(exchange, *message);
    };
}

} // namespace swarmtrain
