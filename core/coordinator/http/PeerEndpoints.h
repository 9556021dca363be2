#pragma once

#include "ControlMessages.h"
#include "CoordinatorContext.h"
#include "RouteTable.h"

namespace swarmtrain {

// POST /v1/join and POST /v1/heartbeat: peers come, say how they are, and go.
class PeerEndpoints {
public:
    explicit PeerEndpoints(CoordinatorContext context) : m_context(context) {}

    void addRoutes(RouteTable &routes);

private:
    void join(HttpExchange &exchange, const JoinRequest &request);
    HttpReply heartbeat(const PeerRecord &peer, const HeartbeatRequest &request);
    HttpReply joinAnswer(const PeerRecord &peer);

    CoordinatorContext m_context;
};

} // namespace swarmtrain
