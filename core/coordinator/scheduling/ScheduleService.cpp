#include "ScheduleService.h"

#include "CoordinatorLog.h"
#include "EvolutionarySearch.h"

#include <QJsonDocument>

namespace swarmtrain {

namespace {

// What one transformer block costs to split, for the cost model (the paper's c_dp and c_pp).
scheduler::ModelSpec modelSpec(const ModelConfig &model, const TrainingSettings &training)
{
    const double c = model.nEmbd;
    const double blockParameters = double(model.blockParameterCount());
    const double tokens = double(training.batchSize) * model.blockSize;
    scheduler::ModelSpec spec;
    spec.layers = model.nLayer;
    spec.parameterBytesPerLayer = 4.0 * blockParameters;   // float32 gradients
    spec.activationBytesPerMicrobatch = tokens * c;        // 8-bit activations
    spec.flopsPerLayerPerMicrobatch = tokens * (6.0 * blockParameters + 12.0 * c * model.blockSize);
    spec.microbatches = 4;
    return spec;
}

scheduler::Problem problemOf(const std::vector<PeerRecord> &peers, const LinkMatrix &matrix,
                             const scheduler::ModelSpec &spec, int stages)
{
    scheduler::Problem problem;
    problem.model = spec;
    for (const PeerRecord &peer : peers) {
        const Result<DeviceReport> device = DeviceReport::fromJson(QJsonDocument::fromJson(peer.deviceJson).object());
        problem.devices.push_back({peer.keyId.toStdString(), {}, device ? device->flopsPerSecond : 0.0,
                                   device ? double(device->trainingMemoryBytes) : 0.0});
    }
    const int n = int(peers.size());
    problem.delaySeconds.assign(std::size_t(n * n), 0.0);
    problem.bandwidthBytesPerSecond.assign(std::size_t(n * n), 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j)
                continue;
            problem.delaySeconds[std::size_t(i * n + j)] = matrix.at(i, j).delaySeconds;
            problem.bandwidthBytesPerSecond[std::size_t(i * n + j)] = matrix.at(i, j).bytesPerSecond;
        }
    }
    if (stages > 0) {
        problem.grid.pipelineStages = std::min(stages, n);
        problem.grid.dataParallel = n / problem.grid.pipelineStages;
    }
    // A peer that did not say what its device can do must not be ruled out by the memory term.
    problem.terms.memory = std::all_of(problem.devices.begin(), problem.devices.end(),
                                       [](const scheduler::Device &d) { return d.memoryBytes > 0; });
    problem.terms.compute = std::all_of(problem.devices.begin(), problem.devices.end(),
                                        [](const scheduler::Device &d) { return d.flopsPerSecond > 0; });
    return problem;
}

ScheduleAnswer answerOf(const scheduler::Problem &problem, const scheduler::Schedule &schedule)
{
    const auto id = [&](int device) { return QString::fromStdString(problem.devices[std::size_t(device)].id); };
    ScheduleAnswer answer;
    answer.state = QStringLiteral("scheduled");
    answer.pipelineStages = schedule.grid.pipelineStages;
    answer.dataParallel = schedule.grid.dataParallel;
    for (const std::vector<int> &stage : schedule.stages) {
        QStringList ids;
        for (int device : stage)
            ids.append(id(device));
        answer.stages.push_back(ids);
    }
    // Each pipeline: a first-stage device and, stage by stage, the device it feeds.
    for (int first : schedule.stages.empty() ? std::vector<int>{} : schedule.stages.front()) {
        QStringList pipeline{id(first)};
        int device = first;
        for (const scheduler::StageLink &link : schedule.links) {
            const auto feed = std::find_if(link.feeds.begin(), link.feeds.end(),
                                           [&](const std::pair<int, int> &f) { return f.first == device; });
            if (feed == link.feeds.end())
                break;
            device = feed->second;
            pipeline.append(id(device));
        }
        answer.pipelines.push_back(pipeline);
    }
    for (int spare : schedule.spares)
        answer.spares.append(id(spare));
    answer.dataParallelSeconds = schedule.cost.dataParallel;
    answer.pipelineSeconds = schedule.cost.pipeline;
    answer.computeSeconds = schedule.cost.compute;
    answer.totalSeconds = schedule.cost.total;
    answer.why = QString::fromStdString(schedule.why);
    answer.movedPeers = schedule.movedPeers;
    answer.placedPeers = schedule.placedPeers;
    return answer;
}

