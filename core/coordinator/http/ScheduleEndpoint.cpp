#include "ScheduleEndpoint.h"

namespace swarmtrain {

void ScheduleEndpoint::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/schedule", RouteAccess::Public, RouteBody::None,
                     [this](HttpExchange &exchange) {
                         exchange.respond(HttpReply::json(m_context.schedule.latest().toJson()));
                     }));
}

} // namespace swarmtrain
