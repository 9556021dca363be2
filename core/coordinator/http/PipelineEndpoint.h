#pragma once

#include "EndpointGroup.h"
#include "StagePartition.h"

#include <QThreadPool>

#include <filesystem>
#include <set>
#include <vector>

namespace swarmtrain {

// POST /v1/pipeline: in a pipeline-stage swarm, each peer's stage, the open step and its report
// on that step (PipelineMessages.h, PipelineSteps). It also counts as the peer's heartbeat.
// Refused with 409 in a full-model swarm. GET /v1/validation-sample: up to 64 Ki characters of
// the held-back validation text, for the trainers' validation loss.
// POST /v1/pipeline/state?stage=S&hash=H: a stage's state (PipelineStage::exportState), from
// the member asked for it (PipelineAnswer::uploadState) when the model is exported (issue 44).
// H must be the agreed hash the coordinator asks that peer for now (409 otherwise, no offence).
// The body's size is the stage's, exactly; it is imported as a stranger's and its parameters
// must hash to H, or it is refused as a forgery and counted against the sender. Checked on a worker thread.
class PipelineEndpoint : public EndpointGroup {
public:
    explicit PipelineEndpoint(CoordinatorContext context);
    ~PipelineEndpoint() override;

    void addRoutes(RouteTable &routes) override;

private:
    HttpReply pipeline(const PeerRecord &peer, const PipelineRequest &request);
    ValidationSample validationSample() const;
    void uploadState(const HttpExchange &exchange);
    // Back on the server's thread: a checked stage state is kept (or refused, `why`).
    HttpReply keepState(const QString &keyId, int stage, qint64 step, const std::filesystem::path &incoming,
                        const QString &why);
    struct StageShape {
        StageSpan span;
        qint64 stateBytes = 0; // its state's exact size
    };
    // By stage; empty until pipeline mode is on.
    const std::vector<StageShape> &stageShapes();
    std::filesystem::path stagesDir(qint64 step) const;
    void forgetOtherCollections(qint64 step) const;

    std::vector<StageShape> m_stages;
    std::set<qint64> m_handedOver;    // steps whose stage states are being put together and published
    QThreadPool m_checks;
};

} // namespace swarmtrain