scheduler::CurrentAssignment assignmentOf(const ScheduleAnswer &answer)
{
    scheduler::CurrentAssignment current;
    for (const QStringList &stage : answer.stages) {
        current.stages.emplace_back();
        for (const QString &peer : stage)
            current.stages.back().push_back(peer.toStdString());
    }
    for (const QString &spare : answer.spares)
        current.spares.push_back(spare.toStdString());
    return current;
}

} // namespace

ScheduleService::ScheduleService(const ModelConfig &model, const TrainingSettings &training, ScheduleOptions options,
                                 QObject *parent)
    : QObject(parent), m_model(model), m_training(training), m_options(options)
{
    m_workers.setMaxThreadCount(1);
    m_latest.state = QStringLiteral("waiting");
}

ScheduleService::~ScheduleService() { m_workers.waitForDone(); }

ScheduleAnswer ScheduleService::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_latest;
}

void ScheduleService::update(std::vector<PeerRecord> online, const MatrixOf &matrixOf, qint64 nowMs)
{
    if (online.size() > std::size_t(m_options.maxPeers))
        online.resize(std::size_t(m_options.maxPeers));
    QStringList peers;
    std::vector<QString> ids;
    for (const PeerRecord &peer : online) {
        peers.append(peer.keyId);
        ids.push_back(peer.keyId);
    }
    const bool peersChanged = peers != m_scheduledPeers;
    const qint64 sinceLast = nowMs - m_scheduledMs;
    // New measurements count only every few seconds: the matrix costs to build.
    if (m_running || online.size() < 2 || (!peersChanged && sinceLast < m_options.everyMs / 5))
        return;
    const LinkMatrix matrix = matrixOf(ids);
    if (!peersChanged && matrix.measuredCount() == m_scheduledLinks && sinceLast < m_options.everyMs)
        return;
    m_running = true;
    m_scheduledPeers = peers;
    m_scheduledLinks = matrix.measuredCount();
    m_scheduledMs = nowMs;
    scheduler::Problem problem = problemOf(online, matrix, modelSpec(m_model, m_training), m_options.stages);
    scheduler::SearchOptions search;
    search.seconds = m_options.seconds;
    // The same grid as the current assignment: repair it. Another grid (more or fewer peers per
    // stage), or none yet: start over.
    std::optional<scheduler::CurrentAssignment> current;
    {
        std::lock_guard lock(m_mutex);
        const int stages = problem.grid.pipelineStages;
        if (m_current && stages > 0 && int(m_current->stages.size()) == stages
            && int(m_current->stages.front().size()) == problem.grid.dataParallel)
            current = m_current;
    }
    const qint64 measured = matrix.measuredCount(), estimated = matrix.estimatedCount();
    QStringList estimatedLinks;
    for (int from = 0; from < matrix.size() && estimatedLinks.size() < protocol::kMaxListedEstimates; ++from) {
        for (int to = 0; to < matrix.size() && estimatedLinks.size() < protocol::kMaxListedEstimates; ++to) {
            if (from != to && !matrix.at(from, to).measured)
                estimatedLinks.append(peers.at(from) + QLatin1Char('>') + peers.at(to));
        }
    }
    m_workers.start([this, problem = std::move(problem), search, current, nowMs, measured, estimated, estimatedLinks] {
        // The destructor waits for this task, so `this` outlives it.
        Result<scheduler::Schedule> found = current ? scheduler::reschedule(problem, *current, {-1.0, search})
                                                    : scheduler::schedule(problem, search);
        ScheduleAnswer answer;
        if (found) {
            answer = answerOf(problem, *found);
        } else {
            answer.state = QStringLiteral("waiting");
            answer.why = QString::fromStdString(found.error().message);
        }
        answer.computedMs = nowMs;
        answer.peers = problem.deviceCount();
        answer.linksMeasured = measured;
        answer.linksEstimated = estimated;
        answer.estimatedLinks = estimatedLinks;
        {
            std::lock_guard lock(m_mutex);
            m_latest = answer;
            if (found)
                m_current = assignmentOf(answer);
        }
        QMetaObject::invokeMethod(this, [this] {
            m_running = false;
            Q_EMIT scheduled();
        }, Qt::QueuedConnection);
    });
}

} // namespace swarmtrain
