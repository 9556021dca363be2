#pragma once

#include "EndpointGroup.h"

namespace swarmtrain {

// POST /v1/pipeline: in a pipeline-stage swarm, each peer's stage, the open step and its report
// on that step (PipelineMessages.h, PipelineSteps). It also counts as the peer's heartbeat.
// Refused with 409 in a full-model swarm. GET /v1/validation-sample: up to 64 Ki characters of
// the held-back validation text, for the trainers' validation loss.
class PipelineEndpoint : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply pipeline(const PeerRecord &peer, const PipelineRequest &request);
    ValidationSample validationSample() const;
};

} // namespace swarmtrain
