#pragma once

#include "ControlMessages.h"
#include "CoordinatorContext.h"
#include "RouteTable.h"

namespace swarmtrain {

// GET /v1/round and POST /v1/contribution: who averages with whom, and what each member did.
class RoundEndpoints {
public:
    explicit RoundEndpoints(CoordinatorContext context) : m_context(context) {}

    void addRoutes(RouteTable &routes);

private:
    HttpReply round();
    HttpReply contribution(const PeerRecord &peer, const ContributionRequest &request);

    CoordinatorContext m_context;
};

} // namespace swarmtrain
