#pragma once

#include "EndpointGroup.h"

namespace swarmtrain {

// GET /v1/schedule: public. The scheduler's latest placement of the online peers on a pipeline
// grid, with its cost terms and how many of the links it used were measured.
class ScheduleEndpoint : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;
};

} // namespace swarmtrain
