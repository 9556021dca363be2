#pragma once

#include "EndpointGroup.h"

namespace swarmtrain {

// GET /v1/status: the swarm as anyone may watch it (round, peers, loss history, leaderboard).
class StatusEndpoint : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply status();
};

} // namespace swarmtrain
