#pragma once

#include "ControlMessages.h"
#include "EndpointGroup.h"

namespace swarmtrain {

// POST /v1/join and POST /v1/heartbeat: peers come, say how they are, and go.
class PeerEndpoints : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    void join(HttpExchange &exchange, const JoinRequest &request);
    HttpReply heartbeat(const PeerRecord &peer, const HeartbeatRequest &request);
    HttpReply joinAnswer(const PeerRecord &peer);
};

} // namespace swarmtrain
