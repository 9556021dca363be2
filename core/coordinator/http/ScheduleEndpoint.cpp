#include "ScheduleEndpoint.h"

namespace swarmtrain {

void ScheduleEndpoint::addRoutes(RouteTable &routes)
{
    const qint64 maxJson = m_context.options.maxJsonBytes;
    routes.add({QHttpServerRequest::Method::Get, QStringLiteral("/v1/schedule"), RouteAccess::Public, RouteBody::None,
                [maxJson] { return maxJson; }, {},
                [this](HttpExchange &exchange) { exchange.respond(HttpReply::json(m_context.schedule.latest().toJson())); }});
}

} // namespace swarmtrain
