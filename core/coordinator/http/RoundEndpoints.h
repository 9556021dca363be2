#pragma once

#include "ControlMessages.h"
#include "EndpointGroup.h"

namespace swarmtrain {

// GET /v1/round and POST /v1/contribution: who averages with whom, and what each member did.
class RoundEndpoints : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply round();
    HttpReply contribution(const PeerRecord &peer, const ContributionRequest &request);
    // The range averages it says it applied, by the attempt its contribution counted in.
    Result<void> keepAverages(const PeerRecord &peer, const ContributionRequest &request);
};

} // namespace swarmtrain
