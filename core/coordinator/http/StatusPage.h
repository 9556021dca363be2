#pragma once

#include "EndpointGroup.h"

namespace swarmtrain {

// GET /: the swarm's public status as a page for people (swarm, model, round, peers, throughput,
// validation-loss chart, leaderboard). The page is static and self-contained; its script reads
// GET /v1/status from the same origin every few seconds, so it shows what the JSON shows.
class StatusPage : public EndpointGroup {
public:
    explicit StatusPage(CoordinatorContext context);

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply m_reply; // built once: the page and its headers do not change while the coordinator runs
};

} // namespace swarmtrain
