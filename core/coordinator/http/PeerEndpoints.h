#pragma once

#include "ControlMessages.h"
#include "EndpointGroup.h"

#include <QHostAddress>

#include <vector>

namespace swarmtrain {

// POST /v1/join and POST /v1/heartbeat: peers come, say how they are, and go.
class PeerEndpoints : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    void join(HttpExchange &exchange, const JoinRequest &request);
    // Admission, the endpoint's host, identities per address; `status` is the answer's on refusal.
    Result<void> admit(const PeerRecord &peer, const JoinRequest &request, const QString &endpointHost,
                       const QHostAddress &from, int &status);
    HttpReply heartbeat(const PeerRecord &peer, const HeartbeatRequest &request);
    HttpReply joinAnswer(const PeerRecord &peer);
};

} // namespace swarmtrain
