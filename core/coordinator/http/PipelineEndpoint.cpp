#include "PipelineEndpoint.h"

#include "CorpusTokenizer.h"
#include "QtText.h"
#include "ShardManifest.h"

#include <QJsonObject>

#include <algorithm>

namespace swarmtrain {

void PipelineEndpoint::addRoutes(RouteTable &routes)
{
    routes.add(route(QHttpServerRequest::Method::Post, "/v1/pipeline", RouteAccess::Peer, RouteBody::Json,
                     decoding<PipelineRequest>([this](HttpExchange &exchange, const PipelineRequest &request) {
                         exchange.respond(pipeline(exchange.peer, request));
                     })));
    // Trainers of a pipeline swarm measure the validation loss on the same held-out split the
    // coordinator validates full-model states on (its first tokens).
    routes.add(route(QHttpServerRequest::Method::Get, "/v1/validation-sample", RouteAccess::Peer, RouteBody::None,
                     [this](HttpExchange &exchange) { exchange.respond(HttpReply::json(validationSample().toJson())); }));
}

ValidationSample PipelineEndpoint::validationSample() const
{
    const CoordinatorSetup &setup = m_context.setup;
    const std::size_t count = std::min<std::size_t>(setup.validationTokens.size(), protocol::kMaxValidationSampleTokens);
    ValidationSample sample;
    sample.tokens.assign(setup.validationTokens.begin(), setup.validationTokens.begin() + std::ptrdiff_t(count));
    sample.bytes = qint64(textBytesOf(*setup.tokenizer, sample.tokens));
    return sample;
}

HttpReply PipelineEndpoint::pipeline(const PeerRecord &peer, const PipelineRequest &request)
{
    PipelineSteps &steps = m_context.pipeline;
    if (!steps.enabled())
        return HttpReply::error(409, QStringLiteral("this swarm trains whole model copies, not pipeline stages"));
    if (request.stage >= steps.settings().stages)
        return HttpReply::error(400, QStringLiteral("pipeline request.stage must be below %1").arg(steps.settings().stages));
    if (Result<void> seen =
            m_context.store.recordHeartbeat(peer.keyId, QStringLiteral("training"), {}, 0.0, -1, 0, m_context.clock());
        !seen)
        return HttpReply::error(500, toQString(seen.error()));
    PeerRecord fresh = peer;
    fresh.lastSeenMs = m_context.clock();
    Result<PipelineAnswer> answer = steps.handle(fresh, request);
    if (!answer)
        return HttpReply::error(500, toQString(answer.error()));
    return HttpReply::json(answer->toJson());
}

} // namespace swarmtrain
