#pragma once

#include "CoordinatorContext.h"
#include "RouteTable.h"

namespace swarmtrain {

// GET /v1/status: the swarm as anyone may watch it (round, peers, loss history, leaderboard).
class StatusEndpoint {
public:
    explicit StatusEndpoint(CoordinatorContext context) : m_context(context) {}

    void addRoutes(RouteTable &routes);

private:
    HttpReply status();

    CoordinatorContext m_context;
};

} // namespace swarmtrain
