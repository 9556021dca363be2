#include "PipelineEndpoint.h"

#include "CoordinatorLog.h"
#include "CorpusTokenizer.h"
#include "FileIo.h"
#include "ModelExports.h"
#include "PipelineStage.h"
#include "QtText.h"
#include "ShardManifest.h"
#include "SwarmState.h"

#include <QFile>
#include <QJsonObject>
#include <QUrlQuery>

#include <algorithm>

namespace swarmtrain {

PipelineEndpoint::PipelineEndpoint(CoordinatorContext context) : EndpointGroup(context)
{
    m_checks.setMaxThreadCount(1); // one stage state at a time: each builds the stage
}

PipelineEndpoint::~PipelineEndpoint() { m_checks.waitForDone(); }

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
    Route upload = route(QHttpServerRequest::Method::Post, "/v1/pipeline/state", RouteAccess::Peer, RouteBody::Bytes,
                         [this](HttpExchange &exchange) { uploadState(exchange); });
    upload.maxBodyBytes = [this] {
        qint64 largest = 0; // none in a full-model swarm
        for (const StageShape &stage : stageShapes())
            largest = std::max(largest, stage.stateBytes);
        return largest;
    };
    routes.add(std::move(upload));
}

const std::vector<PipelineEndpoint::StageShape> &PipelineEndpoint::stageShapes()
{
    // The stages as the pipeline splits the model, once it is on.
    if (m_stages.empty() && m_context.pipeline.enabled()) {
        if (Result<std::vector<StageSpan>> spans = partitionStages(m_context.setup.model, m_context.pipeline.settings().stages)) {
            for (const StageSpan &span : *spans)
                m_stages.push_back({span, qint64(PipelineStage::stateSize(spanParameterCount(m_context.setup.model, span)))});
        }
    }
    return m_stages;
}

std::filesystem::path PipelineEndpoint::stagesDir(qint64 step) const
{
    return exportsDir(m_context.setup) / (".stages-" + std::to_string(step));
}

void PipelineEndpoint::forgetOtherCollections(qint64 step) const
{
    // Those of collections given up (PipelineSteps::collectStageStates), or left by a crash; not
    // those being put together now.
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator(exportsDir(m_context.setup), error)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(".stages-"))
            continue;
        const qint64 other = QString::fromStdString(name.substr(8)).toLongLong();
        if (other != step && !m_handedOver.contains(other))
            std::filesystem::remove_all(entry.path(), error);
    }
}

void PipelineEndpoint::uploadState(const HttpExchange &exchange)
{
    const QUrlQuery query = exchange.request.query();
    bool stageOk = false;
    const int stage = query.queryItemValue(QStringLiteral("stage")).toInt(&stageOk);
    const QString hash = query.queryItemValue(QStringLiteral("hash")).left(64);
    const std::vector<StageShape> &stages = stageShapes();
    if (!m_context.pipeline.enabled() || stages.empty())
        return exchange.respond(HttpReply::error(409, QStringLiteral("this swarm trains whole model copies, not pipeline stages")));
    if (!stageOk || stage < 0 || stage >= int(stages.size()) || hash.isEmpty())
        return exchange.respond(HttpReply::error(400, QStringLiteral("POST /v1/pipeline/state needs ?stage=S&hash=H")));
    // Asked for another state since (a collection that started again): no one's fault.
    const std::optional<PipelineSteps::StageStateWanted> wanted = m_context.pipeline.stageStateWanted(exchange.peer.keyId, stage);
    if (!wanted || wanted->hash != hash)
        return exchange.respond(HttpReply::error(409, QStringLiteral("the coordinator does not ask this peer for that state of stage %1 now")
                                                          .arg(stage)));
    const qint64 step = wanted->step;
    const StageShape &shape = stages[std::size_t(stage)];
    if (!exchange.request.bodyFile() || exchange.request.contentLength() != shape.stateBytes) {
        return exchange.respond(keepState(exchange.peer.keyId, stage, step, {},
                                          QStringLiteral("a state of stage %1 is %2 bytes, not %3")
                                              .arg(stage).arg(shape.stateBytes).arg(exchange.request.contentLength())));
    }
    const std::filesystem::path incoming = exchange.request.bodyFile()->fileName().toStdString();
    const std::shared_ptr<QFile> file = exchange.request.bodyFile(); // kept until the check is done
    const ModelConfig model = m_context.setup.model;
    m_checks.start([this, file, incoming, model, shape, stage, step, hash, keyId = exchange.peer.keyId,
                    reply = exchange.replier()] {
        QString why;
        Result<std::vector<std::byte>> bytes = readFileBytes(incoming, std::uint64_t(shape.stateBytes));
        Result<std::string> got = bytes ? stageStateHash(model, shape.span, *bytes) : Result<std::string>(bytes.error());
        if (!got)
            why = QStringLiteral("the stage state does not check out: %1").arg(toQString(got.error()));
        else if (QString::fromStdString(*got) != hash)
            why = QStringLiteral("the stage state's parameters hash differs from the one it was sent as, step %1's agreed hash").arg(step);
        // The server outlives this job: ~PipelineEndpoint waits for it.
        QMetaObject::invokeMethod(m_context.server, [this, keyId, stage, step, incoming, why, file, reply] {
            reply(keepState(keyId, stage, step, incoming, why));
        }, Qt::QueuedConnection);
    });
}

HttpReply PipelineEndpoint::keepState(const QString &keyId, int stage, qint64 step, const std::filesystem::path &incoming,
                                      const QString &why)
{
    std::error_code error;
    if (!why.isEmpty()) {
        if (!incoming.empty())
            std::filesystem::remove(incoming, error);
        qCWarning(lcCoordinator) << "refused stage" << stage << "state of step" << step << "from" << keyId << ":" << why;
        m_context.pipeline.stageStateRefused(keyId, stage);
        if (Result<bool> banned = m_context.reputation.offend(keyId, QStringLiteral("forged stage state"), why); !banned)
            qCWarning(lcCoordinator) << "cannot record the offence:" << toQString(banned.error());
        return HttpReply::error(400, why);
    }
    // While it was checked, the collection may have started again, or taken this stage already.
    if (const auto wanted = m_context.pipeline.stageStateWanted(keyId, stage); !wanted || wanted->step != step) {
        std::filesystem::remove(incoming, error);
        return HttpReply::error(409, QStringLiteral("the coordinator no longer needs that state of stage %1").arg(stage));
    }
    forgetOtherCollections(step);
    const std::filesystem::path dir = stagesDir(step);
    std::filesystem::create_directories(dir, error);
    if (!error)
        std::filesystem::rename(incoming, StateValidation::stageStateFile(dir, stage), error);
    if (error) {
        std::filesystem::remove(incoming, error);
        return HttpReply::error(500, QStringLiteral("cannot keep the stage state: %1").arg(QString::fromStdString(error.message())));
    }
    qCInfo(lcCoordinator) << "pipeline: stage" << stage << "state of step" << step << "uploaded by" << keyId;
    if (m_context.pipeline.stageStateTaken(step, stage)) {
        const PipelineSettings &settings = m_context.pipeline.settings();
        const std::int64_t tokensPerStep =
            std::int64_t(settings.microbatchesPerStep) * settings.microbatchSize * m_context.setup.model.blockSize;
        m_handedOver.insert(step);
        m_context.validation.publishStages(step, dir, settings.stages, tokensPerStep);
    }
    return HttpReply::json(QJsonObject{{QStringLiteral("stage"), stage}, {QStringLiteral("step"), double(step)}});
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
