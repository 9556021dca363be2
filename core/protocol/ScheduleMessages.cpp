// The codec of GET /v1/schedule's answer (ControlMessages.h, ScheduleAnswer).

#include "ControlMessages.h"

#include "JsonReader.h"

#include <QJsonArray>

namespace swarmtrain {

namespace {

using namespace protocol;
using L = QLatin1StringView;

constexpr qint64 kMaxCount = JsonReader::kMaxExactInteger;
constexpr double kMaxFigure = 1e30;

} // namespace

namespace {

QJsonArray listsToJson(const std::vector<QStringList> &lists)
{
    QJsonArray array;
    for (const QStringList &list : lists)
        array.append(QJsonArray::fromStringList(list));
    return array;
}

// An array of arrays of peer ids.
std::vector<QStringList> readLists(JsonReader &r, QLatin1StringView name)
{
    std::vector<QStringList> lists;
    const QJsonArray outer = r.array(name, kMaxMembers);
    for (qsizetype i = 0; i < outer.size() && r.ok(); ++i) {
        if (!outer.at(i).isArray() || outer.at(i).toArray().size() > kMaxMembers) {
            r.fail(name, QStringLiteral("must hold arrays of at most %1 peer ids").arg(kMaxMembers));
            break;
        }
        const QJsonArray inner = outer.at(i).toArray();
        QStringList list;
        for (qsizetype j = 0; j < inner.size() && r.ok(); ++j)
            list.append(r.stringAt(inner, name, j, kMaxKeyIdChars));
        lists.push_back(std::move(list));
    }
    return lists;
}

} // namespace

QJsonObject ScheduleAnswer::toJson() const
{
    return QJsonObject{{L("state"), state},
                       {L("computed_ms"), double(computedMs)},
                       {L("peers"), double(peers)},
                       {L("links_measured"), double(linksMeasured)},
                       {L("links_estimated"), double(linksEstimated)},
                       {L("estimated_links"), QJsonArray::fromStringList(estimatedLinks)},
                       {L("pipeline_stages"), pipelineStages},
                       {L("data_parallel"), dataParallel},
                       {L("stages"), listsToJson(stages)},
                       {L("pipelines"), listsToJson(pipelines)},
                       {L("spares"), QJsonArray::fromStringList(spares)},
                       {L("cost"), QJsonObject{{L("data_parallel_s"), dataParallelSeconds},
                                               {L("pipeline_s"), pipelineSeconds},
                                               {L("compute_s"), computeSeconds},
                                               {L("total_s"), totalSeconds}}},
                       {L("why"), why},
                       {L("moved_peers"), movedPeers},
                       {L("placed_peers"), placedPeers}};
}

Result<ScheduleAnswer> ScheduleAnswer::fromJson(const QJsonObject &json)
{
    JsonReader r(json, QStringLiteral("schedule"));
    ScheduleAnswer m;
    m.state = r.oneOf(L("state"), {L("scheduled"), L("waiting")});
    m.computedMs = r.integer(L("computed_ms"), 0, kMaxCount);
    m.peers = r.integer(L("peers"), 0, kMaxMembers);
    m.linksMeasured = r.integer(L("links_measured"), 0, kMaxCount);
    m.linksEstimated = r.integer(L("links_estimated"), 0, kMaxCount);
    if (r.has(L("estimated_links"))) {
        const QJsonArray estimated = r.array(L("estimated_links"), kMaxListedEstimates);
        for (qsizetype i = 0; i < estimated.size() && r.ok(); ++i)
            m.estimatedLinks.append(r.stringAt(estimated, L("estimated_links"), i, 2 * kMaxKeyIdChars + 1));
    }
    m.pipelineStages = int(r.integer(L("pipeline_stages"), 0, kMaxMembers));
    m.dataParallel = int(r.integer(L("data_parallel"), 0, kMaxMembers));
    m.stages = readLists(r, L("stages"));
    m.pipelines = readLists(r, L("pipelines"));
    const QJsonArray spares = r.array(L("spares"), kMaxMembers);
    for (qsizetype i = 0; i < spares.size() && r.ok(); ++i)
        m.spares.append(r.stringAt(spares, L("spares"), i, kMaxKeyIdChars));
    JsonReader cost = r.object(L("cost"));
    m.dataParallelSeconds = cost.number(L("data_parallel_s"), 0.0, kMaxFigure);
    m.pipelineSeconds = cost.number(L("pipeline_s"), 0.0, kMaxFigure);
    m.computeSeconds = cost.number(L("compute_s"), 0.0, kMaxFigure);
    m.totalSeconds = cost.number(L("total_s"), 0.0, kMaxFigure);
    m.why = r.text(L("why"), 64 * 1024);
    m.movedPeers = int(r.integer(L("moved_peers"), 0, kMaxMembers, 0));
    m.placedPeers = int(r.integer(L("placed_peers"), 0, kMaxMembers, 0));
    return r.finish(std::move(m));
}

} // namespace swarmtrain
