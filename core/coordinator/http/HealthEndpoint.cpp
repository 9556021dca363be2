#include "HealthEndpoint.h"

#include <QJsonObject>

#include <algorithm>

namespace swarmtrain {

void HealthEndpoint::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/health", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(health()); }));
}

HttpReply HealthEndpoint::health()
{
    // A read of the store, not the rounds' cache: the answer says whether the database answers now.
    Result<std::optional<RoundRecord>> round = m_context.store.currentRound();
    if (!round) {
        return HttpReply::json(QJsonObject{{QStringLiteral("status"), QStringLiteral("unavailable")},
                                           {QStringLiteral("store"), QStringLiteral("unreachable")},
                                           {QStringLiteral("error"), QString::fromStdString(round.error().message)}},
                               503);
    }
    const qint64 last = m_lastTimedWorkMs();
    const qint64 interval = m_context.options.tickMs;
    const qint64 lag = last > 0 && interval > 0 ? std::max<qint64>(0, m_context.clock() - last - interval) : 0;
    return HttpReply::json(QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                       {QStringLiteral("store"), QStringLiteral("reachable")},
                                       {QStringLiteral("role"), m_leader() ? QStringLiteral("leader") : QStringLiteral("follower")},
                                       {QStringLiteral("round"), double(*round ? (*round)->number : 0)},
                                       {QStringLiteral("timed_work_lag_ms"), double(lag)}});
}

} // namespace swarmtrain
