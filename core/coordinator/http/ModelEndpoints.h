#pragma once

#include "EndpointGroup.h"

namespace swarmtrain {

// What the swarm trained, for anyone to download (issue 44; ModelExports.h publishes it):
// GET /v1/model lists the published rounds, newest first, each with its files' names, sizes and
// SHA-256 and its validation bits per byte; GET /v1/model/files/ROUND/NAME serves one of those
// files, resumable with Range. Only a name a round's manifest lists is served: the path never
// comes from the request.
class ModelEndpoints : public EndpointGroup {
public:
    using EndpointGroup::EndpointGroup;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply list() const;
    HttpReply file(const HttpRequest &request, const QString &tail) const;
};

} // namespace swarmtrain
