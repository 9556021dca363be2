#include "StageOptimizer.h"

#include "PeerTransport.h"
#include "StageFrames.h"
#include "StageWorker.h"

#include <QLoggingCategory>

#include <algorithm>
#include <cmath>

namespace swarmtrain {

Q_LOGGING_CATEGORY(lcStageOptimizer, "swarmtrain.pipeline.step")

namespace {

QString toQString(const std::string &text) { return QString::fromStdString(text); }

// Where each of the stage's parameters sits in the group's vector, in the stage's order.
struct Placement {
    std::int64_t own = 0;   // offset in the stage's vector
    std::int64_t group = 0; // offset in the group's vector
    std::int64_t count = 0;
};

Result<std::vector<Placement>> placements(const StageStepPlan &plan,
                                          const std::vector<std::pair<std::string, std::int64_t>> &layout)
{
    std::vector<Placement> placed;
    std::int64_t own = 0;
    if (plan.part == StepPart::Own) {
        for (const auto &[name, count] : layout) {
            placed.push_back({own, own, count});
            own += count;
        }
        return placed;
    }
    // The shared part is the tied token embedding; an untied head shares nothing.
    std::int64_t embeddingCount = 0;
    if (!plan.tiedName.empty()) {
        const auto embedding = std::find_if(layout.begin(), layout.end(), [&](const auto &slot) { return slot.first == plan.tiedName; });
        if (embedding == layout.end())
            return makeError("a stage of the tied group holds no token embedding");
        embeddingCount = embedding->second;
    }
    std::int64_t rest = plan.part == StepPart::TiedFirst ? embeddingCount : embeddingCount + plan.firstRest;
    for (const auto &[name, count] : layout) {
        if (!plan.tiedName.empty() && name == plan.tiedName) {
            placed.push_back({own, 0, count});
        } else {
            placed.push_back({own, rest, count});
            rest += count;
        }
        own += count;
    }
    const std::int64_t expectedRest = plan.part == StepPart::TiedFirst ? plan.firstRest : plan.lastRest;
    if (own - embeddingCount != expectedRest)
        return makeError("the plan gives this stage " + std::to_string(expectedRest) + " parameters besides the token embedding; it holds "
                         + std::to_string(own - embeddingCount));
    return placed;
}

} // namespace

std::int64_t StageStepPlan::groupSize(std::int64_t ownCount) const
{
    if (part == StepPart::Own)
        return ownCount;
    const std::int64_t embedding = ownCount - (part == StepPart::TiedFirst ? firstRest : lastRest);
    return embedding + firstRest + lastRest;
}

void StageStepPlan::placeInPipeline(const ModelConfig &config, const std::vector<StageSpan> &spans, int stage)
{
    tiedName = config.tiedEmbeddingName();
    const std::int64_t embedding = tiedName.empty() ? 0 : std::int64_t(config.vocabSize) * config.nEmbd;
    firstRest = spanParameterCount(config, spans.front()) - embedding;
    lastRest = spanParameterCount(config, spans.back()) - embedding;
    const int last = int(spans.size()) - 1;
    part = stage == 0 ? StepPart::TiedFirst : stage == last ? StepPart::TiedLast : StepPart::Own;
}

QList<AllReduceMember> withEqualRanges(QList<AllReduceMember> members, std::int64_t count)
{
    std::sort(members.begin(), members.end(), [](const auto &a, const auto &b) { return a.keyId < b.keyId; });
    std::int64_t owners = 0;
    for (const AllReduceMember &m : members)
        owners += !m.endpoint.isEmpty();
    std::int64_t next = 0, index = 0;
    for (AllReduceMember &m : members) {
        m.begin = m.end = next;
        if (m.endpoint.isEmpty())
            continue;
        m.end = ++index == owners ? count : next + count / owners;
        next = m.end;
    }
    return members;
}

StageOptimizer::StageOptimizer(PeerTransport &transport, const QString &selfKeyId, StageWorker &stage, QObject *parent)
    : QObject(parent)
    , m_stage(stage)
    , m_allReduce(transport, selfKeyId)
{
    connect(&m_allReduce, &ButterflyAllReduce::finished, this, &StageOptimizer::onAllReduced);
}

Result<void> StageOptimizer::start(const StageStepPlan &plan)
{
    if (m_running)
        return makeError("a stage step is already running");
    if (plan.microbatches <= 0 || plan.members.isEmpty())
        return makeError("a stage step needs microbatches and members");
    m_running = true;
    m_incomplete = false;
    m_plan = plan;
    const std::uint64_t step = plan.step;
    m_stage.post(
        this,
        [step](PipelineStage &stage) {
            // Work of another step (one this peer missed the close of) counts for nothing here.
            stage.cancelIf([step](const std::string &key) { return stepOfKey(key) != step; });
            return std::make_pair(stage.gradientSum(), stage.parameterLayout());
        },
        [this](const std::pair<std::vector<float>, std::vector<std::pair<std::string, std::int64_t>>> &read) {
            const auto &[sum, layout] = read;
            m_layout = layout;
            Result<std::vector<Placement>> placed = placements(m_plan, layout);
            if (!placed)
                return finish(false, {}, toQString(placed.error().message));
            // Each member's share of the mean: the plain average over the group's members then
            // gives sum over all of them / M.
            const float scale = float(double(m_plan.members.size()) / double(m_plan.microbatches));
            std::vector<float> contribution(std::size_t(m_plan.groupSize(std::int64_t(sum.size()))), 0.0f);
            for (const Placement &p : *placed) {
                for (std::int64_t i = 0; i < p.count; ++i)
                    contribution[std::size_t(p.group + i)] = sum[std::size_t(p.own + i)] * scale;
            }
            AllReduceOptions options;
            options.timeoutMs = m_plan.timeoutMs;
            options.aggregation = Aggregation::Mean;
            options.refuseZeroPieces = false;
            options.misbehaviour = m_misbehaviour;
            // Gradients, not pseudo-gradients: the clipping in the step bounds what they do.
            options.maxUpdateRms = 1e3;
            // Every attempt of a step has the step's checkers and referees, the ones the
            // coordinator judges its disputes by.
            options.rotation = m_plan.step + 1;
            const std::int64_t count = std::int64_t(contribution.size());
            Result<void> started = m_allReduce.start(m_plan.round, withEqualRanges(m_plan.members, count),
                                                     std::move(contribution), double(m_plan.microbatches), options);
            if (!started)
                finish(false, {}, toQString(started.error().message));
        });
    return {};
}

void StageOptimizer::onAllReduced(quint64 round)
{
    if (!m_running || round != m_plan.round)
        return;
    const AllReduceOutcome &outcome = m_allReduce.outcome();
    if (m_plan.requireComplete && !outcome.missingWork.isEmpty()) {
        // The survivors' gradient sums stay as they are. What quantization dropped from the
        // pieces sent stays in the error feedback: at most one 8-bit step's error, once.
        m_incomplete = true;
        return finish(false, {}, QStringLiteral("the all-reduce lacks the work of %1").arg(outcome.missingWork.join(QStringLiteral(", "))));
    }
    if (!outcome.skippedRanges.empty())
        qCWarning(lcStageOptimizer).noquote() << "step" << m_plan.step << "skips" << outcome.skippedRanges.size()
                                             << "range(s) of the group's gradient (an owner failed or its checker disagreed);"
                                             << "disputed:" << outcome.disputed.join(QStringLiteral(", "));
    const std::vector<float> &average = outcome.average;
    double squares = 0.0;
    for (const float v : average)
        squares += double(v) * v;
    const double norm = std::sqrt(squares);
    const float clip = m_plan.gradClip > 0 && norm > m_plan.gradClip ? float(m_plan.gradClip / norm) : 1.0f;
    Result<std::vector<Placement>> placed = placements(m_plan, m_layout);
    if (!placed) // start() checked the same layout and plan; kept for safety's sake
        return finish(false, {}, toQString(placed.error().message));
    std::int64_t ownCount = 0;
    for (const auto &slot : m_layout)
        ownCount += slot.second;
    auto mean = std::make_shared<std::vector<float>>(std::size_t(ownCount), 0.0f);
    for (const Placement &p : *placed) {
        for (std::int64_t i = 0; i < p.count; ++i)
            (*mean)[std::size_t(p.own + i)] = average[std::size_t(p.group + i)] * clip;
    }
    const double lr = m_plan.lr;
    m_stage.post(
        this,
        [mean, lr](PipelineStage &stage) -> Result<std::string> {
            if (Result<void> stepped = stage.step(*mean, lr, 0.0); !stepped)
                return stepped.error();
            return stage.hash();
        },
        [this](const Result<std::string> &hash) {
            if (!hash)
                return finish(false, {}, toQString(hash.error().message));
            finish(true, toQString(*hash), {});
        });
}

void StageOptimizer::finish(bool applied, const QString &hash, const QString &why)
{
    m_running = false;
    Q_EMIT stepFinished(m_plan.round, applied, hash, why);
}

} // namespace swarmtrain
