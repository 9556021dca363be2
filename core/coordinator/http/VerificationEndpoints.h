#pragma once

#include "EndpointGroup.h"

#include <QThreadPool>

namespace swarmtrain {

// Verifiable contributions (Verification.h): POST /v1/round/commit and GET
// /v1/round/commitments?round=R around the all-reduce; POST /v1/round/update?round=R (the pieces
// a spot-checked member sent, checked against its commitment on a worker thread), GET
// /v1/round/update?round=R&peer=ID (for its verifier only) and POST /v1/round/check (the
// verifier's figures); POST /v1/round/evidence (a range owner's pieces, OwnerEvidence.h, judged
// on a worker thread) and GET /v1/round/ruling?round=R&owner=KEY (the ruling on them, for the
// round's members).
class VerificationEndpoints : public EndpointGroup {
public:
    explicit VerificationEndpoints(CoordinatorContext context);
    ~VerificationEndpoints() override;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply commitments(const HttpExchange &exchange);
    void upload(const HttpExchange &exchange);
    HttpReply download(const HttpExchange &exchange);
    void evidence(const HttpExchange &exchange);
    HttpReply ruling(const HttpExchange &exchange);
    HttpReply redone(const HttpExchange &exchange);

    QThreadPool m_checks; // update checks; waited for before the endpoints go
};

} // namespace swarmtrain
