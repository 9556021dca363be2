#pragma once

#include "CoordinatorContext.h"
#include "RouteTable.h"

namespace swarmtrain {

// GET /v1/schedule: public. The scheduler's latest placement of the online peers on a pipeline
// grid, with its cost terms and how many of the links it used were measured.
class ScheduleEndpoint {
public:
    explicit ScheduleEndpoint(CoordinatorContext context) : m_context(context) {}

    void addRoutes(RouteTable &routes);

private:
    CoordinatorContext m_context;
};

} // namespace swarmtrain
