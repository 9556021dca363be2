#pragma once

#include "EndpointGroup.h"

#include <functional>

namespace swarmtrain {

// GET /v1/health, for a load balancer's health checks (issue 20): 200 while this instance can
// serve, 503 with the reason when its store does not answer.
//   {"status":"ok","store":"reachable","role":"leader","round":12,"timed_work_lag_ms":0}
// `role`: "leader" when this instance runs the swarm's timed work (deadlines, gather timeouts),
// as a lone instance does; "follower" while another instance on the same database does. `timed_work_lag_ms`: how late that work runs now, beyond its
// interval: a stuck event loop shows here before peers notice.
class HealthEndpoint : public EndpointGroup {
public:
    // `lastTimedWorkMs`: when the timed work (or, on a follower, the check for the lease) last ran
    // (the server's clock); 0: it does not run on a timer. `leader`: whether this instance holds the lease.
    HealthEndpoint(CoordinatorContext context, std::function<qint64()> lastTimedWorkMs, std::function<bool()> leader)
        : EndpointGroup(context), m_lastTimedWorkMs(std::move(lastTimedWorkMs)), m_leader(std::move(leader))
    {
    }

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply health();

    std::function<qint64()> m_lastTimedWorkMs;
    std::function<bool()> m_leader;
};

} // namespace swarmtrain
